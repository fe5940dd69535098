/** `signet serve`: opens the data dir and database, then starts every enabled listener. */
import { openStore } from "../db/open.ts";
import { copiedNote, copiedTarget } from "../db/sqlite/copied_marker.ts";
import { embeddedData, holdsData } from "../db/sqlite/embedded_data.ts";
import { resolveAdminKey } from "./admin_key.ts";
import {
  type BindAddress,
  ConfigError,
  loadServerConfig,
  redactDatabaseUrl,
  type ServerConfig,
} from "./config.ts";
import type { Signet } from "./context.ts";
import { hostingApp } from "./http/app.ts";
import {
  DEFAULT_MAX_CONNECTIONS_PER_IP,
  type HttpHandler,
  type HttpListener,
  type LocalReads,
  MAX_HEADER_BYTES,
  serveGuarded,
} from "./http/connection_guard.ts";
import { withForwardedClients } from "./http/client_address.ts";
import { log, setLogInstance } from "./log.ts";
import project from "../deno.json" with { type: "json" };
import { openRegistry, type RegistryContext } from "./registry/context.ts";
import { guardRegistryReads } from "./registry/http/fast_reads.ts";
import { purgeExpiredRegistryNonces } from "./registry/maintenance.ts";
import { DEFAULT_SSH_LIMITS, type SshServer, startSshServer } from "./ssh/server.ts";
import { RateLimiter } from "./ratelimit.ts";
import {
  emptyRepoTrash,
  maintenanceRuns,
  pruneCloneCache,
  startMaintenance,
} from "./maintenance.ts";
import { CloneCache } from "./domain/clone_cache.ts";
import { recoverAtStart } from "./domain/stale_locks.ts";
import { emptyTrash } from "./domain/repo_locks.ts";
import { activeTransfers, drainTransfers } from "./transfers.ts";
import { fixMmapThreshold, releaseMemoryWhenIdle } from "./memory.ts";
import { claimInstance } from "./instance.ts";
import {
  gitTransfers,
  httpRequests,
  logins,
  setMetricsInstance,
  sshSessionsActive,
} from "./metrics.ts";

/** A running server, for tests and graceful shutdown. */
export interface RunningServer {
  ctx: Signet;
  http: HttpListener | null;
  registry: HttpListener | null;
  ssh: SshServer | null;
  close(): Promise<void>;
}

/** Starts Signet with `config` (default: from env) and returns once every listener is up. */
export async function startServer(
  config: ServerConfig = loadServerConfig(),
): Promise<RunningServer> {
  setLogInstance(config.instanceName);
  setMetricsInstance(config.instanceName, project.version);
  // Before anything touches the data dir: no second process with this name, nor beside SQLite.
  const claim = await claimInstance(config, config.databaseUrl === null ? "sqlite" : "postgres");
  try {
    return await startClaimed(config, claim.release);
  } catch (err) {
    claim.release();
    throw err;
  }
}

