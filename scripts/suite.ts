/**
 * `deno task test`: the suite on both storage engines at once. The SQLite run is every test but
 * the cluster tests; the PostgreSQL run is the end-to-end suite (tests/e2e/) with each server
 * launched on a fresh database of a throwaway cluster (testing/postgres.ts;
 * SERVICE_TEST_POSTGRES_URL tells testing/launch.ts). The cluster tests (tests/e2e/cluster/:
 * several instances behind nginx, which needs PostgreSQL) run once, in the PostgreSQL run.
 * SERVICE_TEST_ENGINES=sqlite (or postgres) runs one. Arguments replace the default test paths.
 * Each run gets its own TMPDIR, removed when the run ends, so that whatever its tests, servers,
 * git or ssh-keygen leave in temporary directories does not pile up in /tmp run after run.
 */
import { startPostgres } from "../testing/postgres.ts";

/** Every test file (unit tests beside their modules, tests/e2e/, tests/project/). */
const SQLITE_PATHS: string[] = [];
/** The end-to-end suite: the tests that start servers. */
const POSTGRES_PATHS = ["tests/e2e/"];
/** Tests of PostgreSQL only: never in the SQLite run, even when named as arguments. */
const POSTGRES_ONLY = "tests/e2e/cluster/";

const engines = (Deno.env.get("SERVICE_TEST_ENGINES") ?? "sqlite,postgres").split(",")
  .map((e) => e.trim()).filter(Boolean);
for (const e of engines) {
  if (e !== "sqlite" && e !== "postgres") {
    console.error(`SERVICE_TEST_ENGINES: unknown engine "${e}" (sqlite, postgres)`);
    Deno.exit(2);
  }
}

/**
 * Runs `deno test` on `paths` with `env` and a TMPDIR of its own (removed afterwards), each output
 * line prefixed with `[name]`.
 */
async function suite(
  name: string,
  paths: string[],
  env: Record<string, string>,
  flags: string[] = [],
): Promise<number> {
  // Short: the throwaway clusters' socket paths under it must stay within 107 bytes.
  const tmp = await Deno.makeTempDir({ prefix: `sg-${name}-` });
  // Traversable by the throwaway clusters' unprivileged user (testing/postgres.ts).
  await Deno.chmod(tmp, 0o755);
  try {
    return await run(name, paths, { ...env, TMPDIR: tmp }, flags);
  } finally {
    const left = [...Deno.readDirSync(tmp)].length;
    if (left) console.log(`[${name}] removing ${left} temporary entries the tests left in ${tmp}`);
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
}

/** `deno test` itself, for `suite`. */
async function run(
  name: string,
  paths: string[],
  env: Record<string, string>,
  flags: string[],
): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["test", "-A", "--parallel", ...flags, ...paths],
    env,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const prefix = async (stream: ReadableStream<Uint8Array>, out: (s: string) => void) => {
    let rest = "";
    const decoder = new TextDecoder();
    for await (const bytes of stream) {
      const lines = (rest + decoder.decode(bytes, { stream: true })).split("\n");
      rest = lines.pop()!;
      for (const line of lines) out(`[${name}] ${line}\n`);
    }
    if (rest) out(`[${name}] ${rest}\n`);
  };
  const encoder = new TextEncoder();
  const write = (s: string) => Deno.stdout.writeSync(encoder.encode(s));
  await Promise.all([prefix(child.stdout, write), prefix(child.stderr, write)]);
  return (await child.status).code;
}

const runs: Promise<[string, number]>[] = [];
/** Whether `path` (as given on the command line) lies under POSTGRES_ONLY. */
const postgresOnly = (path: string) =>
  `${path.replace(/^\.\//, "").replace(/\/?$/, "/")}`.startsWith(POSTGRES_ONLY);
// Paths all of PostgreSQL's own leave nothing for the SQLite run (deno test would find no module).
const sqlitePaths = Deno.args.length ? Deno.args.filter((p) => !postgresOnly(p)) : SQLITE_PATHS;
if (engines.includes("sqlite") && !(Deno.args.length && sqlitePaths.length === 0)) {
  runs.push(
    suite("sqlite", sqlitePaths, {}, [`--ignore=${POSTGRES_ONLY}`])
      .then((code) => ["sqlite", code]),
  );
}
if (engines.includes("postgres")) {
  let cluster;
  try {
    cluster = await startPostgres();
  } catch (err) {
    console.error(
      `cannot start a throwaway PostgreSQL for the PostgreSQL run: ${(err as Error).message}\n` +
        "install it (apt-get install -y postgresql), or run only SQLite: " +
        "SERVICE_TEST_ENGINES=sqlite deno task test",
    );
    Deno.exit(1);
  }
  const paths = Deno.args.length ? Deno.args : POSTGRES_PATHS;
  runs.push(
    suite("postgres", paths, { SERVICE_TEST_POSTGRES_URL: cluster.url("postgres") })
      .finally(() => cluster.destroy())
      .then((code) => ["postgres", code]),
  );
}
if (runs.length === 0) {
  console.error(`${POSTGRES_ONLY} runs on PostgreSQL only: SERVICE_TEST_ENGINES=postgres`);
  Deno.exit(2);
}
const results = await Promise.all(runs);
for (const [name, code] of results) console.log(`${name}: ${code === 0 ? "passed" : "FAILED"}`);
Deno.exit(results.every(([, code]) => code === 0) ? 0 : 1);
