/**
 * The public registry pages (issue 27), at 100,000 bots seeded as the registry workloads seed
 * them (bench/load/seed_registry.ts): the bytes each page costs on the wire (asked for as Chromium
 * asks: gzip, deflate, br), alone and with the files a first visit loads; the server's time for
 * the landing page and a bot page (wrk, one connection, HTML with gzip); and the first contentful
 * paint in headless Chromium on loopback (a fresh browser context per load: nothing cached; and
 * repeat visits). Goals: every page ≤ 30 KB compressed, its first visit included, ≤ 5 ms server
 * time, FCP ≤ 150 ms.
 *
 * `deno task bench --pages [--quick] [--out FILE] [--into FILE]`, or alone: `deno run -A
 * bench/pages.ts [--bots N] [--seconds N] [--loads N] [--out FILE] [--into FILE]`: prints the
 * section, writes it to `--out`, and puts it into the Markdown file `--into` (bench/RESULTS.md) in
 * place of its "Public pages" section, or at the end. A full `deno task bench` rewrites
 * bench/RESULTS.md without it: run this after one.
 */
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { cmd, fmt, median, progress, quantile, writeSection } from "./util.ts";
import { type SignetServer, startSignet } from "./signet.ts";
import { wrk } from "./load/wrk.ts";
import { seedBotId } from "./load/seed_names.ts";

const LOAD = new URL("./load/", import.meta.url).pathname;
/** The goals. */
export const PAGE_KB_GOAL = 30;
export const SERVER_MS_GOAL = 5;
export const FCP_MS_GOAL = 150;

const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

async function denoScript(script: string, args: string[]): Promise<string> {
  const r = await cmd(Deno.execPath(), ["run", "-A", `${LOAD}${script}`, ...args]);
  if (r.code !== 0) throw new Error(`${script} failed (${r.code}):\n${r.stderr.slice(-2000)}`);
  return r.stdout.trim();
}

/** The pages measured: [name, path]. */
function pages(bots: number): [string, string][] {
  return [
    ["landing", "/"],
    ["search", "/?q=seed-0001&status=active"],
    ["search, page 3", "/?capability=deploy&limit=20"],
    ["bot", `/bots/${seedBotId(4242 % bots)}`],
    ["audit log", "/log"],
    ["docs: reference", "/v1/docs"],
    ["docs: protocol", "/v1/docs/protocol"],
    ["docs: API operations", "/v1/docs/api"],
    ["404", "/no-such-page"],
  ];
}

/** What Chromium sends as Accept-Encoding (less zstd, which Signet does not send). */
const CHROMIUM_ENCODINGS = "gzip, deflate, br";

/**
 * Bytes of `path` on the wire (compressed as the server gives it to Chromium) and as HTML, and its
 * assets.
 */
async function wireBytes(
  base: string,
  path: string,
): Promise<{ wire: number; html: number; assets: string[] }> {
  const r = await cmd("curl", [
    "-s",
    "-H",
    `Accept: ${BROWSER_ACCEPT}`,
    "-H",
    `Accept-Encoding: ${CHROMIUM_ENCODINGS}`,
    "-o",
    "/dev/null",
    "-w",
    "%{size_download}",
    `${base}${path}`,
  ]);
  const html = await (await fetch(`${base}${path}`, {
    headers: { Accept: BROWSER_ACCEPT, "Accept-Encoding": "identity" },
  })).text();
  // The stylesheet and script it links, and the app its boot script loads (`data-app`).
  const assets = [...html.matchAll(/(?:href|src|data-app)="(\/assets\/[^"]+\.(?:js|css))"/g)]
    .map((m) => m[1]);
  return { wire: Number(r.stdout), html: new TextEncoder().encode(html).length, assets };
}

/** The third page of a search, found by following its Next links. */
async function thirdPage(base: string, path: string): Promise<string> {
  let at = path;
  for (let i = 0; i < 2; i++) {
    const html = await (await fetch(`${base}${at}`, { headers: { Accept: BROWSER_ACCEPT } }))
      .text();
    const next = /<a class="btn btn-secondary" rel="next" href="([^"]+)"/.exec(html)?.[1];
    if (!next) throw new Error(`no next page on ${at}`);
    at = next.replaceAll("&amp;", "&");
  }
  return at;
}

/** One table row. */
export interface PageRow {
  name: string;
  path: string;
  wireKb: number;
  htmlKb: number;
  /** The page and its stylesheet and scripts (the app a boot script loads too), gzip. */
  firstVisitKb: number;
  /** First visit: a fresh context, nothing cached. */
  cold: number[];
  /** Repeat visit: the stylesheet and scripts cached (immutable), the page fetched again. */
  warm: number[];
}

/** Server time of a set of paths: wrk, one connection. */
export interface ServerRow {
  name: string;
  p50: number;
  p99: number;
  rps: number;
  errors: number;
}

