/** A Signet context over a fresh temp data dir, for tests that run the SSH server in-process. */
import { openSqliteStore } from "../../db/sqlite/store.ts";
import { loadServerConfig, type ServerConfig } from "../../server/config.ts";
import type { Signet } from "../../server/context.ts";
import { RateLimiter } from "../../server/ratelimit.ts";
import { mintInvite, signup } from "../../server/domain/accounts.ts";
import { setQuiet } from "../../server/log.ts";
import { DEFAULT_SSH_LIMITS, type SshLimits, startSshServer } from "../../server/ssh/server.ts";
import { makeKey, type TestKey } from "../../testing/accounts.ts";

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

/** An in-process SSH world: a context with the account alice and a way to run its SSH server. */
export interface InProcessSsh {
  ctx: Signet;
  config: ServerConfig;
  aliceKey: TestKey;
  alice: Awaited<ReturnType<typeof signup>>;
  /** Runs `fn` against an SSH server started with `limits` over the defaults, then closes it. */
  withServer(limits: Partial<SshLimits>, fn: (port: number) => Promise<void>): Promise<void>;
}

/** A quiet context under a new temp directory named `prefix…` with alice signed up (ssh-keygen key). */
export async function inProcessSsh(prefix: string): Promise<InProcessSsh> {
  setQuiet(true);
  const { ctx, config } = await inProcessContext(prefix);
  const aliceKey = await makeKey("alice");
  const alice = await signup(
    ctx,
    {
      username: "alice",
      public_key: aliceKey.publicLine,
      invite_code: (await mintInvite(ctx)).code,
    },
    "127.0.0.1",
  );
  const withServer = async (limits: Partial<SshLimits>, fn: (port: number) => Promise<void>) => {
    const server = await startSshServer(ctx, config.sshBind!, { ...DEFAULT_SSH_LIMITS, ...limits });
    ctx.sshPort = server.port;
    try {
      await fn(server.port);
    } finally {
      await server.close();
    }
  };
  return { ctx, config, aliceKey, alice, withServer };
}
