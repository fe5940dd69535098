/**
 * `signet backup <dir>` and `signet restore <dir>`: consistent online snapshots of a data dir. On
 * SQLite the database is a `VACUUM INTO` copy (`signet.db`); with SERVICE_DATABASE_URL it is a
 * `pg_dump --format=custom` archive (`signet.pgdump`) restored with `pg_restore`.
 */
import { integrityCheck, repositoriesIn, snapshotDatabase } from "../../db/sqlite/backup.ts";
import { redactDatabaseUrl, type ServerConfig } from "../config.ts";
import { pathExists } from "../../protocol/fs.ts";
import { runningEngine } from "../instance.ts";
import { copiedMarkerPath, copiedNote } from "../../db/sqlite/copied_marker.ts";

const DB_FILE = "signet.db";
const PG_DUMP_FILE = "signet.pgdump";

/** Secret files kept beside the database: [name inside the backup, live path] (mode 0600). */
function secretFiles(config: ServerConfig): [string, string][] {
  return [
    ["admin_key", config.adminKeyFile],
    ["ssh_host_ed25519_key", config.sshHostKeyPath],
    ["ssh_host_ed25519_key.pub", `${config.sshHostKeyPath}.pub`],
  ];
}

async function copySecret(from: string, to: string): Promise<void> {
  if (!(await pathExists(from))) return;
  await Deno.copyFile(from, to);
  await Deno.chmod(to, 0o600);
}

