/** A Signet context over a fresh temp data dir, for tests that run the SSH server in-process. */
import { openSqliteStore } from "../../db/sqlite/store.ts";
import { loadServerConfig, type ServerConfig } from "../../server/config.ts";
import type { Signet } from "../../server/context.ts";
import { RateLimiter } from "../../server/ratelimit.ts";

/** Opens a data dir under a new temp directory named `prefix…`, with SSH only and no rate limits. */
export async function inProcessContext(
  prefix: string,
): Promise<{ ctx: Signet; config: ServerConfig }> {
  const dataDir = await Deno.makeTempDir({ prefix });
  const config = loadServerConfig({
    SERVICE_DATA_DIR: dataDir,
    SERVICE_SSH_BIND: "127.0.0.1:0",
    SERVICE_HTTP_BIND: "off",
    SERVICE_REGISTRY_BIND: "off",
    SERVICE_ADMIN_KEY: "test-admin-key-0123456789abcdef",
    SERVICE_BASE_URL: "http://127.0.0.1:9",
  });
  await Deno.mkdir(config.reposDir, { recursive: true });
  const ctx: Signet = {
    store: await openSqliteStore(config.databasePath, { checkpointer: false }),
    config: { ...config, adminKey: config.adminKey! },
    sshPort: null,
    limiter: new RateLimiter(false),
  };
  return { ctx, config };
}
