/**
 * The public registry pages in real headless Chromium: real 404s (HTML to browsers, JSON to API
 * clients, on both addresses), no sideways scrolling with the longest values the registry accepts,
 * and search pagination that survives a reload and a shared link.
 */
import { publicKeyOf, RegistryClient } from "../../../client/registry.ts";
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import type { Browser } from "playwright-core";
import {
  axeContext,
  launchBrowser,
  openPage,
  screenshot,
  seriousAxeHits,
  sidewaysScroll,
} from "../../helpers/browser.ts";
import { serverTest } from "../../helpers/server.ts";
import { signer, waitForResults } from "../../helpers/registry_ui.ts";

/** The bots with the `paging` capability, in order. */
const PAGING_BOTS = ["page-bot-1", "page-bot-2", "page-bot-3", "page-bot-4", "rtl-bot"];

const HTML = { Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };
const JSON_ONLY = { Accept: "application/json" };

/** A 404 answered as HTML: status, type, strict headers, the heading and the link back. */
async function assertHtml404(
  url: string,
  heading: string,
  back: string,
  scriptless = true,
): Promise<string> {
  const res = await fetch(url, { headers: HTML });
  const body = await res.text();
  assertEquals(res.status, 404, url);
  assertEquals(res.headers.get("content-type"), "text/html; charset=utf-8", url);
  assertStringIncludes(res.headers.get("content-security-policy") ?? "", "default-src 'none'");
  assertStringIncludes(body, `<h1>${heading}</h1>`, url);
  assertStringIncludes(body, `href="${back}"`, url);
  // The UI apps' 404s drop their app's script; the repository pages' frame keeps its own.
  if (scriptless) assert(!body.includes("<script"), `a 404 page needs no script: ${url}`);
  return body;
}

/** A 404 answered as JSON `{"error": ...}`. */
async function assertJson404(url: string, headers: Record<string, string>): Promise<string> {
  const res = await fetch(url, { headers });
  assertEquals(res.status, 404, url);
  assertStringIncludes(res.headers.get("content-type") ?? "", "application/json", url);
  const body = await res.json();
  assertEquals(typeof body.error, "string", url);
  return body.error;
}

/** The longest values the registry accepts, in every field the public pages show. */
const LONG = {
  id: `l${"o".repeat(62)}g`,
  name: "N".repeat(100),
  description: "D".repeat(1000),
  owner: "O".repeat(100),
  url: `https://example.com/${"u".repeat(2028)}`,
  capability: `c${"a".repeat(63)}`,
  label: "L".repeat(100),
  keyId: `k${"e".repeat(62)}y`,
  claim: "C".repeat(500),
};

async function createFixtures(api: RegistryClient): Promise<void> {
  const peer = await signer("peer", "acme-peer");
  await api.createBot({
    bot_id: "acme-peer",
    name: "Acme Peer",
    description: "First line.\nSecond line.",
    keys: [publicKeyOf(peer, "main")],
  }, [peer]);
  const long = await signer(LONG.keyId, LONG.id);
  await api.createBot({
    bot_id: LONG.id,
    name: LONG.name,
    description: LONG.description,
    owner: { name: LONG.owner, url: LONG.url },
    keys: [publicKeyOf(long, LONG.label)],
    controllers: [{ bot_id: "acme-peer", label: LONG.label }],
    endpoints: [{ type: "webhook", url: LONG.url, description: "E".repeat(200) }],
    capabilities: Array.from(
      { length: 32 },
      (_, i) => `${LONG.capability.slice(0, 62)}${String(i).padStart(2, "0")}`,
    ),
  }, [long]);
  await api.attest({
    issuer: "acme-peer",
    subject: LONG.id,
    claim: LONG.claim,
    evidence: [{ type: "url", value: LONG.url }],
  }, peer);
  // Right-to-left override in a name: it must not reorder the text around it.
  const rtl = await signer("main", "rtl-bot");
  await api.createBot({
    bot_id: "rtl-bot",
    name: "\u202Eevil name",
    keys: [publicKeyOf(rtl, "main")],
    capabilities: ["paging"],
  }, [rtl]);
  for (const n of [1, 2, 3, 4]) {
    const s = await signer("main", `page-bot-${n}`);
    await api.createBot({
      bot_id: `page-bot-${n}`,
      keys: [publicKeyOf(s, "main")],
      capabilities: ["paging"],
    }, [s]);
  }
}

