/** Real headless Chromium (Debian's /usr/bin/chromium) driven by playwright-core, for UI tests. */
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

/** Where Debian installs Chromium; tests never download a browser. */
export const CHROMIUM = "/usr/bin/chromium";

/** Screenshots go here (git-ignored). */
export const ARTIFACTS = new URL("../.artifacts/", import.meta.url).pathname;

/** Desktop and phone viewports the UI is checked at. */
export const VIEWPORTS = {
  desktop: { width: 1280, height: 860 },
  phone: { width: 390, height: 844 },
} as const;

/** Starts headless Chromium with the flags that keep it offline and quiet. */
export async function launchBrowser(): Promise<Browser> {
  return await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

/** A page that records console errors, page errors and CSP violations for later assertions. */
export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Console errors and uncaught exceptions seen so far. */
  problems: string[];
}

/** Opens a fresh context (own sessionStorage) at `viewport` and a watched page in it. */
export async function openPage(
  browser: Browser,
  viewport: { width: number; height: number } = VIEWPORTS.desktop,
): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport, colorScheme: "light" });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (msg) => {
    // Failed API calls the test provokes on purpose (wrong key) are logged by Chromium as errors.
    const expected = /^Failed to load resource: the server responded with a status of 4\d\d/;
    if (msg.type() === "error" && !expected.test(msg.text())) {
      problems.push(`console: ${msg.text()}`);
    }
  });
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  page.setDefaultTimeout(10_000);
  return { page, context, problems };
}

/** Saves a full-page screenshot as tests/.artifacts/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await Deno.mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });
}
