/** `signet serve`: opens the data dir and database, then starts every enabled listener. */
import { openDatabase } from "../db/database.ts";
import { resolveAdminKey } from "./admin_key.ts";
import { type BindAddress, loadServerConfig, type ServerConfig } from "./config.ts";
import type { Signet } from "./context.ts";
import { hostingApp } from "./http/app.ts";
import { log } from "./log.ts";
import { rateLimiterFromEnv } from "./ratelimit.ts";
import { startMaintenance } from "./maintenance.ts";
import { activeTransfers, drainTransfers } from "./transfers.ts";

/** How long shutdown waits for running git transfers (SERVICE_SHUTDOWN_TIMEOUT, seconds). */
export function shutdownDeadlineMs(): number {
  const v = Number(Deno.env.get("SERVICE_SHUTDOWN_TIMEOUT") ?? "30");
  return Number.isFinite(v) && v >= 0 ? v * 1000 : 30_000;
}

/** A running server, for tests and graceful shutdown. */
export interface RunningServer {
  ctx: Signet;
  http: Deno.HttpServer | null;
  close(): Promise<void>;
}

/** Starts Signet with `config` (default: from env) and returns once every listener is up. */
export async function startServer(
  config: ServerConfig = loadServerConfig(),
): Promise<RunningServer> {
  await Deno.mkdir(config.reposDir, { recursive: true, mode: 0o700 });
  const admin = await resolveAdminKey(config.adminKey, config.adminKeyFile);
  const db = openDatabase(config.databasePath);
  const ctx: Signet = {
    db,
    config: { ...config, adminKey: admin.key },
    sshPort: config.sshBind?.port ?? null,
    limiter: rateLimiterFromEnv(Deno.env.toObject()),
  };

  const stopMaintenance = startMaintenance(ctx);
  const http = config.httpBind ? listen(config.httpBind, hostingApp(ctx).fetch) : null;

  log("info", "signet started", {
    data_dir: config.dataDir,
    http: describe(config.httpBind),
    ssh: describe(config.sshBind),
    registry: describe(config.registryBind),
    admin_key: admin.source === "env" ? "from SERVICE_ADMIN_KEY" : `in ${admin.path}`,
  });
  if (admin.source === "generated") {
    console.error(`A new admin key was generated and saved to ${admin.path} (mode 0600).`);
  }

  return {
    ctx,
    http,
    async close() {
      const deadline = shutdownDeadlineMs();
      stopMaintenance();
      log("info", "shutting down", { active_transfers: activeTransfers() });
      const stopped = Promise.allSettled([http?.shutdown()]);
      const left = await drainTransfers(deadline);
      if (left > 0) log("warn", "shutdown deadline passed", { abandoned_transfers: left });
      await Promise.race([stopped, new Promise((r) => setTimeout(r, 1000))]);
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      db.close();
      log("info", "stopped");
    },
  };
}

function listen(
  bind: BindAddress,
  handler: (req: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response>,
) {
  return Deno.serve(
    { hostname: bind.hostname, port: bind.port, onListen: () => {} },
    (req, info) => handler(req, info),
  );
}

function describe(bind: BindAddress | null): string {
  return bind ? `${bind.hostname}:${bind.port}` : "off";
}