serverTest(
  "public pages: 404s, no sideways scroll with the longest values, pagination in the URL",
  {},
  async (server, t) => {
    const api = new RegistryClient(server.registryUrl);
    await createFixtures(api);
    const browser: Browser = await launchBrowser();
    try {
      await t.step(
        "registry: a missing bot, an unknown path and a bad path are HTML 404s",
        async () => {
          await assertHtml404(`${server.registryUrl}/bots/no-such-bot`, "Bot not found", "/");
          await assertHtml404(`${server.registryUrl}/nope`, "Page not found", "/");
          await assertHtml404(`${server.registryUrl}/bots/acme-peer/`, "Page not found", "/");
          await assertHtml404(`${server.registryUrl}/bots/a/b`, "Page not found", "/");
        },
      );

      await t.step("hosting: unknown admin and top-level paths are HTML 404s", async () => {
        await assertHtml404(`${server.httpUrl}/admin/nope`, "Page not found", "/admin");
        // The public site's 404s lead back to the public list, not to the dashboard.
        for (const path of ["/nope", "/no-such-user", "/explore/x", "/favicon.ico"]) {
          const url = `${server.httpUrl}${path}`;
          const body = await assertHtml404(url, "Page not found", "/explore", false);
          assert(!body.includes("Signet admin"), `${path}: the admin's page`);
        }
      });

      await t.step("API clients keep JSON errors", async () => {
        assertEquals(
          await assertJson404(`${server.registryUrl}/bots/no-such-bot`, JSON_ONLY),
          "bot no-such-bot not found",
        );
        await assertJson404(`${server.registryUrl}/nope`, JSON_ONLY);
        await assertJson404(`${server.registryUrl}/nope`, {});
        await assertJson404(`${server.registryUrl}/v1/nope`, HTML);
        await assertJson404(`${server.registryUrl}/v1/bots/no-such-bot`, HTML);
        await assertJson404(`${server.httpUrl}/api/nope`, HTML);
        await assertJson404(`${server.httpUrl}/nope`, JSON_ONLY);
        await assertJson404(`${server.httpUrl}/admin/nope`, {});
        const found = await fetch(`${server.registryUrl}/bots/acme-peer`, { headers: HTML });
        await found.body?.cancel();
        assertEquals(found.status, 200);
      });

      await t.step("JSON and assets are gzipped for clients that take it", async () => {
        // Deno's fetch asks for gzip and inflates the body; Vary says it was compressed.
        const gz = await fetch(`${server.registryUrl}/v1/openapi.json`);
        assertEquals(gz.headers.get("vary"), "Accept-Encoding");
        assertEquals(typeof (await gz.json()).paths, "object");
        const plain = await fetch(`${server.registryUrl}/v1/openapi.json`, {
          headers: { "Accept-Encoding": "identity" },
        });
        assertEquals(plain.headers.get("vary"), null);
        assertEquals(plain.headers.get("content-encoding"), null);
        await plain.body?.cancel();
      });

      await t.step(
        "in Chromium: status 404 and a heading, with or without JavaScript",
        async () => {
          const { page, context } = await openPage(browser);
          const res = await page.goto(`${server.registryUrl}/bots/no-such-bot`);
          assertEquals(res?.status(), 404);
          await page.getByRole("heading", { level: 1, name: "Bot not found" }).waitFor();
          assertEquals(await page.getByRole("button", { name: "Retry" }).count(), 0);
          await page.locator("#main").getByRole("link", { name: "Browse bots" }).click();
          await page.getByRole("heading", { level: 1, name: "Bot identity registry" }).waitFor();
          // Reached inside the app (no reload): the app's own page, not an outage either.
          await page.evaluate(() => {
            history.pushState(null, "", "/bots/ghost-bot");
            dispatchEvent(new PopStateEvent("popstate"));
          });
          await page.getByRole("heading", { level: 1, name: "Bot not found" }).waitFor();
          assertEquals(await page.getByRole("alert").count(), 0, "no error notice");
          assertEquals(await page.getByRole("button", { name: "Retry" }).count(), 0);
          const unknown = await page.goto(`${server.httpUrl}/admin/nope`);
          assertEquals(unknown?.status(), 404);
          await page.getByRole("heading", { level: 1, name: "Page not found" }).waitFor();
          await context.close();

          const noJs = await browser.newContext({ javaScriptEnabled: false });
          const plain = await noJs.newPage();
          const missing = await plain.goto(`${server.registryUrl}/bots/no-such-bot`);
          assertEquals(missing?.status(), 404);
          await plain.getByRole("heading", { level: 1, name: "Bot not found" }).waitFor();
          await noJs.close();
        },
      );

      await t.step("no sideways scroll at 375 and 1280 px with the longest values", async () => {
        const longQuery = "Q".repeat(200);
        const pages: [string, string][] = [
          ["landing", "/"],
          ["search", `/?capability=${LONG.capability.slice(0, 62)}00`],
          ["chips", `/?q=${longQuery}&capability=${"x".repeat(64)}`],
          ["bot", `/bots/${LONG.id}`],
          // The bots it controls, and an attestation it issued about the longest id.
          ["controls", "/bots/acme-peer"],
          ["log", "/log"],
          ["docs", "/v1/docs"],
          ["protocol", "/v1/docs/protocol"],
          ["api", "/v1/docs/api"],
        ];
        for (const width of [375, 1280]) {
          const { page, context, problems } = await openPage(browser, { width, height: 800 });
          for (const [name, path] of pages) {
            await page.goto(`${server.registryUrl}${path}`);
            if (name === "bot") {
              await page.locator("#attestations-received .attestation").waitFor();
              await page.locator("#log-timeline .timeline-item").first().waitFor();
            } else if (name === "controls") {
              await page.locator("#controls-list li").first().waitFor();
            } else if (name === "log") {
              await page.locator("#log-timeline .timeline-item").first().waitFor();
            } else if (["docs", "protocol", "api"].includes(name)) {
              await page.locator("h1").first().waitFor();
            } else {
              await page.locator('.results[aria-busy="false"]').waitFor();
            }
            if (name === "search") {
              await waitForResults(page, [LONG.id]);
              await page.locator(".facets .facet-link").first().waitFor();
            }
            // The documents are long pages: a full-page picture of them takes seconds on a busy
            // machine and shows nothing the assertion does not.
            if (!["docs", "protocol", "api"].includes(name)) {
              await screenshot(page, `public-long-${name}-${width}`);
            }
            assertEquals(await sidewaysScroll(page), 0, `${name} at ${width} px scrolls sideways`);
          }
          await context.close();
          assertEquals(problems, []);
        }
      });

      await t.step("descriptions keep their newlines; RTL overrides stay isolated", async () => {
        const { page, context } = await openPage(browser);
        await page.goto(`${server.registryUrl}/bots/acme-peer`);
        const desc = page.locator(".bot-desc");
        await desc.waitFor();
        assertEquals(await desc.innerText(), "First line.\nSecond line.");
        await page.goto(`${server.registryUrl}/?capability=paging`);
        const card = page.locator('[data-bot-id="rtl-bot"]');
        await card.waitFor();
        // The override sits inside a <bdi>: the id after it reads left to right as written.
        assertEquals(await card.locator(".bot-link bdi").count(), 1);
        // textContent: innerText of a `content-visibility: auto` card is "" until it is rendered.
        assertStringIncludes((await card.textContent()) ?? "", "rtl-bot");
        await context.close();
      });

      await t.step("pagination: forward, back, reload and a shared link", async () => {
        const { page, context } = await openPage(browser);
        const all = ["page-bot-1", "page-bot-2", "page-bot-3", "page-bot-4", "rtl-bot"];
        await page.goto(`${server.registryUrl}/?capability=paging&limit=2`);
        await waitForResults(page, all.slice(0, 2));
        assertEquals(await page.getByRole("link", { name: "Previous" }).count(), 0);
        await page.getByRole("link", { name: "Next page" }).click();
        await waitForResults(page, all.slice(2, 4));
        assertStringIncludes(await page.locator("#results-range").innerText(), "3–4");
        await page.getByRole("link", { name: "Next page" }).click();
        await waitForResults(page, all.slice(4));
        assertStringIncludes(await page.locator("#results-range").innerText(), "Page 3");
        const third = page.url();

        await page.reload();
        await waitForResults(page, all.slice(4));
        await page.getByRole("link", { name: "Previous" }).click();
        await waitForResults(page, all.slice(2, 4));
        await page.reload();
        await waitForResults(page, all.slice(2, 4));
        await page.getByRole("link", { name: "Previous" }).click();
        await waitForResults(page, all.slice(0, 2));
        assertEquals(await page.getByRole("link", { name: "Previous" }).count(), 0);
        await page.goBack();
        await waitForResults(page, all.slice(2, 4));
        await context.close();

        const shared = await openPage(browser);
        await shared.page.goto(third);
        await waitForResults(shared.page, all.slice(4));
        await shared.page.getByRole("link", { name: "Previous" }).click();
        await waitForResults(shared.page, all.slice(2, 4));
        await shared.page.getByRole("link", { name: "Previous" }).click();
        await waitForResults(shared.page, all.slice(0, 2));
        await shared.context.close();
      });

      await t.step("out-of-range input is corrected, with a note, never a failure", async () => {
        const { page, context } = await openPage(browser);
        await page.goto(`${server.registryUrl}/?capability=paging&limit=200`);
        await waitForResults(page, PAGING_BOTS);
        assertStringIncludes(await page.locator(".results").innerText(), "showing 100 per page");
        assertEquals(await page.getByText("Search failed").count(), 0);

        await page.goto(`${server.registryUrl}/?capability=paging&status=bogus`);
        await waitForResults(page, PAGING_BOTS);
        assertEquals(await page.getByLabel("Status").inputValue(), "");
        assertStringIncludes(
          await page.locator(".results").innerText(),
          "Unknown status “bogus”: showing bots of any status.",
        );
        assertEquals(await page.getByLabel("Search bots").getAttribute("maxlength"), "200");

        await page.goto(`${server.registryUrl}/?capability=paging&limit=2&cursor=garbage`);
        await page.getByRole("link", { name: "Go to the first page" }).click();
        await waitForResults(page, ["page-bot-1", "page-bot-2"]);
        assertEquals(await page.getByText("Search failed").count(), 0);
        await context.close();
      });

      await t.step("axe-core: no serious or critical hits, an h1 on every page", async () => {
        const pages: [string, string][] = [
          ["landing", "/"],
          ["search", "/?q=peer&status=active"],
          ["bot", "/bots/acme-peer"],
          ["long bot", `/bots/${LONG.id}`],
          ["missing bot", "/bots/no-such-bot"],
          ["unknown path", "/nope"],
        ];
        for (const scheme of ["light", "dark"] as const) {
          const context = await axeContext(browser, scheme);
          const page = await context.newPage();
          for (const [name, path] of pages) {
            await page.goto(`${server.registryUrl}${path}`);
            await page.locator("h1").first().waitFor();
            if (name === "landing" || name === "search") {
              await page.locator('.results[aria-busy="false"]').waitFor();
              await page.locator('.stats[aria-busy="false"]').waitFor();
            }
            if (name.endsWith("bot") && name !== "missing bot") {
              await page.locator("#log-timeline .timeline-item").first().waitFor();
            }
            assertEquals(
              await seriousAxeHits(page, { headingOne: true }),
              [],
              `axe on ${name} (${scheme})`,
            );
          }
          await context.close();
        }
      });
    } finally {
      await browser.close();
    }
  },
);
