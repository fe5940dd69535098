/**
 * The repository browser's pages in real headless Chromium, where a stylesheet's rule or the
 * page script's work can only be seen: the filter and search forms are one line high at a
 * desktop's and a phone's width; a README's table of contents leads to its headings, and so does
 * a heading's address as GitHub writes it, while a heading never takes the page's own ids; a
 * table's columns are aligned as the Markdown says, with no inline style for the CSP to refuse;
 * the ref selector keeps its label and cuts a long name at its end, and its menu closes with
 * Escape or a click outside.
 */
import { assert, assertEquals } from "../../helpers/assert.ts";
import { createRepo, signedIn } from "../../../testing/accounts.ts";
import { serverTest } from "../../helpers/server.ts";
import { launchBrowser, openPage, VIEWPORTS } from "../../helpers/browser.ts";
import type { Page } from "playwright-core";
import { commitFiles, git, newWork } from "../../helpers/browse.ts";

/** A branch name far wider than the ref selector. */
const LONG_BRANCH = `feature/${"very-long-branch-name-".repeat(6)}end`;

/** A README longer than a screen: a table of contents, then its sections. */
const README = [
  "# Site",
  "",
  "| Left | Centre | Right |",
  "|:-----|:------:|------:|",
  "| a | b | c |",
  "",
  "- [Install](#install)",
  "- [Use it](#use-it)",
  "",
  ...Array.from({ length: 80 }, (_, i) => `Paragraph ${i}.\n`),
  "## Install",
  "",
  ...Array.from({ length: 80 }, (_, i) => `More ${i}.\n`),
  "## Use it",
  "",
  "## Main",
  "",
  ...Array.from({ length: 80 }, (_, i) => `Last ${i}.\n`),
].join("\n");

/** Whether the element `selector` is in the page's viewport. */
function inView(page: Page, selector: string): Promise<boolean> {
  return page.locator(selector).evaluate((el) => {
    const box = el.getBoundingClientRect();
    // Within a pixel: boxes are laid out in fractions of one.
    return box.top >= -1 && box.top < innerHeight;
  });
}

