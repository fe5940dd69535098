/**
 * The repository browser in real headless Chromium: tree → blob → history → commit and back with
 * the keyboard-reachable links, line ranges (`#L2-L4`, shift-click), copy buttons, hostile pages
 * that run nothing (no dialog, no CSP violation), no sideways scroll at 375 px outside code blocks,
 * and axe-core with no serious or critical hit, light and dark. (And code search from the header.)
 */
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { createRepo, signedIn } from "../../../testing/accounts.ts";
import { serverTest } from "../../helpers/server.ts";
import { gitSshEnv } from "../../helpers/ssh.ts";
import {
  axeContext,
  launchBrowser,
  openPage,
  screenshot,
  seriousAxeHits,
  sidewaysScroll,
} from "../../helpers/browser.ts";
import {
  commitManyFiles,
  git,
  HOSTILE_BRANCH,
  HOSTILE_NAMES,
  hostileWork,
  pushSite,
} from "../../helpers/browse.ts";

/** A file two 200-character names deep: long unbroken names in the path, the title and the crumbs. */
const LONG_PATH = `${"d".repeat(200)}/${"f".repeat(200)}.txt`;

serverTest("repository browser in Chromium", {}, async (server, t) => {
  const home = await Deno.makeTempDir({ prefix: "signet-browse-ui-" });
  const { user, token } = await signedIn(server, "alice");
  await createRepo(server, token, "site");
  await createRepo(server, token, "empty");
  await createRepo(server, token, "h");
  const U = server.httpUrl;
  const site = await pushSite(
    home,
    `http://alice:${token}@127.0.0.1:${server.httpPort}/alice/site.git`,
    {
      env: gitSshEnv(server.sshPort, user.key, home),
      remote: `ssh://git@127.0.0.1:${server.sshPort}/alice/site.git`,
    },
  );
  const w = await hostileWork(
    home,
    { "long.ts": `export const line = "${"x".repeat(2000)}";\n`, [LONG_PATH]: "long path\n" },
    `Hostile <script>alert(1)</script> ${"very-long-word".repeat(30)}`,
  );
  await commitManyFiles(w, "many", 2000, "Many files");
  await git(w, "branch", HOSTILE_BRANCH);
  await git(
    w,
    "push",
    "-q",
    `http://alice:${token}@127.0.0.1:${server.httpPort}/alice/h.git`,
    "main",
    HOSTILE_BRANCH,
  );
  const hostileRef = HOSTILE_BRANCH.split("/").map(encodeURIComponent).join("/");

  const browser = await launchBrowser();
  try {
    await t.step("tree → blob → history → commit → back, by links", async () => {
      const { page, problems } = await openPage(browser);
      await page.goto(`${U}/alice/site`);
      await page.getByRole("heading", { name: "Site", exact: true }).waitFor();
      // Each entry's last commit comes in after the page is shown, as a link to the commit.
      await page.locator('li[data-name="src"] a.entry-commit')
        .filter({ hasText: "Greet more warmly" }).waitFor();
      await page.getByRole("link", { name: "src/" }).click();
      await page.waitForURL(`${U}/alice/site/tree/main/src`);
      await page.getByRole("link", { name: "main.ts" }).click();
      await page.waitForURL(`${U}/alice/site/blob/main/src/main.ts`);
      await page.locator("#L3").getByText("hello there").waitFor();
      await page.getByRole("link", { name: "History" }).click();
      await page.waitForURL(`${U}/alice/site/commits/main/src/main.ts`);
      await page.getByRole("link", { name: "Greet more warmly" }).click();
      await page.waitForURL(`${U}/alice/site/commit/${site.second}`);
      const added = page.locator(".diff .da").filter({ hasText: "hello there" });
      await added.waitFor();
      await screenshot(page, "browse-commit-desktop");
      // A diff line's number links to the line, which the page then marks.
      const line = await added.getAttribute("id");
      assertEquals(/^diff-\d+-R\d+$/.test(line ?? ""), true, String(line));
      await added.locator("a[data-o]").click();
      await page.waitForURL(`${U}/alice/site/commit/${site.second}#${line}`);
      assertEquals(await page.evaluate(() => document.querySelector(":target")?.id), line);
      await page.goBack();
      await page.waitForURL(`${U}/alice/site/commit/${site.second}`);
      await page.goBack();
      await page.waitForURL(`${U}/alice/site/commits/main/src/main.ts`);
      await page.goBack();
      await page.waitForURL(`${U}/alice/site/blob/main/src/main.ts`);
      await page.goBack();
      await page.waitForURL(`${U}/alice/site/tree/main/src`);
      await page.getByRole("link", { name: "feature.ts" }).waitFor({ state: "detached" });
      // The ref selector (a <details> menu) switches to the branch with a slash in its name.
      await page.locator(".ref-select summary").click();
      await page.getByRole("link", { name: "feature/x" }).click();
      await page.waitForURL(`${U}/alice/site/tree/feature/x/src`);
      await page.getByRole("link", { name: "feature.ts" }).waitFor();
      assertEquals(problems, []);
      await page.context().close();
    });

    await t.step("hostile names get their last commits too, as text", async () => {
      const { page, problems } = await openPage(browser);
      await page.goto(`${U}/alice/h/tree/main/names`);
      const entries = page.locator("li[data-name]");
      await page.locator("a.entry-commit").nth((await entries.count()) - 1).waitFor();
      assertEquals(await page.locator("a.entry-commit").count(), await entries.count());
      assertEquals(problems, []);
      await page.context().close();
    });

    await t.step("the header's search box finds a line, which links to it", async () => {
      const { page, problems } = await openPage(browser);
      await page.goto(`${U}/alice/site/tree/main/src`);
      const box = page.getByRole("searchbox", { name: "Search the files of site" });
      await box.fill("hello there");
      await box.press("Enter");
      await page.waitForURL(`${U}/alice/site/search?q=hello+there`);
      await page.locator("mark").filter({ hasText: "hello there" }).waitFor();
      await screenshot(page, "browse-search-desktop");
      await page.getByRole("link", { name: "Line 3" }).click();
      await page.waitForURL(`${U}/alice/site/blob/main/src/main.ts#L3`);
      await page.locator("tr.hl#L3").waitFor();
      assertEquals(problems, []);
      await page.context().close();
    });

    await t.step("line ranges: #L2-L4 marks three lines; shift-click extends one", async () => {
      const { page, problems } = await openPage(browser);
      await page.goto(`${U}/alice/site/blob/main/src/main.ts#L2-L4`);
      await page.locator("tr.hl").nth(2).waitFor();
      assertEquals(await page.locator("tr.hl").evaluateAll((rows) => rows.map((r) => r.id)), [
        "L2",
        "L3",
        "L4",
      ]);
      await page.locator("#L1 td.ln a").click();
      await page.waitForURL(/#L1$/);
      await page.locator("#L5 td.ln a").click({ modifiers: ["Shift"] });
      await page.waitForURL(/#L1-L5$/);
      assertEquals(await page.locator("tr.hl").count(), 5);
      await screenshot(page, "browse-blob-range-desktop");
      assertEquals(problems, []);
      await page.context().close();
    });

    await t.step(
      "an SVG is drawn as an image, its script never runs, and opened it is text",
      async () => {
        const { page, problems } = await openPage(browser);
        let dialogs = 0;
        page.on("dialog", (d) => {
          dialogs++;
          d.dismiss();
        });
        await page.goto(`${U}/alice/site/blob/main/icon.svg`);
        const drawn = await page.waitForFunction(() => {
          const img = document.querySelector<HTMLImageElement>("img.preview-image");
          return img?.complete ? img.naturalWidth : null;
        });
        assert(Number(await drawn.jsonValue()) > 0, "the SVG was not drawn");
        const opened = await page.goto(`${U}/alice/site/raw/main/icon.svg`);
        assertEquals(opened?.headers()["content-type"], "text/plain; charset=utf-8");
        assertEquals(dialogs, 0);
        assertEquals(problems, []);
        await page.context().close();
      },
    );

    await t.step("copy buttons appear with the script and copy the clone URL", async () => {
      const context = await browser.newContext({
        permissions: ["clipboard-read", "clipboard-write"],
      });
      const page = await context.newPage();
      await page.goto(`${U}/alice/site`);
      const button = page.getByRole("button", { name: "Copy HTTP" });
      await button.click();
      await page.getByRole("button", { name: "Copy HTTP" }).filter({ hasText: "Copied" }).waitFor();
      assertEquals(
        await page.evaluate(() => navigator.clipboard.readText()),
        `${U}/alice/site.git`,
      );
      await page.goto(`${U}/alice/empty`);
      await page.getByRole("button", { name: "Copy the SSH push commands" }).waitFor();
      await context.close();
    });

    const pages: [string, string][] = [
      ["explore", "/explore"],
      ["owner", "/alice"],
      ["home", "/alice/site"],
      ["empty", "/alice/empty"],
      ["tree", "/alice/site/tree/main/src"],
      ["blob", "/alice/site/blob/main/src/main.ts"],
      ["markdown", "/alice/site/blob/main/docs/guide.md"],
      ["blame", "/alice/site/blame/main/src/main.ts"],
      ["history", "/alice/site/commits/main"],
      ["commit", `/alice/site/commit/${site.second}`],
      ["branches", "/alice/site/branches"],
      ["tags", "/alice/site/tags"],
      ["hostile home", "/alice/h"],
      ["hostile names", "/alice/h/tree/main/names"],
      ["hostile branch", `/alice/h/tree/${hostileRef}`],
      ["hostile history", "/alice/h/commits/main"],
      ["long line", "/alice/h/blob/main/long.ts"],
      ["long line's blame", "/alice/h/blame/main/long.ts"],
      ["long directory name", `/alice/h/tree/main/${LONG_PATH.split("/")[0]}`],
      ["long file name", `/alice/h/blob/main/${LONG_PATH}`],
      ["many files", "/alice/h/tree/main/many"],
      ["bidi file", `/alice/h/blob/main/names/${encodeURIComponent(HOSTILE_NAMES[2])}`],
      ["missing", "/alice/site/tree/main/nope"],
      ["compare", "/alice/site/compare/main...feature/x"],
      ["hostile compare", `/alice/h/compare/main...${hostileRef}`],
      ["search", "/alice/site/search?q=hello"],
      ["search, long line", `/alice/h/search?q=${"x".repeat(200)}`],
      ["search, hostile files", "/alice/h/search?q=alert"],
      ["search, bad query", `/alice/site/search?q=${"x".repeat(300)}`],
      [
        "search, a pattern",
        `/alice/site/search?q=${encodeURIComponent("h(e|a)llo")}&regex=1&case=1`,
      ],
    ];

    await t.step(
      "hostile pages run nothing: no dialog, no console error, no CSP violation",
      async () => {
        const { page, problems } = await openPage(browser);
        const dialogs: string[] = [];
        page.on("dialog", (d) => {
          dialogs.push(d.message());
          d.dismiss().catch(() => {});
        });
        for (const [name, path] of pages) {
          const res = await page.goto(`${U}${path}`);
          const status = name === "missing" ? 404 : name === "search, bad query" ? 400 : 200;
          assertEquals(res?.status(), status, name);
          await page.locator("h1").first().waitFor();
        }
        await page.goto(`${U}/alice/h/raw/main/${encodeURIComponent(HOSTILE_NAMES[1])}`);
        assertEquals(dialogs, []);
        assertEquals(
          problems.filter((p) => !p.includes("status of 404") && !p.includes("status of 400")),
          [],
        );
        await page.context().close();
      },
    );

    await t.step("375 px: no sideways scroll outside code blocks", async () => {
      const { page } = await openPage(browser, { width: 375, height: 800 });
      for (const [name, path] of pages) {
        await page.goto(`${U}${path}`);
        assertEquals(await sidewaysScroll(page), 0, `${name} scrolls sideways at 375 px`);
        if (["home", "commit", "long line", "markdown"].includes(name)) {
          await screenshot(page, `browse-${name.replace(" ", "-")}-phone`);
        }
      }
      // The tab row scrolls sideways here: the current tab starts in sight, past the fade.
      await page.goto(`${U}/alice/site/tags`);
      const tabs = await page.locator(".repo-tabs").evaluate((row) => {
        const current = row.querySelector('[aria-current="page"]')!.getBoundingClientRect();
        const box = row.getBoundingClientRect();
        return {
          scrolls: row.scrollWidth > row.clientWidth,
          // Within a pixel: the boxes are laid out in fractions of one.
          inSight: current.left >= box.left - 1 && current.right <= box.right + 1,
          scrolled: row.scrollLeft > 0,
          mask: getComputedStyle(row).maskImage,
        };
      });
      assert(tabs.scrolls, "the tab row fits at 375 px: this check checks nothing");
      assert(tabs.inSight, `the current tab is out of sight: ${JSON.stringify(tabs)}`);
      assert(tabs.scrolled, "the row was not scrolled to the current tab");
      assertStringIncludes(tabs.mask, "linear-gradient");
      // The long line scrolls inside its code block.
      await page.goto(`${U}/alice/h/blob/main/long.ts`);
      const inner = await page.locator(".code-view").evaluate((el) =>
        el.scrollWidth - el.clientWidth
      );
      assert(inner > 1000, `the code block scrolls ${inner} px`);
      await page.context().close();
    });

    await t.step("axe-core: no serious or critical hit, light and dark", async () => {
      for (const scheme of ["light", "dark"] as const) {
        const context = await axeContext(browser, scheme);
        const page = await context.newPage();
        for (const [name, path] of pages) {
          await page.goto(`${U}${path}`);
          assertEquals(await seriousAxeHits(page), [], `axe on ${name} (${scheme})`);
        }
        await context.close();
      }
    });
  } finally {
    await browser.close();
    await Deno.remove(home, { recursive: true });
  }
});