/** The first contentful paint of the page now loaded in `page`, ms. */
function fcpOf(page: import("playwright-core").Page): Promise<number> {
  return page.evaluate(() =>
    new Promise<number>((resolve) => {
      const found = performance.getEntriesByName("first-contentful-paint")[0];
      if (found) return resolve(found.startTime);
      new PerformanceObserver((list) => {
        const e = list.getEntriesByName("first-contentful-paint")[0];
        if (e) resolve(e.startTime);
      }).observe({ type: "paint", buffered: true });
    })
  );
}

/**
 * First contentful paints of each of `urls`, ms: `loads` first visits (a fresh context each), and
 * `loads` repeat visits (one context per page, its cache primed by one load first). The pages take
 * turns, a load of each per round, so a slow spell of the machine (the seeding's writes settling,
 * another process) falls on all of them alike instead of on whichever page was measured then.
 * Round 0 warms the browser and each page's path on the server, and is not counted.
 */
async function paints(
  urls: string[],
  loads: number,
): Promise<{ cold: number[]; warm: number[] }[]> {
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
  });
  try {
    const out = urls.map(() => ({ cold: [] as number[], warm: [] as number[] }));
    for (let round = 0; round < loads + 1; round++) {
      for (const [k, url] of urls.entries()) {
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.goto(url, { waitUntil: "load" });
        const fcp = await fcpOf(page);
        if (round > 0) out[k].cold.push(fcp);
        await context.close();
      }
    }
    const contexts = [];
    for (const _ of urls) contexts.push(await browser.newContext());
    for (let round = 0; round < loads + 1; round++) {
      for (const [k, url] of urls.entries()) {
        const page = await contexts[k].newPage();
        await page.goto(url, { waitUntil: "load" });
        const fcp = await fcpOf(page);
        if (round > 0) out[k].warm.push(fcp);
        await page.close();
      }
    }
    for (const context of contexts) await context.close();
    return out;
  } finally {
    await browser.close();
  }
}

/** Seeds `bots` bots into `server` (as the registry workloads do). */
async function seed(server: SignetServer, bots: number, workDir: string): Promise<void> {
  progress(`seeding ${fmt(bots)} bots`);
  const template = `${workDir}/template.json`;
  await Deno.writeTextFile(
    template,
    await denoScript("registry_template.ts", [server.registryUrl]),
  );
  const t0 = performance.now();
  await denoScript("seed_registry.ts", [`${server.dataDir}/signet.db`, String(bots), template]);
  progress(`  seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

/** Measures the pages of a seeded server. */
export async function measurePages(
  server: SignetServer,
  opts: { seconds: number; loads: number; bots: number },
): Promise<{ pages: PageRow[]; server: ServerRow[] }> {
  const base = server.registryUrl;
  const list = pages(opts.bots);
  list[2][1] = await thirdPage(base, list[2][1]);
  const assetBytes = new Map<string, number>();
  const rows: PageRow[] = [];
  for (const [name, path] of list) {
    progress(`page ${name}`);
    const size = await wireBytes(base, path);
    let first = size.wire;
    for (const a of size.assets) {
      if (!assetBytes.has(a)) assetBytes.set(a, (await wireBytes(base, a)).wire);
      first += assetBytes.get(a)!;
    }
    rows.push({
      name,
      path,
      wireKb: size.wire / 1024,
      htmlKb: size.html / 1024,
      firstVisitKb: first / 1024,
      cold: [],
      warm: [],
    });
  }
  progress(`first contentful paints: ${opts.loads} rounds over the ${list.length} pages`);
  const fcps = await paints(list.map(([, path]) => `${base}${path}`), opts.loads);
  fcps.forEach((fcp, k) => Object.assign(rows[k], fcp));
  const script = `${LOAD}pages.lua`;
  const sets: [string, string[]][] = [
    ["landing `/`", ["/"]],
    ["landing, searches", ["/?q=seed-0001", "/?capability=deploy", "/?q=bench&status=active"]],
    [
      "bot page `/bots/{id}`",
      [1, 4242, 50_000, 99_999].map((i) => `/bots/${seedBotId(i % opts.bots)}`),
    ],
  ];
  const timed: ServerRow[] = [];
  for (const [name, paths] of sets) {
    progress(`wrk ${name}`);
    const load = { url: `${base}/`, connections: 1, script, scriptArgs: paths };
    await wrk({ ...load, seconds: 1 }); // untimed: code compiled, pages mapped
    const r = await wrk({ ...load, seconds: opts.seconds });
    timed.push({ name, p50: r.p50, p99: r.p99, rps: r.rps, errors: r.errors });
  }
  return { pages: rows, server: timed };
}

/** The section of bench/RESULTS.md. */
export function renderPages(
  r: { pages: PageRow[]; server: ServerRow[] },
  bots: number,
  loads: number,
  load: string,
): string {
  const kb = (n: number) => n.toFixed(1);
  const ms = (n: number) => n.toFixed(n < 10 ? 2 : 0);
  const spread = (xs: number[]) =>
    `${ms(median(xs))} (${ms(quantile(xs, 0.9))}, ${ms(Math.min(...xs))}–${ms(Math.max(...xs))})`;
  const lines = [
    PAGES_HEADING,
    "",
    `Measured ${new Date().toISOString().slice(0, 16)} UTC, load average ${load} at the start.`,
    "",
    `${fmt(bots)} seeded bots on SQLite; \`deno task bench --pages --into bench/RESULTS.md\` ` +
    `(bench/pages.ts; a full \`deno task bench\` keeps this section as it was). ` +
    `Bytes: the page as Chromium asks for it (Accept-Encoding: ${CHROMIUM_ENCODINGS}: HTML ` +
    `comes in gzip, the hashed assets in Brotli); "first visit" adds the files it loads: a ` +
    `stylesheet if not inline, its script and the app that script loads after the first paint ` +
    `(cached for a year after). FCP: first contentful paint in headless Chromium on loopback, a fresh ` +
    `context per load (nothing cached), and repeat visits (those files cached), the pages in turn, ` +
    `${loads} loads each after one warm-up: median (p90, min–max). Goals: ≤ ${PAGE_KB_GOAL} KB ` +
    `compressed, first visit included, FCP ≤ ${FCP_MS_GOAL} ms.`,
    "",
    "| Page | Path | HTML KB | On the wire KB | First visit KB | FCP ms, first visit | FCP ms, repeat visit |",
    "| ---- | ---- | ------: | -------------: | -------------: | ------------------- | -------------------- |",
    ...r.pages.map((p) =>
      `| ${p.name} | \`${p.path.replaceAll("|", "\\|")}\` | ${kb(p.htmlKb)} | ${kb(p.wireKb)} | ${
        kb(p.firstVisitKb)
      } | ${spread(p.cold)} | ${spread(p.warm)} |`
    ),
    "",
    `Server time per page (wrk, 1 connection, HTML with gzip; goal ≤ ${SERVER_MS_GOAL} ms):`,
    "",
    "| Pages | p50 ms | p99 ms | pages/s | errors |",
    "| ----- | -----: | -----: | ------: | -----: |",
    ...r.server.map((s) =>
      `| ${s.name} | ${ms(s.p50)} | ${ms(s.p99)} | ${fmt(s.rps)} | ${s.errors} |`
    ),
    "",
  ];
  return lines.join("\n");
}