async function git(args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr).trim()}`);
  }
  return new TextDecoder().decode(out.stdout).trim();
}

async function isEmptyDir(path: string): Promise<boolean> {
  try {
    for await (const _ of Deno.readDir(path)) return false;
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return true;
    if (err instanceof Deno.errors.NotADirectory) {
      throw new Error(`${path} is not a directory (or a part of its path is a file)`);
    }
    throw err;
  }
}

/**
 * Copies one repository by fetching every ref into a new bare repository: git reads the refs once
 * and transfers exactly the objects they need, so the copy is consistent while pushes go on.
 */
async function copyRepo(src: string, dst: string): Promise<void> {
  await git(["init", "--quiet", "--bare", "--initial-branch=main", dst]);
  if (!(await pathExists(src))) return;
  await git(["--git-dir", dst, "fetch", "--quiet", "--no-write-fetch-head", src, "+refs/*:refs/*"]);
  const head = await git(["--git-dir", src, "symbolic-ref", "HEAD"]).catch(() => "");
  if (head) await git(["--git-dir", dst, "symbolic-ref", "HEAD", head]);
}

/**
 * Runs `fill`, which writes into `dir` (empty or absent before it): when it fails, what it made is
 * removed again (the directories it created, up to the first that was there, or the entries it
 * added to `dir`), so a retry finds the target as before instead of half-written. Anything else
 * that appeared meanwhile stays, and a failure to clean up never hides `fill`'s error.
 */
async function allOrNothing<T>(dir: string, fill: () => Promise<T>): Promise<T> {
  const created = await firstMissing(dir);
  const before = created === null
    ? new Set(await Array.fromAsync(Deno.readDir(dir), (e) => e.name).catch(() => []))
    : null;
  try {
    return await fill();
  } catch (err) {
    try {
      if (created !== null) await Deno.remove(created, { recursive: true });
      else {
        for await (const e of Deno.readDir(dir)) {
          if (!before!.has(e.name)) await Deno.remove(`${dir}/${e.name}`, { recursive: true });
        }
      }
    } catch { /* the error that counts is fill's */ }
    throw err;
  }
}

/** The outermost of `path` and its parents that does not exist yet, or null when `path` does. */
async function firstMissing(path: string): Promise<string | null> {
  let missing: string | null = null;
  for (
    let p = path.replace(/\/+$/, "");
    p !== "" && p !== ".";
    p = p.slice(0, p.lastIndexOf("/"))
  ) {
    if (await pathExists(p)) break;
    missing = p;
    if (!p.includes("/")) break;
  }
  return missing;
}

/** Writes a snapshot of the running server's data dir into the new or empty directory `target`. */
export async function backup(config: ServerConfig, target: string): Promise<string[]> {
  if (!(await isEmptyDir(target))) throw new Error(`backup target ${target} is not empty`);
  return await allOrNothing(target, () => backupInto(config, target));
}

async function backupInto(config: ServerConfig, target: string): Promise<string[]> {
  if (config.databaseUrl !== null) return await backupPostgres(config, config.databaseUrl, target);
  if (!(await pathExists(config.databasePath))) {
    throw new Error(
      `no database at ${config.databasePath}: is SERVICE_DATA_DIR right? (A server on PostgreSQL ` +
        "is backed up with its SERVICE_DATABASE_URL set.)",
    );
  }
  if (await runningEngine(config.dataDir) === "postgres") {
    // The embedded file is then what `db copy` left behind, not the live data.
    throw new Error(
      `instances on PostgreSQL are serving ${config.dataDir}, so ${config.databasePath} is not ` +
        "their database: run signet backup with their SERVICE_DATABASE_URL",
    );
  }
  const copied = await copiedNote(config.databasePath);
  if (copied !== null) {
    // With the servers stopped the lock cannot tell: the note left by `db copy` can.
    throw new Error(
      `${copied} ${config.databasePath} may be stale: run signet backup with ` +
        `SERVICE_DATABASE_URL set, or delete ${copiedMarkerPath(config.databasePath)} to back ` +
        "up the embedded file anyway",
    );
  }
  await Deno.mkdir(`${target}/repos`, { recursive: true, mode: 0o700 });
  // The database first: every repository it lists is then copied at or after this moment.
  snapshotDatabase(config.databasePath, `${target}/${DB_FILE}`);
  const repos = repositoriesIn(`${target}/${DB_FILE}`);
  for (const { owner, name } of repos) {
    await Deno.mkdir(`${target}/repos/${owner}`, { recursive: true });
    await copyRepo(
      `${config.reposDir}/${owner}/${name}.git`,
      `${target}/repos/${owner}/${name}.git`,
    );
  }
  for (const [name, live] of secretFiles(config)) await copySecret(live, `${target}/${name}`);
  return repos.map((r) => `${r.owner}/${r.name}`);
}

/** Restores a backup directory into the empty data dir of `config`. */
export async function restore(config: ServerConfig, source: string): Promise<string[]> {
  if (config.databaseUrl !== null) return await restorePostgres(config, config.databaseUrl, source);
  if (await pathExists(`${source}/${PG_DUMP_FILE}`)) {
    throw new Error(
      `${source} is a PostgreSQL backup (${PG_DUMP_FILE}): set SERVICE_DATABASE_URL to an empty database to restore it`,
    );
  }
  if (!(await pathExists(`${source}/${DB_FILE}`))) throw new Error(`${source} holds no ${DB_FILE}`);
  if (!(await isEmptyDir(config.dataDir))) {
    throw new Error(`data dir ${config.dataDir} is not empty; restore only into an empty one`);
  }
  const check = integrityCheck(`${source}/${DB_FILE}`);
  if (check !== "ok") throw new Error(`backup database fails integrity check: ${check}`);
  return await allOrNothing(config.dataDir, async () => {
    await Deno.mkdir(config.reposDir, { recursive: true, mode: 0o700 });
    await Deno.copyFile(`${source}/${DB_FILE}`, config.databasePath);
    const repos = repositoriesIn(config.databasePath);
    for (const { owner, name } of repos) {
      await Deno.mkdir(`${config.reposDir}/${owner}`, { recursive: true });
      await copyRepo(
        `${source}/repos/${owner}/${name}.git`,
        `${config.reposDir}/${owner}/${name}.git`,
      );
    }
    for (const [name, live] of secretFiles(config)) await copySecret(`${source}/${name}`, live);
    return repos.map((r) => `${r.owner}/${r.name}`);
  });
}

/** Copies the repositories `repos` lists and the secret files from `fromDir`/live into place. */
async function copyFiles(
  repos: string[],
  repoPath: (fullName: string) => [string, string],
  secrets: [string, string][],
): Promise<void> {
  for (const full of repos) {
    const [src, dst] = repoPath(full);
    await Deno.mkdir(dst.slice(0, dst.lastIndexOf("/")), { recursive: true });
    await copyRepo(src, dst);
  }
  for (const [from, to] of secrets) await copySecret(from, to);
}

/**
 * pg_dump or pg_restore: on `path` (the server's PATH, read once by server/config.ts) first, then in
 * /usr/lib/postgresql/<newest>/bin.
 */
async function pgTool(name: "pg_dump" | "pg_restore", path: string): Promise<string> {
  for (const dir of path.split(":").filter(Boolean)) {
    if (await pathExists(`${dir}/${name}`)) return `${dir}/${name}`;
  }
  const versions: number[] = [];
  try {
    for await (const e of Deno.readDir("/usr/lib/postgresql")) {
      if (/^\d+$/.test(e.name)) versions.push(Number(e.name));
    }
  } catch { /* not installed there */ }
  for (const v of versions.sort((a, b) => b - a)) {
    const path = `/usr/lib/postgresql/${v}/bin/${name}`;
    if (await pathExists(path)) return path;
  }
  throw new Error(
    `${name} not found (on PATH or in /usr/lib/postgresql/*/bin): install the PostgreSQL client ` +
      "tools (apt-get install -y postgresql-client) to back up or restore a PostgreSQL database",
  );
}

/**
 * Runs pg_dump/pg_restore against `url`: the password travels in PGPASSWORD, never in argv; the
 * URL on the command line has none.
 */
async function runPgTool(
  name: "pg_dump" | "pg_restore",
  args: string[],
  url: string,
  path: string,
): Promise<void> {
  const program = await pgTool(name, path);
  const u = new URL(url);
  const password = decodeURIComponent(u.password);
  u.password = "";
  const env: Record<string, string> = password ? { PGPASSWORD: password } : {};
  const out = await new Deno.Command(program, {
    args: [...args, `--dbname=${u.toString()}`],
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    let err = new TextDecoder().decode(out.stderr).trim();
    if (password) err = err.split(password).join("***");
    throw new Error(`${name} of ${redactDatabaseUrl(url)} failed: ${err}`);
  }
}

async function reposOf(url: string): Promise<string[]> {
  const { openPostgresStore } = await import("../../db/postgres/store.ts");
  const store = await openPostgresStore(url);
  try {
    return (await store.repos.list()).map((r) => `${r.owner}/${r.name}`);
  } finally {
    await store.close();
  }
}

async function backupPostgres(
  config: ServerConfig,
  url: string,
  target: string,
): Promise<string[]> {
  await pgTool("pg_dump", config.gitPath); // fail before writing anything when it is missing
  await Deno.mkdir(`${target}/repos`, { recursive: true, mode: 0o700 });
  // The database first: every repository it lists is then copied at or after this moment.
  await runPgTool(
    "pg_dump",
    ["--format=custom", "--no-owner", `--file=${target}/${PG_DUMP_FILE}`],
    url,
    config.gitPath,
  );
  await Deno.chmod(`${target}/${PG_DUMP_FILE}`, 0o600);
  const repos = await reposOf(url);
  await copyFiles(
    repos,
    (full) => [`${config.reposDir}/${full}.git`, `${target}/repos/${full}.git`],
    secretFiles(config).map(([name, live]) => [live, `${target}/${name}`]),
  );
  return repos;
}

async function restorePostgres(
  config: ServerConfig,
  url: string,
  source: string,
): Promise<string[]> {
  if (!(await pathExists(`${source}/${PG_DUMP_FILE}`))) {
    throw new Error(
      `${source} holds no ${PG_DUMP_FILE}` +
        (await pathExists(`${source}/${DB_FILE}`)
          ? ` (it is an embedded SQLite backup: restore it without SERVICE_DATABASE_URL, then use signet db copy)`
          : ""),
    );
  }
  if (!(await isEmptyDir(config.dataDir))) {
    throw new Error(`data dir ${config.dataDir} is not empty; restore only into an empty one`);
  }
  await pgTool("pg_restore", config.gitPath);
  const { existingTables } = await import("../../db/postgres/backup.ts");
  const tables = await existingTables(url);
  if (tables.length > 0) {
    throw new Error(
      `database ${redactDatabaseUrl(url)} is not empty (it has ${tables.length} tables, e.g. ${
        tables[0]
      }); restore only into a new, empty database (createdb)`,
    );
  }
  await runPgTool(
    "pg_restore",
    [
      "--no-owner",
      "--no-privileges",
      "--single-transaction",
      "--exit-on-error",
      `${source}/${PG_DUMP_FILE}`,
    ],
    url,
    config.gitPath,
  );
  // The database is restored (one transaction); the files follow, all or none of them.
  try {
    return await allOrNothing(config.dataDir, async () => {
      await Deno.mkdir(config.reposDir, { recursive: true, mode: 0o700 });
      const repos = await reposOf(url);
      await copyFiles(
        repos,
        (full) => [`${source}/repos/${full}.git`, `${config.reposDir}/${full}.git`],
        secretFiles(config).map(([name, live]) => [`${source}/${name}`, live]),
      );
      return repos;
    });
  } catch (err) {
    throw new Error(
      `${(err as Error).message} (the database ${redactDatabaseUrl(url)} was restored, the ` +
        "files were not: drop and create it again before a retry)",
    );
  }
}
