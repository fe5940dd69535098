/**
 * How the repository browser's pages are laid out in real headless Chromium, where a stylesheet's
 * rule can only be seen: the filter and search forms are one line high at a desktop's and a
 * phone's width.
 */
import { assert } from "../../helpers/assert.ts";
import { createRepo, signedIn } from "../../../testing/accounts.ts";
import { serverTest } from "../../helpers/server.ts";
import { launchBrowser, openPage, VIEWPORTS } from "../../helpers/browser.ts";
import { commitFiles, git, newWork } from "../../helpers/browse.ts";

serverTest("repository browser layout in Chromium", {}, async (server, t) => {
  const home = await Deno.makeTempDir({ prefix: "signet-browse-layout-" });
  const { token } = await signedIn(server, "alice");
  await createRepo(server, token, "site");
  const U = server.httpUrl;
  const work = await newWork(home, "site");
  await commitFiles(work, { "README.md": "# Site\n", "src/a.ts": "export const a = 1;\n" }, "One");
  await git(
    work,
    "push",
    "-q",
    `http://alice:${token}@127.0.0.1:${server.httpPort}/alice/site.git`,
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
  } finally {
    await browser.close();
    await Deno.remove(home, { recursive: true });
  }
});
