/**
 * The repository browser against cgit (issue 28). The bench's 2,000-file and 50 MB-blob
 * repositories (bench/repos.ts; the small one gets one more commit: a README, a 100 KB TypeScript
 * file and a directory seven levels down) are served by Debian's cgit behind nginx + fcgiwrap
 * (cgit's cache off, run as the current user on free ports) and by Signet twice: as it runs by
 * default (pages cached by ref state) and with SERVICE_BROWSE_CACHE_BYTES=off (every page from
 * git). Each page is loaded by wrk over one connection for a few seconds per round, servers
 * rotated each round; a page's figure is the median of the rounds' median latencies, with their
 * spread (lowest–highest). Last, 50 connections load every page at once while the Signet process
 * tree's memory is sampled.
 *
 * Alone: `deno task bench --browse [--quick]` (or `deno run -A bench/browse.ts [--quick]`): prints
 * the section, and (full mode) writes it into bench/RESULTS.md in place of the last one.
 */
import { parseArgs } from "node:util";
import {
  cmd,
  cmdOk,
  fmt,
  freePort,
  gitClientEnv,
  median,
  progress,
  sleep,
  waitForPort,
  writeSection,
} from "./util.ts";
import { generateRepos, mirrorInto, type RepoSizes } from "./repos.ts";
import { type SignetServer, startSignet } from "./signet.ts";
import { wrk } from "./load/wrk.ts";
import { memoryOf, processTree, stopNginxFcgi } from "./baselines/process.ts";
import { fastcgiNginxConf } from "./baselines/nginx.ts";
import { createRepo, login, makeKey, mintInvite, postJson } from "../testing/accounts.ts";

/** Settings of one run. */
export interface BrowseOptions {
  sizes: RepoSizes;
  rounds: number;
  /** Seconds of wrk per page, server and round. */
  seconds: number;
  /** Connections of the memory load, and its seconds. */
  loadConnections: number;
  loadSeconds: number;
}

/** The full run's settings and --quick's. */
export const BROWSE_SETTINGS: Record<"full" | "quick", BrowseOptions> = {
  full: {
    sizes: { files: 2000, commits: 200, blobBytes: 50 * 1024 * 1024 },
    rounds: 3,
    // One second of one connection is hundreds of loads of most pages (the slowest, cgit's commit
    // page of the 50 MB blob at 112 ms, still nine), three times over: enough for a median, with
    // Signet at 0.00-0.21x of cgit's medians. Two seconds took the phase to six minutes of the
    // run; five rounds to three and a half.
    seconds: 1,
    loadConnections: 50,
    loadSeconds: 10,
  },
  quick: {
    sizes: { files: 200, commits: 20, blobBytes: 2 * 1024 * 1024 },
    rounds: 2,
    seconds: 1,
    loadConnections: 50,
    loadSeconds: 3,
  },
};

/** The goal: Signet's median latency of each page at most cgit's. */
export const BROWSE_RATIO_GOAL = 1.0;

/** One page as each server names it. */
interface PageDef {
  name: string;
  repo: "small" | "big";
  cgit: string;
  signet: string;
}

/** A latency figure over rounds: median of the rounds' medians, lowest and highest (ms). */
export interface Spread {
  median: number;
  min: number;
  max: number;
  /** Requests answered other than 200 over all rounds. */
  errors: number;
}

/** One page's figures. */
export interface BrowseRow {
  page: string;
  repo: string;
  cgit: Spread;
  signet: Spread;
  uncached: Spread;
}

/** Memory of the Signet process tree (server and git children) under the concurrent load, KiB. */
export interface BrowseMemory {
  server: "cached" | "uncached";
  startRss: number;
  peakRss: number;
  endRss: number;
  requests: number;
  rps: number;
  errors: number;
}

/** The results. */
export interface BrowseResults {
  options: BrowseOptions;
  rows: BrowseRow[];
  memory: BrowseMemory[];
  load: string;
}

const DEEP = "src/deep/a/b/c/d/e/f";

/** A TypeScript source of about `bytes` bytes: many small documented functions. */
function typescriptSource(bytes: number): string {
  const parts: string[] = ["// Generated for the repository browser bench.\n"];
  let size = parts[0].length;
  for (let i = 0; size < bytes; i++) {
    const fn =
      `/** Adds ${i} to \`x\` and checks the result. */\nexport function add${i}(x: number): number {\n  const y = x + ${i};\n  if (y < x) throw new Error("overflow at ${i}");\n  return y;\n}\n\n`;
    parts.push(fn);
    size += fn.length;
  }
  return parts.join("");
}

