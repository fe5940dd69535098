/**
 * A visitor who types before the registry app has hydrated the server's page (the app loads after
 * the first paint) keeps what they typed: the app takes the form's values over, so its search is
 * the one on screen. The app's script is held back until the form is filled.
 */
import { publicKeyOf, RegistryClient } from "../../../client/registry.ts";
import { assertEquals } from "../../helpers/assert.ts";
import { launchBrowser } from "../../helpers/browser.ts";
import { serverTest } from "../../helpers/server.ts";
import { signer, waitForResults } from "../../helpers/registry_ui.ts";

serverTest(
  "registry browser: input made before hydration is kept by the app",
  {},
  async (server) => {
    const api = new RegistryClient(server.registryUrl);
    for (const [id, capability] of [["early-a", "alpha"], ["early-b", "beta"]]) {
      const s = await signer("main", id);
      await api.createBot({
        bot_id: id,
        keys: [publicKeyOf(s, "main")],
        capabilities: [capability],
      }, [
        s,
      ]);
    }
    const browser = await launchBrowser();
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      page.setDefaultTimeout(30_000); // as openPage sets it (tests/helpers/browser.ts)
      // Hold the app's script (the boot script asks for it after the first paint).
      let releaseApp = () => {};
      const appHeld = new Promise<void>((resolve) => (releaseApp = resolve));
      let appAsked = () => {};
      const asked = new Promise<void>((resolve) => (appAsked = resolve));
      await page.route(/\/assets\/registry-app-[^/]*\.js$/, async (route) => {
        appAsked();
        await appHeld;
        await route.continue();
      });
      await page.goto(`${server.registryUrl}/`);
      await waitForResults(page, ["early-a", "early-b"]);
      await asked;
      await page.getByLabel("Capability").fill("beta");
      await page.getByLabel("Sort").selectOption("-created");
      releaseApp();
      await page.locator("#app[data-ready]").waitFor({ state: "attached" });
      await page.evaluate(() => (globalThis as unknown as { marker: number }).marker = 1);

      await page.getByRole("button", { name: "Search" }).click();

      await page.waitForURL(/capability=beta/);
      await waitForResults(page, ["early-b"]);
      const url = new URL(page.url());
      assertEquals(url.searchParams.get("sort"), "-created");
      // The app searched in place: the page was not reloaded.
      assertEquals(
        await page.evaluate(() => (globalThis as unknown as { marker?: number }).marker),
        1,
      );
      await context.close();
    } finally {
      await browser.close();
    }
  },
);