serverTest("repository browser layout in Chromium", {}, async (server, t) => {
  const home = await Deno.makeTempDir({ prefix: "signet-browse-layout-" });
  const { token } = await signedIn(server, "alice");
  await createRepo(server, token, "site");
  // A name that, beside its date, does not fit a phone's line.
  await createRepo(server, token, "notes-and-projects");
  const U = server.httpUrl;
  const work = await newWork(home, "site");
  await commitFiles(work, { "README.md": README, "src/a.ts": "export const a = 1;\n" }, "One");
  await git(work, "branch", LONG_BRANCH);
  await git(
    work,
    "push",
    "-q",
    `http://alice:${token}@127.0.0.1:${server.httpPort}/alice/site.git`,
    "main",
    LONG_BRANCH,
  );
  // Pushed: its line then holds a date ("pushed …") as well as the name.
  await git(
    work,
    "push",
    "-q",
    `http://alice:${token}@127.0.0.1:${server.httpPort}/alice/notes-and-projects.git`,
    "main",
  );

  const browser = await launchBrowser();
  try {
    await t.step("the filter and search forms are one line high, desktop and phone", async () => {
      for (const viewport of [VIEWPORTS.desktop, VIEWPORTS.phone]) {
        const { page, problems } = await openPage(browser, viewport);
        for (const path of ["/explore", "/alice", "/alice/site/search?q=a"]) {
          await page.goto(`${U}${path}`);
          const form = await page.locator("form.search-form").boundingBox();
          const input = await page.locator("form.search-form input[type=search]").boundingBox();
          assert(form && input, `no search form on ${path}`);
          // A text box's own height (it was stretched with the form to 320 px).
          assert(
            input.height <= 48,
            `${path} at ${viewport.width} px: box ${input.height} px high`,
          );
          // One row (the search page's options may wrap under the box on a phone: two at most).
          const rows = path.includes("/search") && viewport === VIEWPORTS.phone ? 3 : 1;
          assert(
            form.height <= input.height * rows + 8 * (rows - 1) + 1,
            `${path} at ${viewport.width} px: the form is ${form.height} px high`,
          );
          assert(input.width >= 200, `${path} at ${viewport.width} px: box ${input.width} px`);
        }
        assert(problems.length === 0, problems.join("\n"));
        await page.context().close();
      }
    });

    await t.step(
      "on a phone, a repository's name is not broken mid-word beside its date",
      async () => {
        const { page, problems } = await openPage(browser, VIEWPORTS.phone);
        for (const path of ["/explore", "/alice"]) {
          await page.goto(`${U}${path}`);
          const link = page.locator(".repo-list a.name", { hasText: "notes-and-projects" });
          const lines = await link.evaluate((a) =>
            Math.round(
              a.getBoundingClientRect().height / parseFloat(getComputedStyle(a).lineHeight),
            )
          );
          assert(lines === 1, `${path}: the name takes ${lines} lines`);
        }
        assert(problems.length === 0, problems.join("\n"));
        await page.context().close();
      },
    );

    await t.step(
      "a README's table of contents and GitHub's heading addresses lead to the headings",
      async () => {
        const { page, problems } = await openPage(browser);
        await page.goto(`${U}/alice/site`);
        await page.getByRole("link", { name: "Use it" }).click();
        await page.waitForURL(`${U}/alice/site#user-content-use-it`);
        assert(await inView(page, "#user-content-use-it"), "the heading is out of sight");
        // The address GitHub gives a heading (no prefix), on the file's own page.
        await page.goto(`${U}/alice/site/blob/main/README.md#install`);
        await page.waitForFunction(() => scrollY > 0);
        assert(await inView(page, "#user-content-install"), "#install is out of sight");
        // A heading named like an id of the page leaves that id alone.
        assertEquals(await page.locator("#main").evaluate((el) => el.tagName), "MAIN");
        assertEquals(problems, []);
        await page.context().close();
      },
    );

    await t.step("a README table's columns are aligned, with no CSP violation", async () => {
      const { page, problems } = await openPage(browser);
      await page.goto(`${U}/alice/site`);
      const aligns = await page.locator(".markdown table tbody td").evaluateAll((cells) =>
        cells.map((c) => getComputedStyle(c).textAlign)
      );
      assertEquals(aligns, ["left", "center", "right"]);
      assertEquals(problems, []);
      await page.context().close();
    });

    await t.step(
      "the ref selector: a long name cut at its end, the label kept; Escape and a click outside close it",
      async () => {
        const { page, problems } = await openPage(browser, VIEWPORTS.phone);
        await page.goto(`${U}/alice/site/tree/${LONG_BRANCH}`);
        const summary = page.locator(".ref-select > summary");
        const shown = await summary.evaluate((el) => {
          const box = el.getBoundingClientRect();
          const kind = el.querySelector(".ref-kind")!.getBoundingClientRect();
          const name = el.querySelector<HTMLElement>(".ref-name")!;
          const nameBox = name.getBoundingClientRect();
          return {
            kindInside: kind.left >= box.left && kind.right <= box.right && kind.width > 0,
            nameStartsInside: nameBox.left >= kind.right && nameBox.right <= box.right + 0.5,
            cut: name.scrollWidth > name.clientWidth,
            ellipsis: getComputedStyle(name).textOverflow,
          };
        });
        assertEquals(shown, {
          kindInside: true,
          nameStartsInside: true,
          cut: true,
          ellipsis: "ellipsis",
        });
        const isOpen = () =>
          page.locator(".ref-select").evaluate((d) => (d as HTMLDetailsElement).open);
        await summary.click();
        assert(await isOpen(), "the menu did not open");
        await page.keyboard.press("Escape");
        assertEquals(await isOpen(), false, "Escape left the menu open");
        await summary.click();
        assert(await isOpen(), "the menu did not open again");
        await page.locator("body").click({ position: { x: 2, y: 200 } });
        assertEquals(await isOpen(), false, "a click outside left the menu open");
        assertEquals(problems, []);
        await page.context().close();
      },
    );
  } finally {
    await browser.close();
    await Deno.remove(home, { recursive: true });
  }
});
