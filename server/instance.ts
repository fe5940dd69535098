/**
 * One instance's claim on the data dir. Several `signet serve` processes may share one data dir
 * (repositories on shared storage) when they share one PostgreSQL database; each keeps its
 * process-private files in its own `<data dir>/run/<instance name>/`. Two advisory file locks,
 * held for the process's life and released by the kernel when it exits (so a killed process never
 * blocks a restart), keep that safe:
 *
 * - `<data dir>/run/data.lock`: shared by every instance on PostgreSQL, exclusive on the embedded
 *   SQLite database (one process's file), so a SQLite instance never runs beside another instance;
 * - `<instance dir>/lock`: exclusive, so two processes never take the same instance name.
 *
 * The instance lock file holds its holder's pid and host, for the refusal message only.
 */
import type { Engine } from "../db/store.ts";
import { ConfigError, type ServerConfig } from "./config.ts";

/** The held locks; `release` lets them go (process exit does too). */
export interface InstanceClaim {
  release(): void;
}

/**
 * Claims the data dir for this instance (`engine`: the database it runs on), creating the
 * instance directory (mode 0700). Throws ConfigError saying who holds it and what to do when
 * another live process does.
 */
export async function claimInstance(
  config: Pick<ServerConfig, "dataDir" | "instanceName" | "instanceDir">,
  engine: Engine,
): Promise<InstanceClaim> {
  const runDir = `${config.dataDir}/run`;
  try {
    await Deno.mkdir(runDir, { recursive: true, mode: 0o700 });
    await Deno.chmod(runDir, 0o700);
  } catch (err) {
    // The first thing written in the data dir: a file in its place, no permission, a read-only disk.
    throw new ConfigError(
      `SERVICE_DATA_DIR=${config.dataDir}: cannot be used as the data directory (${
        (err as Error).message
      })`,
    );
  }
  const data = await lockFile(`${runDir}/data.lock`, engine === "sqlite", false);
  if (!data.held) {
    throw new ConfigError(
      engine === "sqlite"
        ? `another signet serve is running on the data directory ${config.dataDir}; the ` +
          `embedded SQLite database belongs to one process: to run several instances on one ` +
          `data directory, give them one PostgreSQL database (SERVICE_DATABASE_URL)`
        : `a signet serve on the embedded SQLite database is running on the data directory ` +
          `${config.dataDir}; stop it before starting instances that share this data directory`,
    );
  }
  try {
    await Deno.mkdir(config.instanceDir, { recursive: true, mode: 0o700 });
    await Deno.chmod(config.instanceDir, 0o700);
    const own = await lockFile(`${config.instanceDir}/lock`, true);
    if (!own.held) {
      throw new ConfigError(
        `instance "${config.instanceName}" is already running on the data directory ${config.dataDir}${
          own.holder ? ` (${own.holder})` : ""
        }; give each instance its own SERVICE_INSTANCE_NAME`,
      );
    }
    return {
      release() {
        own.release();
        data.release();
      },
    };
  } catch (err) {
    data.release();
    throw err;
  }
}

/**
 * Holds the data dir `dataDir` as a server on its embedded database would (an exclusive lock on
 * `run/data.lock`), so that no server starts on it meanwhile; null when a server serves it now.
 * For work that must see the data dir at rest (`signet db copy`).
 */
export async function holdDataDirAtRest(dataDir: string): Promise<{ release(): void } | null> {
  const runDir = `${dataDir}/run`;
  await Deno.mkdir(runDir, { recursive: true, mode: 0o700 });
  const lock = await lockFile(`${runDir}/data.lock`, true, false);
  return lock.held ? lock : null;
}

/**
 * The engine of the instances serving the data dir `dataDir` right now, from how they hold
 * `run/data.lock` (exclusive: one on SQLite; shared: some on PostgreSQL); null when none runs.
 * Probing takes the lock for an instant; a server starting then retries (`tryLockAwhile`).
 */
export async function runningEngine(dataDir: string): Promise<Engine | null> {
  let file: Deno.FsFile;
  try {
    // Writable: where flock is emulated by fcntl locks (NFS), an exclusive one needs it.
    file = await Deno.open(`${dataDir}/run/data.lock`, { read: true, write: true });
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
  try {
    if (await file.tryLock(true)) return null;
    if (await file.tryLock(false)) return "postgres";
    return "sqlite";
  } finally {
    file.close();
  }
}

/** Tries to lock `file` a few times over ~0.5 s: `runningEngine` holds it for an instant. */
async function tryLockAwhile(file: Deno.FsFile, exclusive: boolean): Promise<boolean> {
  for (let attempt = 0; attempt < 5; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, 100));
    if (await file.tryLock(exclusive)) return true;
  }
  return false;
}

interface Lock {
  held: boolean;
  /** Who holds it, from the file, when `held` is false. */
  holder?: string;
  release(): void;
}

/**
 * Tries to lock `path` (created 0600), exclusively or shared, never waiting; `signed`: write
 * this process's pid and host into it.
 */
async function lockFile(path: string, exclusive: boolean, signed = exclusive): Promise<Lock> {
  const file = await Deno.open(path, { read: true, write: true, create: true, mode: 0o600 });
  if (!await tryLockAwhile(file, exclusive)) {
    file.close();
    let holder: string | undefined;
    try {
      holder = (await Deno.readTextFile(path)).trim().split("\n")[0] || undefined;
    } catch { /* gone meanwhile */ }
    return { held: false, holder, release() {} };
  }
  if (signed) {
    // The holder's identity, for another process's refusal message.
    await file.truncate(0);
    await file.write(new TextEncoder().encode(`pid ${Deno.pid} on ${Deno.hostname()}\n`));
  }
  let released = false;
  return {
    held: true,
    release() {
      if (released) return;
      released = true;
      try {
        file.unlockSync();
        file.close();
      } catch { /* closed already */ }
    },
  };
}