/** The heading of this bench's section in RESULTS.md. */
export const PAGES_HEADING = "## Public pages (server-rendered, issue 27)";

/** Starts a Signet of its own, seeds it, measures its pages, stops it; returns the section. */
export async function runPages(
  opts: { bots: number; seconds: number; loads: number; out?: string; into?: string },
): Promise<number> {
  const work = await Deno.makeTempDir({ prefix: "signet-bench-pages-" });
  const dataDir = `${work}/data`;
  await Deno.mkdir(dataDir);
  const server = await startSignet(dataDir);
  try {
    await seed(server, opts.bots, work);
    const load = (await Deno.readTextFile("/proc/loadavg")).split(" ")[0];
    const r = await measurePages(server, opts);
    const text = renderPages(r, opts.bots, opts.loads, load);
    console.log(text);
    if (opts.out) await Deno.writeTextFile(opts.out, text);
    if (opts.into) {
      await writeSection(opts.into, text);
      await cmd(Deno.execPath(), ["fmt", "--quiet", opts.into]);
    }
    for (const p of r.pages) {
      const ok = p.firstVisitKb <= PAGE_KB_GOAL && median(p.cold) <= FCP_MS_GOAL;
      console.log(
        `${ok ? "ok  " : "MISS"} ${p.name}: ${p.wireKb.toFixed(1)} KB, ${
          p.firstVisitKb.toFixed(1)
        } KB first visit, FCP ${median(p.cold).toFixed(0)} ms first visit, ${
          median(p.warm).toFixed(0)
        } ms repeat`,
      );
    }
    for (const s of r.server) {
      console.log(
        `${s.p50 <= SERVER_MS_GOAL ? "ok  " : "MISS"} ${s.name}: p50 ${s.p50.toFixed(2)} ms`,
      );
    }
    return r.server.some((s) => s.errors > 0) ? 1 : 0;
  } finally {
    await server.stop();
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      bots: { type: "string", default: "100000" },
      seconds: { type: "string", default: "3" },
      loads: { type: "string", default: "15" },
      out: { type: "string" },
      into: { type: "string" },
    },
  });
  Deno.exit(
    await runPages({
      bots: Number(values.bots),
      seconds: Number(values.seconds),
      loads: Number(values.loads),
      out: values.out,
      into: values.into,
    }),
  );
}
