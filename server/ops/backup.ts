/** `signet backup <dir>` and `signet restore <dir>`: consistent online snapshots of a data dir. */
import { integrityCheck, repositoriesIn, snapshotDatabase } from "../../db/sqlite/backup.ts";
import type { ServerConfig } from "../config.ts";
import { pathExists } from "../../protocol/fs.ts";

const DB_FILE = "signet.db";

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

/** Writes a snapshot of the running server's data dir into the new or empty directory `target`. */
export async function backup(config: ServerConfig, target: string): Promise<string[]> {
  if (!(await isEmptyDir(target))) throw new Error(`backup target ${target} is not empty`);
  if (!(await pathExists(config.databasePath))) {
    throw new Error(`no database at ${config.databasePath}: is SERVICE_DATA_DIR right?`);
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
  if (!(await pathExists(`${source}/${DB_FILE}`))) throw new Error(`${source} holds no ${DB_FILE}`);
  if (!(await isEmptyDir(config.dataDir))) {
    throw new Error(`data dir ${config.dataDir} is not empty; restore only into an empty one`);
  }
  const check = integrityCheck(`${source}/${DB_FILE}`);
  if (check !== "ok") throw new Error(`backup database fails integrity check: ${check}`);
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
}
