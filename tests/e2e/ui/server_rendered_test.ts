/**
 * The registry's public pages are rendered on the server and hydrated: with JavaScript off they
 * show their content and the search form works (a GET form); with it on, the first load fetches no
 * API data (the page carries it), and search, paging and navigation still work in place. Hostile
 * text in the embedded data cannot end its element.
 */
import { publicKeyOf, RegistryClient } from "../../../client/registry.ts";
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import {
  apiRequests,
  axeContext,
  launchBrowser,
  openPage,
  seriousAxeHits,
} from "../../helpers/browser.ts";
import { serverTest } from "../../helpers/server.ts";
import { signer, waitForResults } from "../../helpers/registry_ui.ts";
import type { Page } from "playwright-core";

const HTML = { Accept: "text/html" };
const HOSTILE = `</script><script>alert(1)</script><!--`;

serverTest(
  "server-rendered registry pages: content without JavaScript, hydrated with it",
  {},
  async (server, t) => {
    const api = new RegistryClient(server.registryUrl);
    const ops = await signer("root", "ssr-ops");
    await api.createBot({
      bot_id: "ssr-ops",
      name: "SSR Ops",
      description: HOSTILE,
      keys: [publicKeyOf(ops, "hsm")],
      capabilities: ["ssr"],
    }, [ops]);
    for (const n of [1, 2, 3]) {
      const s = await signer("main", `ssr-bot-${n}`);
      await api.createBot({
        bot_id: `ssr-bot-${n}`,
        name: `SSR bot ${n}`,
        keys: [publicKeyOf(s, "main")],
        controllers: [{ bot_id: "ssr-ops", label: "ops" }],
        capabilities: ["ssr"],
      }, [s]);
    }
    await api.attest({ issuer: "ssr-ops", subject: "ssr-bot-1", claim: "reviewed" }, ops);
    const browser = await launchBrowser();
    try {
      await t.step("the HTML carries the content and its data, escaped", async () => {
        const res = await fetch(`${server.registryUrl}/?capability=ssr`, { headers: HTML });
        const html = await res.text();
        assertEquals(res.status, 200);
        assertStringIncludes(res.headers.get("content-security-policy") ?? "", "script-src 'self'");
        assertStringIncludes(html, 'data-bot-id="ssr-bot-2"');
        assertStringIncludes(html, '<script type="application/json" id="page-data">');
        // The only markup-looking text of the description is escaped: one script element of
        // each kind, no comment opened.
        assertEquals(html.split("<script").length - 1, 2, "the module and the data element");
        assert(!html.includes("<!--"), "no comment opened by user text");
        const data = html.split('id="page-data">')[1].split("</script>")[0];
        const parsed = JSON.parse(data);
        const search = parsed["/v1/search?capability=ssr&limit=20"].data;
        const ops = search.results.find((b: { bot_id: string }) => b.bot_id === "ssr-ops");
        assertEquals(ops.description, HOSTILE);
        const bot = await fetch(`${server.registryUrl}/bots/ssr-ops`, { headers: HTML });
        const botHtml = await bot.text();
        assertStringIncludes(botHtml, "<title>SSR Ops · Signet registry</title>");
        assertStringIncludes(botHtml, 'id="log-timeline"');
      });

      await t.step("counts: the total, the status and capability facets", async () => {
        const res = await fetch(`${server.registryUrl}/v1/search/counts?q=ssr%20bot`);
        assertEquals(await res.json(), {
          total: 3,
          total_exact: true,
          by_status: { active: 3, revoked: 0 },
          capabilities: [{ capability: "ssr", count: 3 }],
          facets_exact: true,
          count_limit: 1000,
        });
        const bad = await fetch(`${server.registryUrl}/v1/search/counts?status=bogus`);
        assertEquals(bad.status, 400);
        assertEquals(typeof (await bad.json()).error, "string");
        const { page, context } = await openPage(browser);
        await page.goto(`${server.registryUrl}/?capability=ssr&limit=2`);
        await waitForResults(page, ["ssr-bot-1", "ssr-bot-2"]);
        assertEquals(await page.locator("#results-range").innerText(), "Page 1 of 2 · 1–2 of 4");
        const facets = page.getByRole("navigation", { name: "Refine results" });
        assertEquals(
          await facets.getByRole("link", { name: /^Active/ }).innerText(),
          "Active\n4",
        );
        await facets.getByRole("link", { name: /^Revoked/ }).click();
        await page.waitForURL(/status=revoked/);
        await page.getByText("No bots match").waitFor();
        await facets.getByRole("link", { name: /^Any$/ }).click();
        await waitForResults(page, ["ssr-bot-1", "ssr-bot-2"]);
        await facets.getByRole("link", { name: "Any capability" }).click();
        await page.waitForURL((u) => !u.search.includes("capability"));
        await page.locator("#results-range", { hasText: "1–2 of 4" }).waitFor();
        await context.close();
      });

      await t.step("with JavaScript off: landing, search form, paging and a bot", async () => {
        const context = await browser.newContext({ javaScriptEnabled: false });
        const page = await context.newPage();
        await page.goto(`${server.registryUrl}/?limit=2`);
        await page.getByRole("heading", { level: 1, name: "Bot identity registry" }).waitFor();
        assertStringIncludes(
          await page.getByRole("region", { name: "Registry statistics" }).innerText(),
          "4",
        );
        await waitForResults(page, ["ssr-bot-1", "ssr-bot-2"]);
        await page.getByLabel("Search bots").fill("SSR bot");
        await page.getByRole("button", { name: "Search" }).click();
        await page.waitForURL(/q=SSR\+bot/);
        await waitForResults(page, ["ssr-bot-1", "ssr-bot-2"]);
        assertStringIncludes(page.url(), "limit=2");
        await page.getByRole("link", { name: "Next page" }).click();
        await waitForResults(page, ["ssr-bot-3"]);
        await page.getByRole("link", { name: "Previous" }).click();
        await waitForResults(page, ["ssr-bot-1", "ssr-bot-2"]);
        await page.getByRole("link", { name: "SSR bot 1" }).click();
        await page.getByRole("heading", { level: 1, name: "SSR bot 1" }).waitFor();
        assertEquals(await page.locator("#attestations-received .attestation").count(), 1);
        assert(await page.locator("#log-timeline .timeline-item").count() >= 1);
        await page.goto(`${server.registryUrl}/nope`);
        await page.getByRole("heading", { level: 1, name: "Page not found" }).waitFor();
        await context.close();
      });

      await t.step(
        "with JavaScript on: hydrated without refetching, then works in place",
        async () => {
          const { page, context, problems } = await openPage(browser);
          const api = apiRequests(page);
          await page.goto(`${server.registryUrl}/?capability=ssr&limit=2`);
          await waitForResults(page, ["ssr-bot-1", "ssr-bot-2"]);
          await page.waitForLoadState("networkidle");
          assertEquals(api, [], "the first render needs no API call");
          // Navigation in place: the search fetches, no page load.
          await page.evaluate(() => (globalThis as unknown as { marker: number }).marker = 1);
          await page.getByRole("link", { name: "Next page" }).click();
          await waitForResults(page, ["ssr-bot-3", "ssr-ops"]);
          assertEquals(api, ["/v1/search"]);
          await page.getByLabel("Search bots").fill("SSR bot 3");
          await page.getByRole("button", { name: "Search" }).click();
          await waitForResults(page, ["ssr-bot-3"]);
          await page.getByRole("link", { name: "SSR bot 3" }).click();
          await page.getByRole("heading", { level: 1, name: "SSR bot 3" }).waitFor();
          await page.locator("#log-timeline .timeline-item").first().waitFor();
          assertEquals(
            await page.evaluate(() => (globalThis as unknown as { marker: number }).marker),
            1,
            "no full page load",
          );
          await page.goBack();
          await waitForResults(page, ["ssr-bot-3"]);
          // A bot page loaded directly is hydrated too: no API call for it.
          api.length = 0;
          await page.goto(`${server.registryUrl}/bots/ssr-ops`);
          await page.getByRole("heading", { level: 1, name: "SSR Ops" }).waitFor();
          await page.waitForLoadState("networkidle");
          assertEquals(api, []);
          assertEquals(await page.locator(".bot-desc").innerText(), HOSTILE);
          await context.close();
          assertEquals(problems, []);
        },
      );
      await t.step("reverse links: the bots a bot controls, API and page", async () => {
        const url = `${server.registryUrl}/v1/bots/ssr-ops/controlled`;
        const first = await (await fetch(`${url}?limit=2`)).json();
        assertEquals(first.bots, [
          { bot_id: "ssr-bot-1", name: "SSR bot 1", status: "active", label: "ops" },
          { bot_id: "ssr-bot-2", name: "SSR bot 2", status: "active", label: "ops" },
        ]);
        const rest = await (await fetch(`${url}?limit=2&cursor=${first.next_cursor}`)).json();
        assertEquals(rest.bots.map((b: { bot_id: string }) => b.bot_id), ["ssr-bot-3"]);
        assertEquals(rest.next_cursor, null);
        assertEquals(
          await (await fetch(`${server.registryUrl}/v1/bots/ssr-bot-1/controlled`)).json(),
          {
            bots: [],
            next_cursor: null,
          },
        );
        const missing = await fetch(`${server.registryUrl}/v1/bots/nobody/controlled`);
        assertEquals(missing.status, 404);
        await missing.body?.cancel();
        const bad = await fetch(`${url}?cursor=junk`);
        assertEquals(bad.status, 400);
        await bad.body?.cancel();

        for (const javaScriptEnabled of [false, true]) {
          const context = await browser.newContext({ javaScriptEnabled });
          const page = await context.newPage();
          await page.goto(`${server.registryUrl}/bots/ssr-ops`);
          const controls = page.locator("#controls-list li");
          await controls.first().waitFor();
          assertEquals(await controls.allInnerTexts(), [
            "SSR bot 1\nops",
            "SSR bot 2\nops",
            "SSR bot 3\nops",
          ]);
          await page.locator("#controls").getByRole("link", { name: "SSR bot 2" }).click();
          await page.getByRole("heading", { level: 1, name: "SSR bot 2" }).waitFor();
          await page.locator("#controllers").getByRole("link", { name: "ssr-ops" }).waitFor();
          await page.locator("#controls", { hasText: "No bot names this one" }).waitFor();
          await context.close();
        }
      });

      await t.step("docs: HTML to browsers, Markdown to others; the API page", async () => {
        for (const path of ["/v1/docs", "/v1/docs/protocol"]) {
          const md = await fetch(`${server.registryUrl}${path}`);
          assertEquals(md.headers.get("content-type"), "text/markdown; charset=utf-8");
          assert((await md.text()).startsWith("# "), path);
          const plain = await fetch(`${server.registryUrl}${path}`, {
            headers: { Accept: "application/json" },
          });
          assertEquals(plain.headers.get("content-type"), "text/markdown; charset=utf-8");
          await plain.body?.cancel();
          const html = await fetch(`${server.registryUrl}${path}`, { headers: HTML });
          assertEquals(html.headers.get("content-type"), "text/html; charset=utf-8");
          assertEquals(html.headers.get("vary")?.includes("Accept"), true);
          const text = await html.text();
          assert(!text.includes("<script"), "a document runs no script");
          assertStringIncludes(text, '<h1 id="');
          assertStringIncludes(
            text,
            '<div class="table-wrap" tabindex="0"><table class="doc-table">',
          );
        }
        const api = await fetch(`${server.registryUrl}/v1/docs/api`);
        const apiHtml = await api.text();
        assertEquals(api.headers.get("content-type"), "text/html; charset=utf-8");
        for (const id of ["search", "search_counts", "controlled_bots", "create_bot"]) {
          assertStringIncludes(apiHtml, `id="${id}"`);
        }
        assertStringIncludes(apiHtml, 'id="schema-BotRecord"');
        const { page, context } = await openPage(browser);
        await page.goto(`${server.registryUrl}/v1/docs`);
        await page.getByRole("heading", { level: 1, name: "Bot identity registry: reference" })
          .waitFor();
        await page.getByRole("navigation", { name: "Documentation" })
          .getByRole("link", { name: "API operations" }).click();
        await page.locator("#search_counts").waitFor();
        await page.locator("#search").getByRole("link", { name: "SearchResponse" }).click();
        await page.waitForURL(/#schema-SearchResponse$/);
        // Sections below the fold are left unrendered until near (content-visibility): a link to
        // a heading inside one still brings that heading into view.
        const onScreen = (id: string) =>
          page.waitForFunction((id) => {
            const top = document.getElementById(id)?.getBoundingClientRect().top ?? -1;
            return top >= 0 && top < globalThis.innerHeight;
          }, id);
        await onScreen("schema-SearchResponse");
        await page.goto(`${server.registryUrl}/v1/docs/protocol#8-verifying-the-audit-log`);
        await onScreen("8-verifying-the-audit-log");
        await context.close();
      });

      await t.step(
        "audit log: newest first, paged in the URL, checked in the browser",
        async () => {
          // 5 entries so far; 48 more make two pages of 50.
          for (let n = 0; n < 48; n++) {
            const s = await signer("main", `log-bot-${n}`);
            await api.createBot({ bot_id: `log-bot-${n}`, keys: [publicKeyOf(s, "main")] }, [s]);
          }
          const desc = await (await fetch(`${server.registryUrl}/v1/log?order=desc&limit=2`))
            .json();
          assertEquals(desc.entries.map((e: { seq: number }) => e.seq), [53, 52]);
          assertEquals([desc.next_after, desc.next_before], [null, 52]);
          const older = await (await fetch(
            `${server.registryUrl}/v1/log?order=desc&limit=2&before=2`,
          )).json();
          assertEquals([older.entries.map((e: { seq: number }) => e.seq), older.next_before], [
            [1],
            null,
          ]);
          const asc = await (await fetch(`${server.registryUrl}/v1/log?limit=1`)).json();
          assertEquals(Object.keys(asc), ["entries", "next_after"], "oldest first is as it was");
          for (
            const q of ["order=sideways", "before=1", "order=desc&after=1", "order=desc&before=x"]
          ) {
            const bad = await fetch(`${server.registryUrl}/v1/log?${q}`);
            assertEquals(bad.status, 400, q);
            await bad.body?.cancel();
          }

          const seqs = (page: Page) =>
            page.locator("#log-timeline .timeline-item").evaluateAll((els) =>
              els.map((e) => Number(e.getAttribute("data-seq")))
            );
          const noJs = await browser.newContext({ javaScriptEnabled: false });
          const plain = await noJs.newPage();
          await plain.goto(`${server.registryUrl}/log`);
          await plain.getByRole("heading", { level: 1, name: "Audit log" }).waitFor();
          assertEquals((await seqs(plain)).slice(0, 2), [53, 52]);
          await plain.getByRole("link", { name: "Older" }).click();
          assertEquals(await seqs(plain), [3, 2, 1]);
          await noJs.close();

          const { page, context, problems } = await openPage(browser);
          await page.goto(`${server.registryUrl}/log`);
          await page.getByText("Checked in your browser").waitFor();
          assertEquals((await seqs(page)).length, 50);
          await page.getByRole("link", { name: "Older" }).click();
          await page.waitForURL(/before=4/);
          await page.locator('[data-seq="1"]').waitFor();
          await page.getByText("Checked in your browser").waitFor();
          await page.reload();
          assertEquals(await seqs(page), [3, 2, 1]);
          const deep = page.url();
          await page.getByRole("link", { name: "Newer" }).click();
          await page.locator('[data-seq="53"]').waitFor();
          await page.goBack();
          await page.locator('[data-seq="1"]').waitFor();
          const shared = await browser.newPage();
          await shared.goto(deep);
          assertEquals(await seqs(shared), [3, 2, 1]);
          await shared.getByRole("link", { name: "Newer" }).click();
          await shared.locator('[data-seq="53"]').waitFor();
          await shared.close();
          await context.close();
          assertEquals(problems, []);
        },
      );

      await t.step(
        "axe-core: no serious or critical hits on the new pages and states",
        async () => {
          const pages = [
            "/?capability=ssr&limit=2",
            "/?capability=ssr&status=revoked",
            "/bots/ssr-ops",
            "/v1/docs",
            "/v1/docs/protocol",
            "/v1/docs/api",
            "/log",
          ];
          for (const colorScheme of ["light", "dark"] as const) {
            const context = await axeContext(browser, colorScheme);
            const page = await context.newPage();
            for (const path of pages) {
              await page.goto(`${server.registryUrl}${path}`);
              await page.locator("h1").first().waitFor();
              assertEquals(
                await seriousAxeHits(page, { headingOne: true }),
                [],
                `${path} (${colorScheme})`,
              );
            }
            await context.close();
          }
        },
      );

      await t.step(
        "a page link kept while bots were added says where its last page is",
        async () => {
          // Page 2 of the capability's 4 bots, two a page: its link, as someone kept it.
          const { page, context } = await openPage(browser);
          await page.goto(`${server.registryUrl}/?capability=ssr&limit=2`);
          await waitForResults(page, ["ssr-bot-1", "ssr-bot-2"]);
          await page.getByRole("link", { name: "Next page" }).click();
          await waitForResults(page, ["ssr-bot-3", "ssr-ops"]);
          const kept = page.url();
          // Two bots that sort before the cursor: the kept page is now the third of three.
          for (const id of ["ssr-aaa-1", "ssr-aaa-2"]) {
            const s = await signer("main", id);
            await api.createBot({
              bot_id: id,
              keys: [publicKeyOf(s, "main")],
              capabilities: ["ssr"],
            }, [s]);
          }
          await page.goto(kept);
          await waitForResults(page, ["ssr-bot-3", "ssr-ops"]);
          await page.locator("#results-range", { hasText: "of 6" }).waitFor();
          assertEquals(await page.locator("#results-range").innerText(), "Page 3 of 3 · 5–6 of 6");
          await context.close();
        },
      );
    } finally {
      await browser.close();
    }
  },
);