async function startClaimed(config: ServerConfig, release: () => void): Promise<RunningServer> {
  if (config.databaseUrl !== null) await checkEmbeddedDataBeside(config, config.databaseUrl);
  await Deno.mkdir(config.reposDir, { recursive: true, mode: 0o700 });
  // Request bodies this instance spilled before it was killed: its own directory, nobody else's.
  await Deno.remove(`${config.instanceDir}/tmp`, { recursive: true }).catch((err) => {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  });
  // Files a killed git left behind: reclaimed in the background (each push checks its own repo).
  // On PostgreSQL other instances may be running git in these repositories right now.
  recoverAtStart(config.reposDir, Date.now(), { shared: config.databaseUrl !== null }).catch((
    err,
  ) => log("warn", "stale git file sweep failed", { error: String(err) }));
  fixMmapThreshold();
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    sqlitePath: config.databasePath,
    onBackgroundFailure: (error) =>
      log("warn", "wal checkpointer stopped; the writer checkpoints", { error }),
    onAvailability: (available, error) =>
      available
        ? log("info", "database reachable again")
        : log("error", "database unreachable: requests get 503 until it answers again", { error }),
  }).catch((err) => {
    // PostgreSQL's start-up errors name host, port and the likely cause, never the password.
    if (config.databaseUrl === null) throw err;
    throw new ConfigError(`SERVICE_DATABASE_URL: ${(err as Error).message}`);
  });
  // Once the database answers: a first start that fails on its URL generates no key, so the start
  // that works is the one that announces it.
  const admin = await resolveAdminKey(config.adminKey, config.adminKeyFile);
  const copiedAtStart = await copiedNote(config.databasePath).catch((err) =>
    `(unreadable: ${err})`
  );
  const copied = config.databaseUrl === null ? copiedAtStart : null;
  if (copied !== null) {
    log("warn", "this server uses the embedded database, which was copied to PostgreSQL", {
      note: copied,
      hint: "start with SERVICE_DATABASE_URL to serve the copy",
    });
  }
  const ctx: Signet = {
    store,
    config: { ...config, adminKey: admin.key },
    sshPort: config.sshBind ? config.sshPublicPort ?? config.sshBind.port : null,
    limiter: new RateLimiter(config.rateLimitsEnabled, config.rateLimitRules, store.rateBuckets),
    databaseCopied: copiedAtStart !== null,
  };
  if (config.cloneCacheBytes > 0) {
    ctx.cloneCache = await CloneCache.create(
      `${config.instanceDir}/clone-cache`,
      config.cloneCacheBytes,
    );
  }

  void emptyTrash(ctx); // what a crash left in the trash, in the background (it never throws)
  const stopMaintenance = startMaintenance(ctx, [
    purgeExpiredRegistryNonces,
    pruneCloneCache,
    emptyRepoTrash,
  ]);
  // SSH and the registry first: once HTTP answers (health checks), every listener is up, and clone
  // URLs know the SSH port even when the bind asked for port 0.
  const ssh = config.sshBind
    ? await explainBindFailure(
      "SERVICE_SSH_BIND",
      config.sshBind,
      startSshServer(ctx, config.sshBind, {
        ...DEFAULT_SSH_LIMITS,
        maxConnectionsPerIp: config.sshMaxConnectionsPerIp ??
          DEFAULT_SSH_LIMITS.maxConnectionsPerIp,
        maxStartups: config.sshMaxStartups,
        maxStartupsPerPrefix: config.sshMaxStartupsPerPrefix,
        idleTimeoutMs: config.sshIdleTimeoutMs,
      }),
    )
    : null;
  if (ssh && config.sshPublicPort === null) ctx.sshPort = ssh.port;
  const registry = config.registryBind
    ? await explainBindFailure(
      "SERVICE_REGISTRY_BIND",
      config.registryBind,
      listen(
        config,
        config.registryBind,
        "registry",
        lazyRegistryHandler(ctx, await openRegistry(store, config.instanceName)),
        // The guard's thread reads the database itself: the embedded file, or PostgreSQL.
        guardRegistryReads(config.databaseUrl ?? config.databasePath),
      ),
    )
    : null;
  const http = config.httpBind
    ? await explainBindFailure(
      "SERVICE_HTTP_BIND",
      config.httpBind,
      listen(config, config.httpBind, "http", hostingApp(ctx).fetch),
    )
    : null;

  const stopIdleRelease = releaseMemoryWhenIdle({
    activity: () => httpRequests.total() + gitTransfers.total() + logins.total(),
    busy: () => activeTransfers() > 0 || sshSessionsActive.total() > 0,
    chores: maintenanceRuns,
    releaseOthers: () => {
      ctx.store.releaseMemory();
      http?.releaseMemory?.();
      registry?.releaseMemory?.();
    },
  });

  // The instance's name is on every line already (setLogInstance): not a second time here.
  log("info", "signet started", {
    data_dir: config.dataDir,
    database: config.databaseUrl === null
      ? config.databasePath
      : redactDatabaseUrl(config.databaseUrl),
    http: describe(config.httpBind),
    ssh: describe(config.sshBind),
    ssh_host_key: ssh?.fingerprint,
    registry: describe(config.registryBind),
    http_timeouts: config.httpHeaderTimeoutMs || config.httpIdleTimeoutMs
      ? `header ${config.httpHeaderTimeoutMs / 1000} s, idle ${config.httpIdleTimeoutMs / 1000} s`
      : "off (no connection guard)",
    admin_key: admin.source === "env" ? "from SERVICE_ADMIN_KEY" : `in ${admin.path}`,
  });
  if (admin.source === "generated") {
    console.error(`A new admin key was generated and saved to ${admin.path} (mode 0600).`);
  }

  return {
    ctx,
    http,
    registry,
    ssh,
    async close() {
      const deadline = config.shutdownTimeoutMs;
      stopMaintenance();
      stopIdleRelease();
      log("info", "shutting down", { active_transfers: activeTransfers() });
      const stopped = Promise.allSettled([
        http?.shutdown(),
        registry?.shutdown(),
        ssh?.stopListening(),
      ]);
      const left = await drainTransfers(deadline);
      if (left > 0) log("warn", "shutdown deadline passed", { abandoned_transfers: left });
      await Promise.race([stopped, new Promise((r) => setTimeout(r, 1000))]);
      await ssh?.close();
      await store.close();
      release();
      log("info", "stopped");
    },
  };
}

