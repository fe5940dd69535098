/**
 * The admin's paged repository list in real headless Chromium (issue 27): counts, next/previous
 * that survive a reload and a deep link, sorting, filtering, and no sideways scrolling of the page
 * with the longest repository name the server accepts.
 */
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { createRepo, makeKey, postJson, signedIn } from "../../../testing/accounts.ts";
import { launchBrowser, openPage, screenshot, VIEWPORTS } from "../../helpers/browser.ts";
import { serverTest } from "../../helpers/server.ts";
import type { Page } from "playwright-core";

const LONG = `a${"b".repeat(98)}z`; // 100 characters, the longest name accepted

serverTest("admin dashboard: paged repositories survive reload and deep links", {}, async (
  server,
  t,
) => {
  const { token } = await signedIn(server, "alice");
  const names = ["web-1", "web-2", "notes", "docs", "site", "tools", "api", "blog", "cli", "data"];
  for (const n of [...names, LONG]) await createRepo(server, token, n);
  const sorted = [...names, LONG].map((n) => `alice/${n}`).sort();
  const browser = await launchBrowser();
  try {
    const { page, problems } = await openPage(browser, VIEWPORTS.desktop);
    const range = () => page.locator(".pager-range").innerText();
    const shown = () =>
      page.locator("#repos-table tbody tr").evaluateAll((rows) =>
        rows.map((r) => r.getAttribute("data-repo"))
      );
    const signIn = async (p: Page) => {
      await p.getByLabel("Admin key").fill(server.adminKey);
      await p.getByRole("button", { name: "Sign in" }).click();
    };

    await t.step("the first page shows its range and count", async () => {
      await page.goto(`${server.httpUrl}/admin/repos?limit=4`);
      await signIn(page);
      await page.locator("#repos-table").waitFor();
      assertEquals(await range(), "1–4 of 11 repositories");
      assertEquals(await shown(), sorted.slice(0, 4));
      await page.locator('.pager-links [aria-disabled="true"]', { hasText: "Previous" }).waitFor();
    });

    let secondUrl = "";
    await t.step("next, reload, previous", async () => {
      await page.getByRole("link", { name: "Next" }).click();
      await page.getByText("5–8 of 11 repositories").waitFor();
      assertEquals(await shown(), sorted.slice(4, 8));
      secondUrl = page.url();
      assertStringIncludes(secondUrl, "after=");
      await page.reload();
      await page.getByText("5–8 of 11 repositories").waitFor();
      assertEquals(await shown(), sorted.slice(4, 8));
      await page.getByRole("link", { name: "Next" }).click();
      await page.getByText("9–11 of 11 repositories").waitFor();
      assertEquals(await shown(), sorted.slice(8));
      await page.reload();
      await page.getByText("9–11 of 11 repositories").waitFor();
      await page.getByRole("link", { name: "Previous" }).click();
      await page.getByText("5–8 of 11 repositories").waitFor();
      await page.reload();
      await page.getByRole("link", { name: "Previous" }).click();
      await page.getByText("1–4 of 11 repositories").waitFor();
      assertEquals(await shown(), sorted.slice(0, 4));
      await page.goBack();
      await page.getByText("5–8 of 11 repositories").waitFor();
      await screenshot(page, "admin-repos-paged-desktop");
    });

    await t.step("a deep link opens the same page in a fresh session", async () => {
      const other = await openPage(browser, VIEWPORTS.desktop);
      await other.page.goto(secondUrl);
      await signIn(other.page);
      await other.page.getByText("5–8 of 11 repositories").waitFor();
      const rows = await other.page.locator("#repos-table tbody tr").evaluateAll((r) =>
        r.map((x) => x.getAttribute("data-repo"))
      );
      assertEquals(rows, sorted.slice(4, 8));
      await other.context.close();
      assertEquals(other.problems, []);
    });

    await t.step("sorting starts again from the first page, in the URL", async () => {
      await page.getByLabel("Sort").selectOption({ label: "Newest first" });
      await page.waitForURL(/sort=created/);
      await page.locator(`#repos-table tr[data-repo="alice/${LONG}"]`).waitFor();
      assertEquals((await shown())[0], `alice/${LONG}`);
      assert(!page.url().includes("after="), "a new sort drops the cursor");
      assertEquals(await range(), "1–4 of 11 repositories");
      await page.reload();
      assertEquals(await page.getByLabel("Sort").inputValue(), "2");
    });

    await t.step("the filter counts what matches", async () => {
      await page.getByLabel("Filter repositories by owner or name").fill("web");
      await page.getByText("1–2 of 2 repositories").waitFor();
      await page.getByLabel("Filter repositories by owner or name").fill("no-such-thing");
      await page.getByText("No repositories match").waitFor();
      await page.getByRole("link", { name: "Clear filter" }).click();
      await page.getByText("1–11 of 11 repositories").waitFor();
    });

    await t.step("the user page: key fingerprint, repositories, a token revoked", async () => {
      await page.getByRole("link", { name: "Users", exact: true }).click();
      await page.getByRole("link", { name: "alice", exact: true }).click();
      await page.getByRole("heading", { name: "User alice", level: 1 }).waitFor();
      assertStringIncludes(page.url(), "/admin/user?name=alice");
      assertEquals(await page.title(), "User alice · Signet admin");
      const res = await fetch(`${server.httpUrl}/api/admin/users/alice`, {
        headers: { Authorization: `Bearer ${server.adminKey}` },
      });
      const { user } = await res.json() as { user: { fingerprint: string } };
      await page.getByText(user.fingerprint).waitFor();
      await page.getByRole("link", { name: "All 11 repositories" }).waitFor();
      assertEquals(await page.locator("#tokens-table tbody tr").count(), 1);
      await screenshot(page, "admin-user-desktop");
      // Revoking asks first: Cancel leaves the token, Confirm revokes it.
      await page.getByRole("button", { name: /^Revoke token/ }).click();
      await page.getByRole("button", { name: /^Cancel: Revoke token/ }).click();
      assertEquals(await page.locator("#tokens-table tbody tr").count(), 1);
      await page.getByRole("button", { name: /^Revoke token/ }).click();
      await page.getByRole("button", { name: /^Confirm: Revoke token/ }).click();
      await page.getByText("No live tokens").waitFor();
      const me = await fetch(`${server.httpUrl}/api/user`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      await me.body?.cancel();
      assertEquals(me.status, 401, "a revoked token stops working");
      await page.reload();
      await page.getByText("No live tokens").waitFor();
    });

    await t.step("a user who does not exist: not found, a way back, nothing to retry", async () => {
      await page.goto(`${server.httpUrl}/admin/user?name=nobody`);
      await page.getByRole("heading", { name: "User not found", level: 1 }).waitFor();
      await page.getByText("There is no user named nobody").waitFor();
      assertEquals(await page.getByRole("button", { name: "Retry" }).count(), 0);
      await page.getByRole("link", { name: "All users" }).click();
      await page.waitForURL(`${server.httpUrl}/admin/users`);
    });

    await t.step("an invite minted for 30 days, then revoked", async () => {
      await page.getByRole("link", { name: "Invites", exact: true }).click();
      await page.getByLabel("Expires in").selectOption("30");
      await page.getByRole("button", { name: "Create invite" }).click();
      const minted = page.locator(".minted");
      await minted.waitFor();
      const code = (await minted.locator(".copy-field-value").first().innerText()).trim();
      const row = page.locator(`#invites-table tr[data-code="${code}"]`);
      await row.waitFor();
      assertStringIncludes(await row.innerText(), "in 30 days");
      await screenshot(page, "admin-invites-expiry-desktop");
      await page.getByRole("button", { name: `Revoke invite ${code}` }).click();
      await page.getByRole("button", { name: `Confirm: Revoke invite ${code}` }).click();
      await page.getByText(`Revoked invite ${code}.`).waitFor();
      await row.waitFor({ state: "detached" });
      const key = await makeKey("zed");
      const r = await postJson(`${server.httpUrl}/api/signup`, {
        username: "zed",
        public_key: key.publicLine,
        invite_code: code,
      });
      assertEquals([r.status, r.body.error], [400, "invite code not found"]);
    });

    await t.step("a 100-character name never makes the page scroll sideways", async () => {
      for (const viewport of [VIEWPORTS.desktop, VIEWPORTS.phone, { width: 375, height: 800 }]) {
        const v = await openPage(browser, viewport);
        await v.page.goto(`${server.httpUrl}/admin/repos?sort=created`);
        await signIn(v.page);
        await v.page.locator(`#repos-table tr[data-repo="alice/${LONG}"]`).waitFor();
        const overflow = await v.page.evaluate(() =>
          document.documentElement.scrollWidth - document.documentElement.clientWidth
        );
        assertEquals(overflow, 0, `no sideways scrolling at ${viewport.width} px`);
        await screenshot(v.page, `admin-repos-long-name-${viewport.width}`);
        await v.context.close();
        assertEquals(v.problems, []);
      }
    });

    await t.step("a stale or forged cursor shows the error and a way back", async () => {
      await page.goto(`${server.httpUrl}/admin/repos?after=forged`);
      await page.getByText("after is not a cursor").waitFor();
      await page.getByRole("link", { name: "Go to the first page" }).click();
      await page.getByText("1–11 of 11 repositories").waitFor();
    });

    assertEquals(
      problems.filter((p) => !p.includes("status of 400")),
      [],
      "no console errors or CSP violations",
    );
  } finally {
    await browser.close();
  }
});
