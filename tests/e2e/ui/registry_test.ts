/** Registry browser in real headless Chromium against the real registry, fed through its API. */
import { publicKeyOf, RegistryClient } from "../../../client/registry.ts";
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { launchBrowser, openPage, screenshot, VIEWPORTS } from "../../helpers/browser.ts";
import { serverTest } from "../../helpers/server.ts";
import { signer, waitForResults } from "../../helpers/registry_ui.ts";
import { twoOfThreeToRevoke } from "../../helpers/registry.ts";

serverTest(
  "registry browser: stats, search with filters and paging, bot page",
  {},
  async (server, t) => {
    const browser = await launchBrowser();
    const api = new RegistryClient(server.registryUrl);
    try {
      // Bots created through the registry API with real Ed25519 proofs.
      const root = await signer("root", "acme-ops");
      await api.createBot({
        bot_id: "acme-ops",
        name: "Acme Ops",
        description: "Root of trust for Acme's automation.",
        keys: [publicKeyOf(root, "hsm")],
        capabilities: ["admin"],
      }, [root]);
      const [k1, k2, k3] = await Promise.all(
        ["k1", "k2", "k3"].map((k) => signer(k, "acme-deploy-bot")),
      );
      await api.createBot({
        bot_id: "acme-deploy-bot",
        name: "Acme Deploy Bot",
        description: "Deploys Acme's services after CI passes and signs release manifests.",
        owner: { name: "Acme Platform Team", url: "https://acme.example/platform" },
        keys: [publicKeyOf(k1, "ci-runner"), publicKeyOf(k2, "backup"), publicKeyOf(k3, "laptop")],
        controllers: [{ bot_id: "acme-ops", label: "Ops root" }],
        policy: twoOfThreeToRevoke({ k1: "k1", k2: "k2", k3: "k3" }),
        endpoints: [{ type: "webhook", url: "https://deploy.acme.example/hooks/signet" }],
        capabilities: ["deploy", "sign:release"],
      }, [k1]);
      const k4 = await signer("k4", "acme-deploy-bot");
      await api.removeKey("acme-deploy-bot", "k3", [k1], "laptop lost");
      await api.addKey("acme-deploy-bot", publicKeyOf(k4, "ci-runner-2"), [k1]);
      await api.attest({
        issuer: "acme-ops",
        subject: "acme-deploy-bot",
        claim: "code-reviewed-by:acme-security",
        evidence: [{ type: "url", value: "https://acme.example/reviews/42" }],
      }, root);
      await api.attest({
        issuer: "acme-deploy-bot",
        subject: "acme-ops",
        claim: "deploys-for:acme-ops",
      }, k1);
      const old = await signer("main", "old-crawler");
      await api.createBot({
        bot_id: "old-crawler",
        description: "Legacy crawler.",
        keys: [publicKeyOf(old, "main")],
        capabilities: ["crawl"],
      }, [old]);
      await api.revokeBot("old-crawler", [old], "retired");

      const { page, problems } = await openPage(browser, VIEWPORTS.desktop);
      const requests: { url: string; auth: string | undefined }[] = [];
      page.on(
        "request",
        (r) => requests.push({ url: r.url(), auth: r.headers()["authorization"] }),
      );

      await t.step("landing page shows registry stats and every bot", async () => {
        await page.goto(`${server.registryUrl}/`);
        await page.getByRole("heading", { name: "Bot identity registry" }).waitFor();
        const stats = page.getByRole("region", { name: "Registry statistics" });
        await stats.getByText("2 active · 1 revoked").waitFor();
        const text = await stats.innerText();
        assertStringIncludes(text, "BOTS\n3");
        assertStringIncludes(text, "ATTESTATIONS\n2");
        await waitForResults(page, ["acme-deploy-bot", "acme-ops", "old-crawler"]);
        await screenshot(page, "registry-landing-desktop");
      });

      await t.step("search by text and filter by status and capability", async () => {
        await page.getByLabel("Search bots").fill("deploy");
        await page.keyboard.press("Enter");
        await page.waitForURL(/\?q=deploy/);
        await waitForResults(page, ["acme-deploy-bot"]);
        await screenshot(page, "registry-search-desktop");

        await page.getByLabel("Search bots").fill("");
        await page.getByLabel("Status").selectOption("revoked");
        await page.getByRole("button", { name: "Search" }).click();
        await page.waitForURL(/status=revoked/);
        await waitForResults(page, ["old-crawler"]);
        // textContent, not innerText: a card has `content-visibility: auto`, and Chromium gives
        // innerText "" for one inserted since the last rendering update (or kept off screen).
        assertStringIncludes(
          (await page.locator('[data-bot-id="old-crawler"]').textContent()) ?? "",
          "revoked",
        );

        await page.getByLabel("Status").selectOption("");
        await page.getByLabel("Capability").fill("admin");
        await page.getByRole("button", { name: "Search" }).click();
        await page.waitForURL(/capability=admin/);
        await waitForResults(page, ["acme-ops"]);
      });

      await t.step("results page forward and back", async () => {
        await page.goto(`${server.registryUrl}/?limit=2`);
        await waitForResults(page, ["acme-deploy-bot", "acme-ops"]);
        await page.getByRole("link", { name: "Next page" }).click();
        await waitForResults(page, ["old-crawler"]);
        assertEquals(await page.getByRole("link", { name: "Next page" }).count(), 0);
        await page.getByRole("link", { name: "Previous" }).click();
        await waitForResults(page, ["acme-deploy-bot", "acme-ops"]);
      });

      await t.step("a bot's page: identity, keys, policy, attestations and log", async () => {
        await page.goto(`${server.registryUrl}/`);
        await page.getByRole("link", { name: "Acme Deploy Bot" }).click();
        await page.waitForURL(/\/bots\/acme-deploy-bot$/);
        await page.getByRole("heading", { name: "Acme Deploy Bot", level: 1 }).waitFor();
        const keys = page.locator("#keys-table");
        await keys.locator('tr[data-key-id="k4"]').waitFor();
        assertStringIncludes(await keys.locator('tr[data-key-id="k3"]').innerText(), "revoked");
        assertStringIncludes(await keys.locator('tr[data-key-id="k3"]').innerText(), "laptop lost");
        assertStringIncludes(await keys.locator('tr[data-key-id="k4"]').innerText(), "active");
        assertStringIncludes(await keys.locator('tr[data-key-id="k1"]').innerText(), k1.publicKey);
        assertStringIncludes(
          await page.locator("#policy").innerText(),
          "revoke_bot needs 2 of: k1, k2, k3",
        );
        const aside = await page.locator(".bot-aside").innerText();
        assertStringIncludes(aside, "Acme Platform Team");
        assertStringIncludes(aside, "https://deploy.acme.example/hooks/signet");
        assertStringIncludes(aside, "sign:release");
        assertStringIncludes(aside, "acme-ops");
        await page.locator("#attestations-received").getByText("code-reviewed-by:acme-security")
          .waitFor();
        await page.locator("#attestations-issued").getByText("deploys-for:acme-ops").waitFor();
        const log = page.locator("#log-timeline");
        await log.locator(".timeline-item").first().waitFor();
        const ops = await log.locator(".timeline-item code.muted").allInnerTexts();
        assertEquals(ops, ["publish_attestation", "add_key", "remove_key", "create_bot"]);
        const entries = await api.log("acme-deploy-bot");
        assertStringIncludes(await log.innerText(), entries[0].hash);
        await screenshot(page, "registry-bot-desktop");
      });

      await t.step("a revoked bot says so; an unknown bot is a 404 page", async () => {
        await page.goto(`${server.registryUrl}/bots/old-crawler`);
        await page.getByText("This identity is revoked").waitFor();
        assertStringIncludes(await page.locator(".notice-danger").innerText(), "retired");
        await screenshot(page, "registry-bot-revoked-desktop");
        const missing = await page.goto(`${server.registryUrl}/bots/no-such-bot`);
        assertEquals(missing?.status(), 404);
        await page.getByRole("heading", { level: 1, name: "Bot not found" }).waitFor();
      });

      await t.step("the browser only reads: no credentials, no other origin", () => {
        assert(requests.length > 5);
        for (const r of requests) {
          assert(r.url.startsWith(`${server.registryUrl}/`), `request to another origin: ${r.url}`);
          assertEquals(r.auth, undefined, `credential sent to ${r.url}`);
        }
      });

      await t.step("phone width: landing and bot page reflow", async () => {
        const phone = await openPage(browser, VIEWPORTS.phone);
        await phone.page.goto(`${server.registryUrl}/`);
        await phone.page.locator('[data-bot-id="old-crawler"]').waitFor();
        await screenshot(phone.page, "registry-landing-phone");
        await phone.page.goto(`${server.registryUrl}/bots/acme-deploy-bot`);
        await phone.page.locator("#log-timeline .timeline-item").first().waitFor();
        await phone.page.locator("#attestations-received").waitFor();
        await screenshot(phone.page, "registry-bot-phone");
        const overflow = await phone.page.evaluate(() =>
          document.documentElement.scrollWidth - document.documentElement.clientWidth
        );
        assertEquals(overflow, 0, "no horizontal scrolling at phone width");
        await phone.context.close();
        assertEquals(phone.problems, []);
      });

      assertEquals(problems.filter((p) => !p.includes("404")), [], "no console errors");
    } finally {
      await browser.close();
    }
  },
);
