/** Real headless Chromium (Debian's /usr/bin/chromium) driven by playwright-core, for UI tests. */
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import axeSource from "axe-core/axe.min.js" with { type: "text" };

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
  // The suite runs both engines' servers, their git and several Chromiums on two cores at once: a
  // page that takes seconds there is slow, not broken. A wait fails when its thing never comes.
  page.setDefaultTimeout(30_000);
  waitForAppOnNavigation(page);
  return { page, context, problems };
}

/**
 * Makes `page`'s goto, reload, goBack and goForward resolve once a registry page's app has taken
 * over (its root marked `data-ready`; it loads after the first paint, ui/registry/boot.ts), so a
 * test acts on the app and not on the server's HTML before it. Pages without the app: at once.
 */
function waitForAppOnNavigation(page: Page): void {
  const appReady = () =>
    page.waitForFunction(() =>
      !document.querySelector("script[data-app]") ||
      document.getElementById("app")?.hasAttribute("data-ready")
    );
  for (const name of ["goto", "reload", "goBack", "goForward"] as const) {
    const navigate = page[name].bind(page) as (...args: unknown[]) => Promise<unknown>;
    (page as unknown as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      const response = await navigate(...args);
      await appReady();
      return response;
    };
  }
}

/** Saves a full-page screenshot as tests/.artifacts/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await Deno.mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });
}

/**
 * The registry API paths (`/v1/...`) `page` requests from now on, in order: the list grows as the
 * page asks, so a test can check that a render needed no call, or which ones it made.
 */
export function apiRequests(page: Page): string[] {
  const paths: string[] = [];
  page.on("request", (r) => {
    const path = new URL(r.url()).pathname;
    if (path.startsWith("/v1/")) paths.push(path);
  });
  return paths;
}

/** How far the page scrolls sideways (0 when it does not). */
export function sidewaysScroll(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - globalThis.innerWidth);
}

/** A fresh context in `colorScheme` whose pages all load axe-core (for `seriousAxeHits`). */
export async function axeContext(
  browser: Browser,
  colorScheme: "light" | "dark",
): Promise<BrowserContext> {
  const context = await browser.newContext({ colorScheme });
  await context.addInitScript({ content: axeSource });
  return context;
}

/** One axe-core rule broken on a page: its id, impact and where (a few selectors). */
export interface AxeHit {
  id: string;
  impact: string | null;
  nodes: string[];
}

/**
 * Runs axe-core on the page as it is now (in an `axeContext`): the serious and critical hits, and
 * with `headingOne` a missing h1 too.
 */
export async function seriousAxeHits(
  page: Page,
  { headingOne = false }: { headingOne?: boolean } = {},
): Promise<AxeHit[]> {
  const hits = await page.evaluate(async () => {
    type Result = {
      violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[];
    };
    const axe = (globalThis as unknown as { axe: { run: (d: Document) => Promise<Result> } }).axe;
    const result = await axe.run(document);
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")),
    }));
  });
  return hits.filter((h) =>
    h.impact === "serious" || h.impact === "critical" || h.impact === "moderate" ||
    (headingOne && h.id === "page-has-heading-one")
  );
}