/**
 * The registry's handler, loaded by its first request: its routes, their OpenAPI schemas and zod
 * hold some 15 MB that a server nobody asks for the registry's API never needs (the guard thread
 * answers stored bots and plain searches without it). Later requests go straight to it.
 */
function lazyRegistryHandler(ctx: Signet, rc: RegistryContext): HttpHandler {
  let handler: Deno.ServeHandler | null = null;
  let loading: Promise<Deno.ServeHandler> | null = null;
  return async (req, info) => {
    if (handler) return await handler(req, info);
    loading ??= import("./registry/http/app.ts").then((m) => m.registryHandler(ctx, rc));
    handler = await loading;
    return await handler(req, info);
  };
}

/** Serves `handler` on `bind`: behind the connection guard unless both HTTP timeouts are 0. */
async function listen(
  config: ServerConfig,
  bind: BindAddress,
  name: string,
  handler: HttpHandler,
  localReads: LocalReads | null = null,
): Promise<HttpListener> {
  const headerTimeoutMs = config.httpHeaderTimeoutMs;
  const idleTimeoutMs = config.httpIdleTimeoutMs;
  handler = withForwardedClients(handler, new Set(config.trustedProxies));
  if (headerTimeoutMs === 0 && idleTimeoutMs === 0) {
    return Deno.serve(
      { hostname: bind.hostname, port: bind.port, onListen: () => {} },
      (req, info) => handler(req, info),
    );
  }
  return await serveGuarded(bind, handler, {
    headerTimeoutMs,
    idleTimeoutMs,
    maxHeaderBytes: MAX_HEADER_BYTES,
    socketPath: await guardSocketPath(config.instanceDir, name),
    maxConnectionsPerIp: config.httpMaxConnectionsPerIp ?? DEFAULT_MAX_CONNECTIONS_PER_IP,
    exemptAddresses: config.trustedProxies,
  }, localReads);
}

/**
 * `<instance dir>/<name>.sock` (the instance's private directory, mode 0700, made by
 * claimInstance), or a fresh private temporary directory when that path is too long for a Unix
 * socket address (108 bytes on Linux).
 */
async function guardSocketPath(dir: string, name: string): Promise<string> {
  const file = `${name}.sock`;
  if (new TextEncoder().encode(`${dir}/${file}`).length <= 100) return `${dir}/${file}`;
  return `${await Deno.makeTempDir({ prefix: "signet-" })}/${file}`;
}

/**
 * Before a start on PostgreSQL (`url`), what the embedded database beside it says. Copied by
 * `signet db copy` to another database than `url` names: a warning (a mistyped database name would
 * otherwise start as an empty installation, beside repositories on disk that no account owns).
 * Holding data that was never copied: a refusal (that data would be left out unannounced, and its
 * repositories' directories, without rows in PostgreSQL, would be taken for leftovers). Runs
 * before anything is written to PostgreSQL.
 */
