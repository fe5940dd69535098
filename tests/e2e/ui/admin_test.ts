/** Admin dashboard in real headless Chromium against the real server. */
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { createRepo, login, makeKey, postJson } from "../../../testing/accounts.ts";
import { launchBrowser, openPage, screenshot, VIEWPORTS } from "../../helpers/browser.ts";
import { gitEnv, runOk } from "../../../testing/run.ts";
import { serverTest } from "../../helpers/server.ts";
import { commitFile } from "../../helpers/git.ts";
import { pollUntil } from "../../helpers/wait.ts";

serverTest(
  "admin dashboard: sign in, invites, users, repositories, delete",
  {},
  async (server, t) => {
    const browser = await launchBrowser();
    try {
      const { page, problems } = await openPage(browser, VIEWPORTS.desktop);
      const admin = { Authorization: `Bearer ${server.adminKey}` };

      await t.step("a wrong admin key is refused, the right one signs in", async () => {
        await page.goto(`${server.httpUrl}/admin`);
        await page.getByLabel("Admin key").fill("definitely-not-the-admin-key");
        await page.getByRole("button", { name: "Sign in" }).click();
        const alert = page.getByRole("alert");
        await alert.waitFor();
        assertStringIncludes(await alert.innerText(), "Wrong admin key");
        assertStringIncludes(await alert.innerText(), "a valid admin key is required");
        await screenshot(page, "admin-signin-wrong-key-desktop");

        // Keyboard only: replace the key and submit with Enter.
        await page.getByLabel("Admin key").fill(server.adminKey);
        await page.keyboard.press("Enter");
        await page.getByRole("heading", { name: "Invites", level: 1 }).waitFor();
        assertEquals(new URL(page.url()).pathname, "/admin/invites");
        assert(!page.url().includes(server.adminKey), "the admin key must never be in a URL");
        assertEquals(
          await page.evaluate(() => sessionStorage.getItem("signet.adminKey")),
          server.adminKey,
        );
        await page.getByText("No invites yet").waitFor();
        const registry = page.getByRole("link", { name: "Registry" });
        assertEquals(await registry.getAttribute("href"), `${server.registryUrl}/`);
      });

      let code = "";
      await t.step("mint an invite: code, signup commands, listed as unused", async () => {
        await page.getByRole("button", { name: "Create invite" }).click();
        const minted = page.locator(".minted");
        await minted.waitFor();
        code = (await minted.locator(".copy-field-value").first().innerText()).trim();
        assert(/^inv_[A-Za-z0-9_-]+$/.test(code), `unexpected invite code ${code}`);
        const text = await minted.innerText();
        assertStringIncludes(text, `ssh -p ${server.sshPort} git@127.0.0.1`);
        assertStringIncludes(text, `signet register --invite ${code}`);
        const row = page.locator(`#invites-table tr[data-code="${code}"]`);
        await row.waitFor();
        assertStringIncludes(await row.innerText(), "unused");
        await screenshot(page, "admin-invite-minted-desktop");
      });

      const key = await makeKey("alice");
      await t.step("using the invite through the API flips it to used by alice", async () => {
        const r = await postJson(`${server.httpUrl}/api/signup`, {
          username: "alice",
          public_key: key.publicLine,
          invite_code: code,
        });
        assertEquals(r.status, 201);
        await page.reload();
        const row = page.locator(`#invites-table tr[data-code="${code}"]`);
        await row.getByText("alice").waitFor();
        const cells = await row.locator("td").allInnerTexts();
        assertEquals(cells[1].trim(), "used");
        assertEquals(cells[2].trim(), "alice");
        await screenshot(page, "admin-invite-used-desktop");
      });

      await t.step("users list shows alice with the ssh-keygen fingerprint", async () => {
        await page.getByRole("link", { name: "Users" }).click();
        const row = page.locator(`#users-table tr[data-username="alice"]`);
        await row.waitFor();
        const keyFile = await Deno.makeTempFile();
        await Deno.writeTextFile(keyFile, key.publicLine + "\n");
        const lf = await runOk("ssh-keygen", ["-lf", keyFile]);
        const fp = lf.split(" ")[1];
        assert(fp.startsWith("SHA256:"));
        const text = await row.innerText();
        assertStringIncludes(text, fp);
        assertStringIncludes(text, "alice");
        await screenshot(page, "admin-users-desktop");
      });

      const user = { id: 0, username: "alice", key };
      const token = await login(server, user);
      await createRepo(server, token, "website");
      await createRepo(server, token, "notes");
      await t.step("a pushed repository shows its clone URL, size and push time", async () => {
        const home = await Deno.makeTempDir();
        const work = `${home}/website`;
        const env = gitEnv(home);
        await runOk("git", ["init", "-q", "-b", "main", work], { env });
        await commitFile(work, env, "index.html", "<h1>hello</h1>\n".repeat(200), "first");
        const remote = `http://alice:${token}@127.0.0.1:${server.httpPort}/alice/website.git`;
        await runOk("git", ["push", "-q", remote, "main"], { cwd: work, env });
        // The push's bookkeeping (its time, its size) follows the answer to git.
        const pushed = await pollUntil(
          async () => (await (await fetch(`${server.httpUrl}/api/repos/alice/website`)).json()),
          (body) => body.repo?.pushed_at != null,
        );
        assert(pushed.repo?.pushed_at != null, "the push's time was recorded");

        await page.getByRole("link", { name: "Repositories" }).click();
        const row = page.locator(`#repos-table tr[data-repo="alice/website"]`);
        await row.waitFor();
        const text = await row.innerText();
        assertStringIncludes(text, `${server.httpUrl}/alice/website.git`);
        assertStringIncludes(text, `ssh://git@127.0.0.1:${server.sshPort}/alice/website.git`);
        assert(!/never/.test(text), "a pushed repository has a last push time");
        // The name links to the repository's page in the browser.
        const link = row.locator("a.repo-full-name");
        assertEquals(await link.getAttribute("href"), "/alice/website");
        const unpushed = await page.locator(`#repos-table tr[data-repo="alice/notes"]`).innerText();
        assertStringIncludes(unpushed, "never");
        await screenshot(page, "admin-repos-desktop");
      });

      await t.step("the filter narrows the list by owner or name", async () => {
        await page.getByLabel("Filter repositories by owner or name").fill("web");
        await page.locator(`#repos-table tr[data-repo="alice/notes"]`).waitFor({
          state: "detached",
        });
        assertEquals(await page.locator("#repos-table tbody tr").count(), 1);
        assertStringIncludes(page.url(), "?q=web");
        await page.getByLabel("Filter repositories by owner or name").fill("");
        await page.locator(`#repos-table tr[data-repo="alice/notes"]`).waitFor();
      });

      await t.step("delete a repository after typing its name, with the keyboard", async () => {
        await page.getByRole("button", { name: "Delete alice/website" }).focus();
        await page.keyboard.press("Enter");
        const dialog = page.getByRole("dialog");
        await dialog.waitFor();
        const confirm = dialog.getByRole("button", { name: "Delete repository" });
        assert(await confirm.isDisabled(), "delete is disabled until the name is typed");
        await page.keyboard.type("alice/websit");
        assert(await confirm.isDisabled(), "a partial name does not enable delete");
        await screenshot(page, "admin-repo-delete-dialog-desktop");
        await page.keyboard.type("e");
        assert(await confirm.isEnabled(), "the exact name enables delete");
        await page.keyboard.press("Enter");
        await dialog.waitFor({ state: "detached" });
        await page.getByText("Deleted alice/website").waitFor();
        await page.locator(`#repos-table tr[data-repo="alice/website"]`).waitFor({
          state: "detached",
        });
        const res = await fetch(`${server.httpUrl}/api/admin/repos`, { headers: admin });
        const { repos } = await res.json() as { repos: { name: string }[] };
        assertEquals(repos.map((r) => r.name), ["notes"]);
        const gone = await Deno.stat(`${server.dataDir}/repos/alice/website.git`).catch(() => null);
        assertEquals(gone, null);
        await screenshot(page, "admin-repos-after-delete-desktop");
      });

      await t.step("sign out forgets the key", async () => {
        await page.getByRole("button", { name: "Sign out" }).click();
        await page.getByLabel("Admin key").waitFor();
        assertEquals(await page.evaluate(() => sessionStorage.getItem("signet.adminKey")), null);
      });

      await t.step("phone width: every page reflows", async () => {
        const phone = await openPage(browser, VIEWPORTS.phone);
        const p = phone.page;
        await p.goto(`${server.httpUrl}/admin/users`);
        await screenshot(p, "admin-signin-phone");
        await p.getByLabel("Admin key").fill(server.adminKey);
        await p.getByRole("button", { name: "Sign in" }).click();
        await p.locator(`#users-table tr[data-username="alice"]`).waitFor();
        await screenshot(p, "admin-users-phone");
        await p.getByRole("link", { name: "Invites" }).click();
        await p.getByRole("button", { name: "Create invite" }).click();
        await p.locator(".minted").waitFor();
        await screenshot(p, "admin-invites-phone");
        await p.getByRole("link", { name: "Repositories" }).click();
        await p.locator(`#repos-table tr[data-repo="alice/notes"]`).waitFor();
        await screenshot(p, "admin-repos-phone");
        const overflow = await p.evaluate(() =>
          document.documentElement.scrollWidth - document.documentElement.clientWidth
        );
        assertEquals(overflow, 0, "no horizontal scrolling at phone width");
        await p.getByRole("button", { name: "Delete alice/notes" }).click();
        await p.getByRole("dialog").waitFor();
        await screenshot(p, "admin-repo-delete-dialog-phone");
        await phone.context.close();
        assertEquals(phone.problems, []);
      });

      assertEquals(problems, [], "no console errors or CSP violations");
    } finally {
      await browser.close();
    }
  },
);
