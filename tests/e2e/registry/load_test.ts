/**
 * Load: HOSTILE_LOAD_SECONDS (default 120, as issue 8 asks) of mixed traffic from many clients
 * against one server with rate limits on, through the HTTP connection guard: API and registry
 * reads, full logins, registry writes (create + update), clones, pushes to own branches and rounds
 * of pushes to one contested branch, plus two abusers (login challenges for one user, updates of
 * one bot) who are meant to get 429. After a warm-up of the same traffic the load runs as two
 * equal rounds. Asserts zero errors other than the abusers' 429s, every acknowledged push present,
 * git fsck and SQLite integrity clean, and that memory does not grow with the load: the server's
 * settled anonymous RSS does not grow by more than MEMORY_GROWTH of the post-warm-up baseline in
 * both rounds.
 */
import { ON_POSTGRES } from "../../../testing/postgres.ts";
import { assert, assertEquals } from "../../helpers/assert.ts";
import { login, type TestUser, userWithRepo } from "../../../testing/accounts.ts";
import { client, newKey } from "../../helpers/registry.ts";
import { RegistryError, type Signer } from "../../../client/registry.ts";
import { gitEnv, run, runOk } from "../../../testing/run.ts";
import { assertDatabaseIntact, serverTest, type TestServer } from "../../helpers/server.ts";
import { commitFile } from "../../helpers/git.ts";

const SECONDS = Number(Deno.env.get("HOSTILE_LOAD_SECONDS") ?? 120);
const ROUNDS = 2;
const WARMUP_SECONDS = 15;
const QUIET_SECONDS = 30;
const PUSHERS = 3;
const CONTENDERS = 4;
/**
 * What one round of the load may add to the settled anonymous RSS, as a share of the baseline after
 * the warm-up, in at least one of the two rounds. A leak grows with the work, so it shows in both
 * rounds: the guard that kept closed connections in its table grew ~100 MB in 120 s, ~50 MB a
 * round (more than 0.25 of a ~65 MB baseline, twice over). Without one, what the server keeps
 * (caches, heap sizing, compiled code) lands in the first round and the second adds only noise:
 * ±3 MB on an idle machine; the old bound (baseline + 10 MB after the whole load) failed at +11 MB
 * when other work slowed the warm-up and the collector. Needing growth in both rounds, each over
 * ~16 MB, keeps noise out and any leak of more than ~0.3 MB/s of this load in. Absolute memory
 * figures are the bench's (bench/RESULTS.md, parallel clones).
 */
const MEMORY_GROWTH = 0.25;

/** A resident size of `pid` in MiB from /proc: `RssAnon` (anonymous memory) or `VmRSS` (all). */
async function rssMb(pid: number, field: "RssAnon" | "VmRSS" = "RssAnon"): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)![1]) / 1024;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The lowest anonymous RSS (MiB) seen once a second for `seconds`. */
async function settledRss(pid: number, seconds: number): Promise<number> {
  let low = await rssMb(pid);
  for (let i = 0; i < seconds; i++) {
    await sleep(1000);
    low = Math.min(low, await rssMb(pid));
  }
  return low;
}

/** Counts of what happened, by kind; `errors` lists everything that should not have. */
class Tally {
  readonly counts = new Map<string, number>();
  readonly errors: string[] = [];
  readonly latencies: number[] = [];
  add(kind: string): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
  }
  error(what: string): void {
    this.add("error");
    if (this.errors.length < 20) this.errors.push(what);
  }
  /** Adds another round's counts, errors and latencies to these. */
  merge(other: Tally): void {
    for (const [kind, n] of other.counts) this.counts.set(kind, (this.counts.get(kind) ?? 0) + n);
    for (const e of other.errors) if (this.errors.length < 20) this.errors.push(e);
    for (const l of other.latencies) this.latencies.push(l);
  }
}