/** Adds the README, the 100 KB source file and the deep directory to `small` in one commit. */
async function extendSmall(small: string, home: string): Promise<void> {
  const env = gitClientEnv(home);
  const work = `${home}/browse-work`;
  await cmdOk("git", ["clone", "-q", small, work], { env });
  await Deno.mkdir(`${work}/${DEEP}`, { recursive: true });
  await Deno.mkdir(`${work}/src/big`, { recursive: true });
  await Deno.writeTextFile(
    `${work}/README.md`,
    "# Bench\n\nThe repository browser bench's repository: [the big file](src/big/module.ts).\n\n" +
      "## Layout\n\n- `src/dirNN/`: generated files\n- `src/deep/`: a deep directory\n",
  );
  await Deno.writeTextFile(`${work}/src/big/module.ts`, typescriptSource(100 * 1024));
  for (let i = 0; i < 8; i++) {
    await Deno.writeTextFile(`${work}/${DEEP}/leaf${i}.txt`, `leaf ${i}\n`.repeat(20));
  }
  await cmdOk("git", ["add", "-A"], { cwd: work, env });
  await cmdOk("git", ["commit", "-q", "-m", "README, a 100 KB module and a deep directory"], {
    cwd: work,
    env,
  });
  await cmdOk("git", ["push", "-q", "origin", "main"], { cwd: work, env });
}

/** A running cgit behind nginx + fcgiwrap. */
interface Cgit {
  url: string;
  stop(): Promise<void>;
}