async function checkEmbeddedDataBeside(config: ServerConfig, url: string): Promise<void> {
  const note = await copiedNote(config.databasePath);
  if (note !== null) return warnIfCopiedElsewhere(note, url);
  let held;
  try {
    held = embeddedData(config.databasePath);
  } catch (err) {
    throw new ConfigError(
      `SERVICE_DATABASE_URL is set, but ${config.databasePath} cannot be read to check that it ` +
        `holds no data (${(err as Error).message}); move it out of the data directory to start`,
    );
  }
  if (!holdsData(held)) return;
  const data = `${count(held.users, "user")}, ${count(held.repos, "repository")}, ` +
    count(held.bots, "bot");
  throw new ConfigError(
    `SERVICE_DATABASE_URL is set, but ${config.databasePath} holds an embedded data set that was ` +
      `never copied to PostgreSQL (${data}). To move it: stop every signet on this data ` +
      `directory, run "signet db copy" with this SERVICE_DATABASE_URL (an empty database), then start again. ` +
      `If PostgreSQL already holds this installation's data and the file is an old one you do not ` +
      `need, move ${config.databasePath} (and any -wal and -shm files beside it) out of the data ` +
      `directory. To start empty on PostgreSQL, point SERVICE_DATA_DIR at a new directory.`,
  );
}

/**
 * Warns when the copy's `note` names another database than `url`, by the database's name: the same
 * server may be written another way (localhost, a socket).
 */
function warnIfCopiedElsewhere(note: string, url: string): void {
  const nameIn = (u: string | null) => {
    const parsed = u === null ? null : URL.parse(u);
    if (!parsed) return null;
    // libpq's default: a database named like the user.
    return decodeURIComponent(parsed.pathname.slice(1)) || decodeURIComponent(parsed.username);
  };
  if (nameIn(copiedTarget(note)) === nameIn(url)) return;
  log("warn", "this data dir's embedded data was copied to another database than this one", {
    note,
    database: redactDatabaseUrl(url),
    hint: "check SERVICE_DATABASE_URL: this database starts without that data",
  });
}

/** `n thing(s)`. */
function count(n: number, thing: string): string {
  if (n === 1) return `1 ${thing}`;
  return `${n} ${thing.endsWith("y") ? `${thing.slice(0, -1)}ies` : `${thing}s`}`;
}

/**
 * Waits for a listener; an address in use, a port the user may not bind, an address no interface
 * has, or a host name that does not resolve becomes a ConfigError naming the variable, the address
 * and what to do, instead of a stack trace.
 */
async function explainBindFailure<T>(
  name: string,
  bind: BindAddress,
  listening: Promise<T>,
): Promise<T> {
  try {
    return await listening;
  } catch (err) {
    // Deno's errors, ssh2's (Node's `code`), and the guard thread's (only the name survives).
    const { code, name: errName } = err as { code?: string; name?: string };
    const where = `${name}=${describe(bind)}`;
    if (errName === "AddrInUse" || code === "EADDRINUSE") {
      throw new ConfigError(
        `${where}: the address is already in use; stop what listens there or pick another port`,
      );
    }
    if (errName === "PermissionDenied" || code === "EACCES") {
      throw new ConfigError(
        `${where}: not allowed to listen there (ports below 1024 need root or ` +
          `CAP_NET_BIND_SERVICE); pick a port above 1024`,
      );
    }
    if (errName === "AddrNotAvailable" || code === "EADDRNOTAVAIL") {
      throw new ConfigError(
        `${where}: no network interface of this machine has that address; use one of its own ` +
          `addresses, 127.0.0.1, or 0.0.0.0 for all of them`,
      );
    }
    // A host name that does not resolve, and other network errors, are still the setting's.
    const message = err instanceof Error ? err.message : String(err);
    if (/lookup address|getaddrinfo|EAI_|ENOTFOUND/i.test(message) || /^EADDR/.test(code ?? "")) {
      throw new ConfigError(`${where}: cannot listen there: ${message.replace(/^(Error: )+/, "")}`);
    }
    throw err;
  }
}

function describe(bind: BindAddress | null): string {
  return bind ? `${bind.hostname}:${bind.port}` : "off";
}