// Four minutes of wall time whatever the engine; the PostgreSQL run skips it so the two runs
// stay inside CI's 15 minutes (docs/decisions/storage.md, "The suite on both engines").
serverTest(
  `load: ${SECONDS} s of mixed traffic in ${ROUNDS} rounds, memory does not grow with it`,
  {
    ignore: ON_POSTGRES,
    env: {
      SERVICE_RATE_LIMITS: "on",
      // Every client is 127.0.0.1: per-IP buckets are opened up so that only the per-user and
      // per-bot buckets the abusers hammer produce 429s.
      SERVICE_RATE_LIMIT_LOGIN_IP: "100000/100000",
      SERVICE_RATE_LIMIT_NONCE_IP: "100000/100000",
      SERVICE_RATE_LIMIT_REGISTRY_WRITE_IP: "100000/100000",
      SERVICE_RATE_LIMIT_SIGNUP_IP: "100/100",
      SERVICE_RATE_LIMIT_LOGIN_USER: "60/60",
      SERVICE_RATE_LIMIT_REGISTRY_WRITE_BOT: "20/20",
    },
  },
  async (server) => {
    const home = await Deno.makeTempDir({ prefix: "signet-home-" });
    const env = gitEnv(home);
    const { user: alice, token } = await userWithRepo(server, "alice", "load");
    const url = `http://alice:${token}@127.0.0.1:${server.httpPort}/alice/load.git`;
    const gitDir = `${server.dataDir}/repos/alice/load.git`;
    const registry = client(server.registryUrl);
    const readKey = await newKey("k1");
    await registry.createBot({ bot_id: "reader-bot", keys: [readKey.pub] }, [readKey.signer]);
    const victimKey = await newKey("k1");
    await registry.createBot({ bot_id: "victim-bot", keys: [victimKey.pub] }, [
      victimKey.signer,
    ]);
    await runOk("git", ["init", "-q", "-b", "main", `${home}/seed`], { env });
    await runOk("git", ["commit", "-q", "--allow-empty", "-m", "root"], {
      cwd: `${home}/seed`,
      env,
    });
    await runOk("git", ["push", "-q", url, "main"], { cwd: `${home}/seed`, env });

    const lastAcked = new Map<string, string>();
    const traffic = (seconds: number, phase: string) =>
      mixedTraffic({
        server,
        alice,
        token,
        url,
        gitDir,
        home,
        env,
        seconds,
        phase,
        lastAcked,
        victimSigner: victimKey.signer,
      });

    // Settled memory after each round: the lowest RSS in a quiet window (the collector returns
    // memory 5-25 s after traffic stops, so one reading right away would be too high).
    let peak = 0; // all of RSS, file-backed pages included
    const sampler = setInterval(async () => {
      peak = Math.max(peak, await rssMb(server.pid, "VmRSS").catch(() => 0));
    }, 1000);
    await traffic(WARMUP_SECONDS, "warmup");
    const baseline = await settledRss(server.pid, QUIET_SECONDS);
    const started = performance.now();
    const tally = new Tally();
    const settled: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const t = await traffic(SECONDS / ROUNDS, `round${round}`);
      tally.merge(t);
      settled.push(await settledRss(server.pid, QUIET_SECONDS));
    }
    const elapsed = (performance.now() - started) / 1000 - ROUNDS * QUIET_SECONDS;
    clearInterval(sampler);
    const growth = settled.map((mb, i) => mb - (i === 0 ? baseline : settled[i - 1]));
    const bound = baseline * MEMORY_GROWTH;

    const lat = tally.latencies.sort((a, b) => a - b);
    const pct = (p: number) => lat[Math.floor((lat.length - 1) * p)]?.toFixed(1);
    console.log(
      `load ${elapsed.toFixed(1)} s in ${ROUNDS} rounds: ${
        JSON.stringify(Object.fromEntries([...tally.counts].sort()))
      }; HTTP p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms; settled anonymous RSS after the warm-up ${
        baseline.toFixed(0)
      } MB, after each round ${settled.map((mb) => mb.toFixed(0)).join(", ")} MB (growth ${
        growth.map((mb) => mb.toFixed(1)).join(", ")
      } MB, bound ${bound.toFixed(1)} MB in at least one), peak RSS ${peak.toFixed(0)} MB`,
    );
    assertEquals(tally.errors, []);
    assert((tally.counts.get("login abuse 429") ?? 0) > 0, "the login abuser was never limited");
    assert((tally.counts.get("bot abuse 429") ?? 0) > 0, "the bot abuser was never limited");
    for (const kind of ["clone", "login", "registry write", "branch push", "contested round"]) {
      assert((tally.counts.get(kind) ?? 0) > 0, `no ${kind} completed`);
    }
    assert(
      growth.some((mb) => mb <= bound),
      `settled anonymous RSS grew in every round of the same load: ${baseline.toFixed(1)} MB ` +
        `after the warm-up, then ${settled.map((mb) => mb.toFixed(1)).join(", ")} MB (each ` +
        `round more than ${bound.toFixed(1)} MB, ${MEMORY_GROWTH} of the baseline): a leak`,
    );

    for (const [branch, head] of lastAcked) {
      const now = (await runOk("git", ["--git-dir", gitDir, "rev-parse", branch], { env })).trim();
      assertEquals(now, head, `${branch}: acknowledged push missing`);
    }
    assertEquals(lastAcked.size, PUSHERS);
    const fsck = await run("git", ["--git-dir", gitDir, "fsck", "--full", "--no-dangling"], {
      env,
    });
    assertEquals(fsck.code, 0, fsck.stderr);
    const health = await fetch(`${server.httpUrl}/api/health`);
    assertEquals(health.status, 200, await health.text());
    assertDatabaseIntact(server); // SQLite's own check (PostgreSQL keeps no file here)
  },
);