/** Starts fcgiwrap and nginx (as the current user, under `dir`) serving cgit for `repos`. */
async function startCgit(dir: string, repos: Record<string, string>): Promise<Cgit> {
  await Deno.mkdir(`${dir}/tmp`, { recursive: true });
  const cgitrc = [
    "cache-size=0",
    "virtual-root=/",
    "enable-commit-graph=0",
    "enable-log-filecount=0",
    "enable-log-linecount=0",
    "enable-http-clone=0",
    // Signet shows files up to 1 MiB; cgit's default (no limit) renders a 50 MB binary as a
    // 300 MB hex dump.
    "max-blob-size=1024",
    ...Object.entries(repos).flatMap(([name, path]) => [
      `repo.url=${name}`,
      `repo.path=${path}`,
      "repo.readme=:README.md",
    ]),
    "",
  ].join("\n");
  await Deno.writeTextFile(`${dir}/cgitrc`, cgitrc);
  const port = freePort();
  const socket = `${dir}/fcgiwrap.sock`;
  const conf = fastcgiNginxConf(dir, port, {
    workers: "1",
    main: Deno.uid() === 0 ? ["user root root;"] : [],
    location: [
      "fastcgi_param SCRIPT_FILENAME /usr/lib/cgit/cgit.cgi;",
      `fastcgi_param CGIT_CONFIG ${dir}/cgitrc;`,
      "fastcgi_param PATH_INFO $uri;",
      "fastcgi_param QUERY_STRING $query_string;",
      "fastcgi_param REQUEST_METHOD $request_method;",
      "fastcgi_param SERVER_NAME $server_name;",
      "fastcgi_param SERVER_PORT $server_port;",
      "fastcgi_param GATEWAY_INTERFACE CGI/1.1;",
      "fastcgi_param SERVER_PROTOCOL $server_protocol;",
      `fastcgi_pass unix:${socket};`,
    ],
  });
  await Deno.writeTextFile(`${dir}/nginx.conf`, conf);
  const fcgi = new Deno.Command("/usr/sbin/fcgiwrap", {
    args: ["-c", String(navigator.hardwareConcurrency * 2), "-s", `unix:${socket}`],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  for (let i = 0; i < 100; i++) {
    try {
      await Deno.lstat(socket);
      break;
    } catch {
      await sleep(50);
    }
  }
  const nginx = new Deno.Command("/usr/sbin/nginx", {
    args: ["-p", dir, "-c", `${dir}/nginx.conf`, "-g", "daemon off;"],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  await waitForPort(port);
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      await stopNginxFcgi(nginx, fcgi);
      await nginx.stderr.cancel().catch(() => {});
    },
  };
}

/** Signet with the bench user and its repositories `small` and `big`, mirrored from `repos`. */
async function startSignetWith(
  dataDir: string,
  repos: Record<string, string>,
  home: string,
  env: Record<string, string>,
): Promise<SignetServer> {
  const server = await startSignet(dataDir, env);
  const key = await makeKey("bench-browse");
  const signup = await postJson(`${server.httpUrl}/api/signup`, {
    username: "bench",
    public_key: key.publicLine,
    invite_code: await mintInvite(server),
  });
  if (signup.status !== 201) throw new Error(`signup failed: ${JSON.stringify(signup.body)}`);
  const token = await login(server, {
    id: (signup.body.user as { id: number }).id,
    username: "bench",
    key,
  });
  for (const [name, path] of Object.entries(repos)) {
    await createRepo(server, token, name);
    await mirrorInto(path, `${dataDir}/repos/bench/${name}.git`, home);
  }
  return server;
}

async function revParse(repo: string, rev: string, home: string): Promise<string> {
  return (await cmdOk("git", ["--git-dir", repo, "rev-parse", rev], { env: gitClientEnv(home) }))
    .stdout.trim();
}

/** The pages measured, as cgit and Signet name them. */
async function pages(small: string, big: string, home: string): Promise<PageDef[]> {
  const smallCommit = await revParse(small, "main~1", home);
  const bigCommit = await revParse(big, "main", home);
  return [
    { name: "repository home", repo: "small", cgit: "/small/", signet: "/bench/small" },
    {
      name: "tree of the root",
      repo: "small",
      cgit: "/small/tree/",
      signet: "/bench/small/tree/main",
    },
    {
      name: "tree of a deep directory",
      repo: "small",
      cgit: `/small/tree/${DEEP}`,
      signet: `/bench/small/tree/main/${DEEP}`,
    },
    {
      name: "100 KB source file",
      repo: "small",
      cgit: "/small/tree/src/big/module.ts",
      signet: "/bench/small/blob/main/src/big/module.ts",
    },
    {
      name: "log, first page",
      repo: "small",
      cgit: "/small/log/",
      signet: "/bench/small/commits/main",
    },
    {
      name: "commit page",
      repo: "small",
      cgit: `/small/commit/?id=${smallCommit}`,
      signet: `/bench/small/commit/${smallCommit}`,
    },
    { name: "repository home", repo: "big", cgit: "/big/", signet: "/bench/big" },
    { name: "tree of the root", repo: "big", cgit: "/big/tree/", signet: "/bench/big/tree/main" },
    {
      name: "the big file's page",
      repo: "big",
      cgit: "/big/tree/blob.bin",
      signet: "/bench/big/blob/main/blob.bin",
    },
    { name: "log, first page", repo: "big", cgit: "/big/log/", signet: "/bench/big/commits/main" },
    {
      name: "commit page",
      repo: "big",
      cgit: `/big/commit/?id=${bigCommit}`,
      signet: `/bench/big/commit/${bigCommit}`,
    },
  ];
}

/** Fails unless every page answers 200 (a bench of error pages measures nothing). */
async function checkPages(base: string, paths: string[]): Promise<void> {
  for (const path of paths) {
    const res = await fetch(`${base}${path}`);
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${base}${path}: ${res.status} ${body.slice(0, 300)}`);
  }
}

function spread(all: number[], errors: number): Spread {
  // wrk gives no latency when no request completed (NaN or 0): those rounds count as missing.
  const p50s = all.filter((x) => Number.isFinite(x) && x > 0);
  if (p50s.length === 0) return { median: NaN, min: NaN, max: NaN, errors };
  return { median: median(p50s), min: Math.min(...p50s), max: Math.max(...p50s), errors };
}

/** Peak RSS (KiB) of `pid`'s process tree while `during` runs, sampled every 50 ms. */
async function peakRssDuring<T>(
  pid: number,
  during: Promise<T>,
): Promise<{ peak: number; value: T }> {
  let peak = 0;
  let done = false;
  const value = during.finally(() => (done = true));
  while (!done) {
    const rss = processTree([pid]).reduce((n, p) => n + memoryOf(p).rss, 0);
    peak = Math.max(peak, rss);
    await sleep(50);
  }
  return { peak, value: await value };
}

/** Runs the browse bench in `work` (a scratch directory) with `opts`. */
export async function runBrowse(work: string, opts: BrowseOptions): Promise<BrowseResults> {
  const home = `${work}/home`;
  await Deno.mkdir(home, { recursive: true });
  progress(`browse: generating repositories in ${work}`);
  const generated = await generateRepos(`${work}/gen`, opts.sizes, home);
  await extendSmall(generated.small, home);
  const repos = { small: generated.small, big: generated.big };
  const defs = await pages(generated.small, generated.big, home);
  const stops: (() => Promise<void>)[] = [];
  try {
    progress("browse: starting cgit (nginx + fcgiwrap), Signet and Signet without its page cache");
    const cgit = await startCgit(`${work}/cgit`, repos);
    stops.push(() => cgit.stop());
    const signet = await startSignetWith(`${work}/signet`, repos, home, {});
    stops.push(() => signet.stop());
    const uncached = await startSignetWith(`${work}/signet-uncached`, repos, home, {
      SERVICE_BROWSE_CACHE_BYTES: "off",
    });
    stops.push(() => uncached.stop());
    await checkPages(cgit.url, defs.map((d) => d.cgit));
    await checkPages(signet.httpUrl, defs.map((d) => d.signet));
    await checkPages(uncached.httpUrl, defs.map((d) => d.signet));

    const servers = [
      { key: "cgit" as const, url: (d: PageDef) => `${cgit.url}${d.cgit}` },
      { key: "signet" as const, url: (d: PageDef) => `${signet.httpUrl}${d.signet}` },
      { key: "uncached" as const, url: (d: PageDef) => `${uncached.httpUrl}${d.signet}` },
    ];
    const samples = defs.map(() => ({
      cgit: [] as number[],
      signet: [] as number[],
      uncached: [] as number[],
      errors: { cgit: 0, signet: 0, uncached: 0 },
    }));
    for (let round = 0; round < opts.rounds; round++) {
      progress(`browse: round ${round + 1} of ${opts.rounds}`);
      const order = [...servers.slice(round % 3), ...servers.slice(0, round % 3)];
      for (const [i, d] of defs.entries()) {
        for (const s of order) {
          const r = await wrk({ url: s.url(d), seconds: opts.seconds, connections: 1 });
          samples[i][s.key].push(r.p50);
          samples[i].errors[s.key] += r.errors;
        }
      }
    }
    const rows = defs.map((d, i) => ({
      page: d.name,
      repo: d.repo === "small"
        ? `${opts.sizes.files.toLocaleString("en")} files`
        : `${opts.sizes.blobBytes / 1024 / 1024} MB blob`,
      cgit: spread(samples[i].cgit, samples[i].errors.cgit),
      signet: spread(samples[i].signet, samples[i].errors.signet),
      uncached: spread(samples[i].uncached, samples[i].errors.uncached),
    }));

    const memory: BrowseMemory[] = [];
    const lua = new URL("./load/browse_pages.lua", import.meta.url).pathname;
    for (const [label, server] of [["cached", signet], ["uncached", uncached]] as const) {
      progress(`browse: ${opts.loadConnections} connections on every page (${label})`);
      const startRss = processTree([server.pid]).reduce((n, p) => n + memoryOf(p).rss, 0);
      const { peak, value } = await peakRssDuring(
        server.pid,
        wrk({
          url: server.httpUrl,
          seconds: opts.loadSeconds,
          connections: opts.loadConnections,
          threads: 2,
          script: lua,
          scriptArgs: defs.map((d) => d.signet),
        }),
      );
      await sleep(500);
      memory.push({
        server: label,
        startRss,
        peakRss: peak,
        endRss: processTree([server.pid]).reduce((n, p) => n + memoryOf(p).rss, 0),
        requests: value.requests,
        rps: value.rps,
        errors: value.errors,
      });
    }
    const load = (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
    return { options: opts, rows, memory, load };
  } finally {
    for (const stop of stops.reverse()) await stop().catch((e) => console.error(`stop: ${e}`));
  }
}

function cell(s: Spread): string {
  if (!Number.isFinite(s.median)) return "— (no answer within the round)";
  return `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})${s.errors ? ` ⚠ ${s.errors} errors` : ""}`;
}

function ratio(a: Spread, b: Spread): string {
  return `${(a.median / b.median).toFixed(2)}x`;
}

/** The heading of this bench's section in RESULTS.md. */
export const BROWSE_HEADING = "## Repository browser";

/** The RESULTS.md section of `r`. */
export function renderBrowse(r: BrowseResults, when: Date = new Date()): string[] {
  const o = r.options;
  const mb = (kib: number) => `${(kib / 1024).toFixed(0)} MB`;
  const lines = [
    BROWSE_HEADING,
    "",
    `Run alone (\`deno task bench --browse\`, bench/browse.ts) on ${
      when.toISOString().slice(0, 16).replace("T", " ")
    } UTC; ` +
    `load average at the end ${r.load} (2 cores, shared with other work). Debian's cgit 1.2.3 behind nginx + ` +
    `fcgiwrap (cache off, no filters, \`max-blob-size=1024\` as Signet's 1 MiB) against Signet as it runs (pages cached by ref state: every ` +
    `request still reads the refs' files and looks the repository up in the database) and Signet ` +
    `with \`SERVICE_BROWSE_CACHE_BYTES=off\` (every page from git). Same repositories: the bench's ` +
    `small one (${
      o.sizes.files.toLocaleString("en")
    } files, ${o.sizes.commits} commits, plus one ` +
    `commit with a README, a 100 KB TypeScript file and a directory seven levels deep) and its big ` +
    `one (a 50 MB incompressible blob). wrk, one connection, ${o.seconds} s per page and server, ` +
    `${o.rounds} rounds with the servers' order rotated; each figure is the median of the rounds' ` +
    `median latencies in ms, with the lowest and highest round in parentheses. Pages differ in ` +
    `content: Signet's home renders the README and the top-level tree, cgit's summary lists ` +
    `branches and recent commits; for the 50 MB file both say it is too large to show. Signet ` +
    `highlights files up to 64 KB (the 100 KB file is shown plain, as cgit shows it).`,
    "",
    `| page | repository | cgit | Signet | Signet / cgit | Signet, no page cache | no cache / cgit |`,
    `| --- | --- | --- | --- | --- | --- | --- |`,
    ...r.rows.map((row) =>
      `| ${row.page} | ${row.repo} | ${cell(row.cgit)} | ${cell(row.signet)} | ${
        ratio(row.signet, row.cgit)
      } | ${cell(row.uncached)} | ${ratio(row.uncached, row.cgit)} |`
    ),
    "",
    `Goal: each page's Signet median ≤ ${BROWSE_RATIO_GOAL.toFixed(1)}x cgit's: ${
      r.rows.every((row) => row.signet.median <= row.cgit.median * BROWSE_RATIO_GOAL)
        ? "met on every page"
        : `missed on ${
          r.rows.filter((row) => row.signet.median > row.cgit.median * BROWSE_RATIO_GOAL)
            .map((row) =>
              `${row.page} (${row.repo})`
            ).join(", ")
        }`
    } (with the page cache); without it, met on ${
      r.rows.filter((row) => row.uncached.median <= row.cgit.median * BROWSE_RATIO_GOAL).length
    } of ${r.rows.length}.`,
    "",
    `Memory with ${o.loadConnections} connections loading every page above in turn for ${o.loadSeconds} s ` +
    `(wrk, 2 threads): the Signet process tree's resident memory (the server and its git ` +
    `children), sampled every 50 ms.`,
    "",
    "| Signet | RSS before | peak RSS | RSS after | requests | requests/s | errors |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...r.memory.map((m) =>
      `| ${m.server === "cached" ? "as it runs" : "no page cache"} | ${mb(m.startRss)} | ${
        mb(m.peakRss)
      } | ${mb(m.endRss)} | ${m.requests.toLocaleString("en")} | ${fmt(m.rps)} | ${m.errors} |`
    ),
    "",
  ];
  return lines;
}

