/**
 * The registry browser's sort and the bot page's "Load more" (issue 27), in Chromium, with
 * JavaScript off and on: the sort is a select in the search form (a GET form without script), kept
 * in the URL through paging, reload, back/forward and a deep link, a bad value corrected with a
 * note; "Load more" is a link the server renders (one page more in the URL), followed in place with
 * script; axe-core finds nothing serious on the new states; nothing scrolls sideways on a phone.
 */
import { publicKeyOf, RegistryClient } from "../../../client/registry.ts";
import { assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import {
  apiRequests,
  axeContext,
  launchBrowser,
  openPage,
  seriousAxeHits,
  sidewaysScroll,
} from "../../helpers/browser.ts";
import { serverTest } from "../../helpers/server.ts";
import { signer, waitForResults } from "../../helpers/registry_ui.ts";
import type { Page } from "playwright-core";

/** The ids of `selector`'s items, in order. */
function ids(page: Page, selector: string): Promise<string[]> {
  return page.locator(selector).evaluateAll((els) =>
    els.map((e) => e.querySelector("a")?.textContent ?? "")
  );
}

/** Waits until `selector` matches `n` elements. */
async function waitForCount(page: Page, selector: string, n: number): Promise<void> {
  await page.waitForFunction(
    ([s, count]) => document.querySelectorAll(s as string).length === count,
    [selector, n] as const,
  );
}

const CONTROLS = "#controls-list li";
const ISSUED = "#attestations-issued li";
const LOG = "#log-timeline .timeline-item";

serverTest(
  "registry browser: sort in the URL; Load more with and without JavaScript",
  {},
  async (server, t) => {
    const base = server.registryUrl;
    const api = new RegistryClient(base);
    // Five bots to sort: names in another order than ids (one without a name), created in id order,
    // t-2 changed last.
    const team: [string, string | undefined][] = [
      ["t-1", "Echo"],
      ["t-2", "alpha"],
      ["t-3", undefined],
      ["t-4", "Delta"],
      ["t-5", "bravo"],
    ];
    const teamSigners = new Map<string, Awaited<ReturnType<typeof signer>>>();
    for (const [id, name] of team) {
      const s = await signer("main", id);
      teamSigners.set(id, s);
      await api.createBot(
        {
          bot_id: id,
          ...(name ? { name } : {}),
          keys: [publicKeyOf(s, "main")],
          capabilities: ["team"],
        },
        [s],
      );
    }
    await api.updateBot("t-2", { description: "changed last" }, [teamSigners.get("t-2")!]);
    // A hub with long lists: 45 bots it controls, 45 attestations it issued, 22 log entries.
    const hub = await signer("main", "hub");
    await api.createBot({ bot_id: "hub", name: "Hub", keys: [publicKeyOf(hub, "main")] }, [hub]);
    for (let n = 0; n < 45; n++) {
      const id = `m-${String(n).padStart(2, "0")}`;
      const s = await signer("main", id);
      await api.createBot({
        bot_id: id,
        keys: [publicKeyOf(s, "main")],
        controllers: [{ bot_id: "hub", label: "hub" }],
      }, [s]);
      await api.attest({ issuer: "hub", subject: id, claim: `checked ${id}` }, hub);
    }
    for (let n = 0; n < 21; n++) {
      await api.updateBot("hub", { description: `change ${n}` }, [hub]);
    }
    const controlled = await (await fetch(`${base}/v1/bots/hub/controlled`)).json();
    const from = controlled.next_cursor as string;
    const m = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, i) => `m-${String(from + i).padStart(2, "0")}`);

    const browser = await launchBrowser();
    try {
      await t.step(
        "sort without JavaScript: the form's select, paging, reload, a bad value",
        async () => {
          const context = await browser.newContext({ javaScriptEnabled: false });
          const page = await context.newPage();
          await page.goto(`${base}/?capability=team&limit=2`);
          await waitForResults(page, ["t-1", "t-2"]);
          await page.getByLabel("Sort").selectOption("name");
          await page.getByRole("button", { name: "Search" }).click();
          await page.waitForURL(/sort=name/);
          await waitForResults(page, ["t-2", "t-5"]);
          await page.getByRole("link", { name: "Next page" }).click();
          await waitForResults(page, ["t-4", "t-1"]);
          await page.getByRole("link", { name: "Next page" }).click();
          await waitForResults(page, ["t-3"]);
          await page.getByRole("link", { name: "Previous" }).click();
          await waitForResults(page, ["t-4", "t-1"]);
          await page.reload();
          await waitForResults(page, ["t-4", "t-1"]);
          assertEquals(await page.getByLabel("Sort").inputValue(), "name");
          assertEquals(await page.locator("#results-range").innerText(), "Page 2 of 3 · 3–4 of 5");
          // The facets keep the order.
          await page.getByRole("navigation", { name: "Refine results" })
            .getByRole("link", { name: /^Active/ }).click();
          await page.waitForURL(/status=active/);
          assertStringIncludes(page.url(), "sort=name");
          await waitForResults(page, ["t-2", "t-5"]);
          await page.goto(`${base}/?capability=team&sort=bogus`);
          await page.getByText("Unknown order “bogus”: showing bots by id.").waitFor();
          await waitForResults(page, ["t-1", "t-2", "t-3", "t-4", "t-5"]);
          assertEquals(await page.getByLabel("Sort").inputValue(), "");
          await context.close();
        },
      );

      await t.step(
        "sort with JavaScript: in place, back/forward, reload, a deep link",
        async () => {
          const { page, context, problems } = await openPage(browser);
          await page.goto(`${base}/?capability=team&limit=2`);
          await waitForResults(page, ["t-1", "t-2"]);
          await page.evaluate(() => (globalThis as unknown as { marker: number }).marker = 1);
          await page.getByLabel("Sort").selectOption("-created");
          await page.getByRole("button", { name: "Search" }).click();
          await page.waitForURL(/sort=-created/);
          await waitForResults(page, ["t-5", "t-4"]);
          await page.getByRole("link", { name: "Next page" }).click();
          await waitForResults(page, ["t-3", "t-2"]);
          await page.goBack();
          await waitForResults(page, ["t-5", "t-4"]);
          await page.goForward();
          await waitForResults(page, ["t-3", "t-2"]);
          assertEquals(
            await page.evaluate(() => (globalThis as unknown as { marker: number }).marker),
            1,
            "no full page load",
          );
          await page.reload();
          await waitForResults(page, ["t-3", "t-2"]);
          const deep = page.url();
          const shared = await context.newPage();
          await shared.goto(deep);
          await waitForResults(shared, ["t-3", "t-2"]);
          await shared.getByRole("link", { name: "Previous" }).click();
          await waitForResults(shared, ["t-5", "t-4"]);
          await shared.close();
          await page.getByLabel("Sort").selectOption("-updated");
          await page.getByRole("button", { name: "Search" }).click();
          await waitForResults(page, ["t-2", "t-5"]);
          // A link whose cursor belongs to another order: a note and a way to the first page.
          await page.goto(deep.replace("sort=-created", "sort=name"));
          await page.getByText("cursor belongs to another sort than name").waitFor();
          await page.getByRole("link", { name: "Go to the first page" }).click();
          await waitForResults(page, ["t-2", "t-5"]);
          assertStringIncludes(page.url(), "sort=name");
          await context.close();
          assertEquals(problems, []);
        },
      );

      await t.step("Load more without JavaScript: links the server renders", async () => {
        const context = await browser.newContext({ javaScriptEnabled: false });
        const page = await context.newPage();
        await page.goto(`${base}/bots/hub`);
        assertEquals(await ids(page, CONTROLS), m(0, 20));
        const more = page.locator("#controls").getByRole("link", { name: "Load more" });
        await more.click();
        await page.waitForURL(/controls_pages=2#controls-p2$/);
        assertEquals(await ids(page, CONTROLS), m(0, 40));
        assertEquals(await page.locator("#controls-p2 a").innerText(), "m-20");
        await more.click();
        await page.waitForURL(/controls_pages=3/);
        assertEquals(await ids(page, CONTROLS), m(0, 45));
        assertEquals(await more.count(), 0, "no more after the last");
        // The other lists, their state beside this one's.
        const issued = page.locator("#attestations-issued").locator("xpath=..");
        assertEquals(await page.locator(ISSUED).count(), 20);
        await issued.getByRole("link", { name: "Load more" }).click();
        await page.waitForURL(/issued_pages=2/);
        assertEquals(await page.locator(ISSUED).count(), 40);
        assertEquals(await page.locator(LOG).count(), 20);
        await page.locator("#log").getByRole("link", { name: "Load more entries" }).click();
        await page.waitForURL(/log_pages=2/);
        assertEquals(await page.locator(LOG).count(), 22);
        assertStringIncludes(page.url(), "controls_pages=3");
        assertStringIncludes(page.url(), "issued_pages=2");
        await page.reload();
        assertEquals(
          [await page.locator(CONTROLS).count(), await page.locator(ISSUED).count()],
          [45, 40],
        );
        await page.goBack();
        assertEquals(await page.locator(LOG).count(), 20);
        assertEquals(await page.locator(ISSUED).count(), 40);
        // A view from a later cursor: its pages, then the start again.
        await page.goto(`${base}/bots/hub?controls_from=${from}`);
        assertEquals(await ids(page, CONTROLS), m(20, 40));
        await page.locator("#controls").getByText("Showing a later part of this list.").waitFor();
        await more.click();
        await page.waitForURL(/controls_pages=2/);
        assertEquals(await ids(page, CONTROLS), m(20, 45));
        await page.locator("#controls").getByRole("link", { name: "Show from the start" }).click();
        await page.waitForURL((u) => !u.search.includes("controls_"));
        assertEquals(await ids(page, CONTROLS), m(0, 20));
        // A damaged cursor: that list says so; the page and the other lists are there.
        const res = await page.goto(`${base}/bots/hub?log_from=junk`);
        assertEquals(res?.status(), 200);
        await page.locator("#log").getByText("Could not load the log").waitFor();
        assertEquals(await page.locator(CONTROLS).count(), 20);
        // Out-of-range page counts are clamped, never a failure.
        await page.goto(`${base}/bots/hub?controls_pages=99999&issued_pages=x`);
        assertEquals([await page.locator(CONTROLS).count(), await page.locator(ISSUED).count()], [
          45,
          20,
        ]);
        await context.close();
      });

      await t.step(
        "Load more with JavaScript: in place, the URL follows, a reload keeps it",
        async () => {
          const { page, context, problems } = await openPage(browser);
          const calls = apiRequests(page);
          await page.goto(`${base}/bots/hub?controls_pages=2`);
          await waitForCount(page, CONTROLS, 40);
          await page.waitForLoadState("networkidle");
          assertEquals(calls, [], "the server embedded both pages");
          await page.evaluate(() => (globalThis as unknown as { marker: number }).marker = 1);
          const entries = await page.evaluate(() => history.length);
          await page.locator("#controls").getByRole("link", { name: "Load more" }).click();
          await waitForCount(page, CONTROLS, 45);
          await page.waitForURL(/controls_pages=3#controls-p3$/);
          await page.locator("#log").getByRole("link", { name: "Load more entries" }).click();
          await waitForCount(page, LOG, 22);
          await page.waitForURL(/log_pages=2/);
          assertStringIncludes(page.url(), "controls_pages=3");
          assertEquals(calls, ["/v1/bots/hub/controlled", "/v1/bots/hub/log"]);
          assertEquals(
            await page.evaluate(() => (globalThis as unknown as { marker: number }).marker),
            1,
            "no full page load",
          );
          assertEquals(await page.evaluate(() => history.length), entries, "the URL is replaced");
          calls.length = 0;
          await page.reload();
          await waitForCount(page, CONTROLS, 45);
          await waitForCount(page, LOG, 22);
          await page.waitForLoadState("networkidle");
          assertEquals(calls, []);
          // A later view, then back to the start, in place.
          await page.goto(`${base}/bots/hub?controls_from=${from}`);
          await waitForCount(page, CONTROLS, 20);
          await page.locator("#controls").getByRole("link", { name: "Show from the start" })
            .click();
          await page.waitForURL((u) => !u.search.includes("controls_"));
          await page.locator("#controls-list a", { hasText: "m-00" }).waitFor();
          assertEquals(await ids(page, CONTROLS), m(0, 20));
          await context.close();
          assertEquals(problems, []);
        },
      );

      await t.step("axe-core and a phone's width: the new states", async () => {
        const pages = [
          "/?capability=team&sort=-created&limit=2",
          "/?capability=team&sort=bogus",
          "/bots/hub?controls_pages=2&issued_pages=2&log_pages=2",
          `/bots/hub?controls_from=${from}`,
          "/bots/hub?log_from=junk",
        ];
        for (const colorScheme of ["light", "dark"] as const) {
          const context = await axeContext(browser, colorScheme);
          const page = await context.newPage();
          for (const path of pages) {
            await page.goto(`${base}${path}`);
            await page.locator("h1").first().waitFor();
            assertEquals(
              await seriousAxeHits(page, { headingOne: true }),
              [],
              `${path} (${colorScheme})`,
            );
          }
          await context.close();
        }
        const { page, context } = await openPage(browser, { width: 375, height: 800 });
        for (const path of pages) {
          await page.goto(`${base}${path}`);
          await page.locator("h1").first().waitFor();
          assertEquals(await sidewaysScroll(page), 0, path);
        }
        await context.close();
      });
    } finally {
      await browser.close();
    }
  },
);