interface TrafficOptions {
  server: TestServer;
  alice: TestUser;
  token: string;
  url: string;
  gitDir: string;
  home: string;
  env: Record<string, string>;
  seconds: number;
  phase: string;
  /** Branch → last acknowledged commit, across phases. */
  lastAcked: Map<string, string>;
  /** Signs updates of `victim-bot`. */
  victimSigner: Signer;
}

/** Runs every client loop for `seconds`; returns what happened. */
async function mixedTraffic(o: TrafficOptions): Promise<Tally> {
  const { server, env, url, gitDir } = o;
  const end = Date.now() + o.seconds * 1000;
  const tally = new Tally();
  const dir = `${o.home}/${o.phase}`;
  await Deno.mkdir(dir);
  const H = server.httpUrl;
  const R = server.registryUrl;
  const registry = client(R);

  /** One HTTP request; any status but `expected` (or 429 when `limited`) is an error. */
  const request = async (
    kind: string,
    method: string,
    u: string,
    opts: { body?: unknown; expected?: number; limited?: boolean } = {},
  ) => {
    const t0 = performance.now();
    try {
      const res = await fetch(u, {
        method,
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        headers: opts.body === undefined ? {} : { "Content-Type": "application/json" },
      });
      await res.body?.cancel();
      tally.latencies.push(performance.now() - t0);
      if (res.status === (opts.expected ?? 200)) tally.add(kind);
      else if (res.status === 429 && opts.limited) tally.add(`${kind} 429`);
      else tally.error(`${kind}: ${method} ${u} → ${res.status}`);
    } catch (err) {
      tally.error(`${kind}: ${method} ${u} → ${err}`);
    }
  };

  const reader = async () => {
    const calls: [string, string][] = [
      ["api read", `${H}/api/health`],
      ["api read", `${H}/api/repos`],
      ["api read", `${H}/api/repos/alice/load`],
      ["api read", `${H}/alice/load.git/info/refs?service=git-upload-pack`],
      ["registry read", `${R}/v1/bots/reader-bot`],
      ["registry read", `${R}/v1/stats`],
      ["registry read", `${R}/v1/search?q=reader`],
      ["registry read", `${R}/v1/nonce`],
    ];
    for (let i = 0; Date.now() < end; i++) {
      const [kind, u] = calls[i % calls.length];
      await request(kind, "GET", u);
    }
  };

  // Full logins, paced under the per-user limit (60 per minute).
  const logins = async () => {
    while (Date.now() < end) {
      const t0 = Date.now();
      try {
        await login(server, o.alice);
        tally.add("login");
      } catch (err) {
        tally.error(`login: ${err}`);
      }
      await sleep(Math.max(0, 1500 - (Date.now() - t0)));
    }
  };

  // Abuser 1: login challenges for one user as fast as they come back; 429 is the point.
  const loginAbuser = async () => {
    while (Date.now() < end) {
      await request("login abuse", "POST", `${H}/api/login/challenge`, {
        body: { username: "mallory" },
        limited: true,
      });
    }
  };

  // Registry writes: new bots, each created and updated twice (under the per-bot limit).
  const registryWriter = async () => {
    for (let n = 0; Date.now() < end; n++) {
      const botId = `${o.phase}-bot-${n}`;
      try {
        const key = await newKey("k1");
        await registry.createBot({ bot_id: botId, keys: [key.pub] }, [key.signer]);
        await registry.updateBot(botId, { description: "first" }, [key.signer]);
        await registry.updateBot(botId, { description: "second" }, [key.signer]);
        tally.add("registry write");
      } catch (err) {
        tally.error(`registry write ${botId}: ${err}`);
      }
    }
  };

  // Abuser 2: valid signed updates of one bot, far over its per-bot limit.
  const botAbuser = async () => {
    for (let n = 0; Date.now() < end; n++) {
      try {
        await registry.updateBot("victim-bot", { description: `${o.phase} ${n}` }, [
          o.victimSigner,
        ]);
        tally.add("bot abuse");
      } catch (err) {
        if (err instanceof RegistryError && err.status === 429) tally.add("bot abuse 429");
        else tally.error(`bot abuse: ${err}`);
      }
    }
  };

  const cloner = async () => {
    for (let i = 0; Date.now() < end; i++) {
      const target = `${dir}/clone-${i}`;
      const r = await run("git", ["clone", "-q", "--bare", url, target], { env });
      if (r.code === 0) tally.add("clone");
      else tally.error(`clone: ${r.stderr}`);
      await Deno.remove(target, { recursive: true }).catch(() => {});
    }
  };

  // Pushers: a series of commits to their own branch each; remember the last acknowledged.
  const pusher = async (n: number) => {
    const work = `${dir}/p${n}`;
    await runOk("git", ["clone", "-q", url, work], { env });
    await runOk("git", ["checkout", "-q", "-B", `p${n}`], { cwd: work, env });
    const acked = o.lastAcked.get(`p${n}`);
    if (acked) await runOk("git", ["reset", "-q", "--hard", `origin/p${n}`], { cwd: work, env });
    for (let i = 0; Date.now() < end; i++) {
      const head = await commitFile(work, env, "f.txt", `${o.phase}-${n}-${i}\n`, `${n}-${i}`);
      const r = await run("git", ["push", "-q", url, `p${n}`], { cwd: work, env });
      if (r.code === 0) {
        o.lastAcked.set(`p${n}`, head);
        tally.add("branch push");
      } else tally.error(`push p${n}: ${r.stderr}`);
    }
  };

  // Contested branch: rounds of CONTENDERS pushes from the same parent; at most one may win,
  // the others are refused as non-fast-forward (deliberately, not errors).
  const contested = async () => {
    const clones: string[] = [];
    for (let c = 0; c < CONTENDERS; c++) {
      clones.push(`${dir}/c${c}`);
      await runOk("git", ["clone", "-q", url, clones[c]], { env });
    }
    for (let round = 0; Date.now() < end; round++) {
      // In steps, all contenders at once: each commits on the same parent before anyone pushes.
      const head = (work: string) => runOk("git", ["rev-parse", "HEAD"], { cwd: work, env });
      await Promise.all(clones.map(async (work) => {
        await runOk("git", ["fetch", "-q", "origin"], { cwd: work, env });
        await runOk("git", ["reset", "-q", "--hard", "origin/main"], { cwd: work, env });
      }));
      const parents = new Set(await Promise.all(clones.map(head)));
      if (parents.size !== 1) tally.error(`round ${round}: contenders on different parents`);
      const heads = await Promise.all(clones.map(async (work, c) => {
        const message = `r${round}-c${c}`;
        await runOk("git", ["commit", "-q", "--allow-empty", "-m", message], { cwd: work, env });
        return (await head(work)).trim();
      }));
      const results = await Promise.all(clones.map(async (work, c) => {
        const r = await run("git", ["push", "-q", "origin", "main"], { cwd: work, env });
        if (r.code !== 0 && !/non-fast-forward|fetch first|rejected/.test(r.stderr)) {
          tally.error(`contested push: ${r.stderr}`);
        }
        return { ok: r.code === 0, head: heads[c] };
      }));
      const winners = results.filter((r) => r.ok);
      const main = (await runOk("git", ["--git-dir", gitDir, "rev-parse", "main"], { env })).trim();
      if (winners.length > 1) tally.error(`round ${round}: ${winners.length} pushes acknowledged`);
      else if (winners.length === 1 && main !== winners[0].head) {
        tally.error(`round ${round}: the acknowledged push is not the branch head`);
      }
      tally.add("contested round");
    }
  };

  await Promise.all([
    reader(),
    reader(),
    logins(),
    loginAbuser(),
    registryWriter(),
    botAbuser(),
    cloner(),
    contested(),
    ...Array.from({ length: PUSHERS }, (_, n) => pusher(n)),
  ]);
  return tally;
}