/** `--browse` of bench/run.ts, or this module alone: runs, prints, and writes RESULTS.md (full). */
export async function browseMain(args: { quick: boolean; out?: string }): Promise<number> {
  const opts = BROWSE_SETTINGS[args.quick ? "quick" : "full"];
  const onTmpfs = await Deno.stat("/dev/shm").then(() => true, () => false);
  const work = await Deno.makeTempDir({
    dir: onTmpfs ? "/dev/shm" : undefined,
    prefix: "signet-bench-browse-",
  });
  try {
    const results = await runBrowse(work, opts);
    const section = renderBrowse(results);
    console.log(section.join("\n"));
    const out = args.out ??
      (args.quick ? undefined : new URL("./RESULTS.md", import.meta.url).pathname);
    if (out) {
      await writeSection(out, section.join("\n"));
      await cmd(Deno.execPath(), ["fmt", "--quiet", out]);
      progress(`wrote ${out}`);
    }
    const failed = results.rows.reduce((n, r) =>
      n + r.cgit.errors + r.signet.errors + r.uncached.errors, 0) +
      results.memory.reduce((n, m) => n + m.errors, 0);
    return failed ? 1 : 0;
  } finally {
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { quick: { type: "boolean", default: false }, out: { type: "string" } },
  });
  Deno.exit(await browseMain({ quick: Boolean(values.quick), out: values.out }));
}
