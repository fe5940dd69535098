/** Health checks shared by the hosting and registry health routes. */
import type { Signet } from "../context.ts";

/** The result of a health check: ok, or the failing component's message. */
export interface Health {
  status: "ok" | "unavailable";
  /** The instance that answered (SERVICE_INSTANCE_NAME). */
  instance: string;
  checks: { database: string; repositories: string };
}

/** How long the database may take to answer a health check. */
const PING_TIMEOUT_MS = 3000;

/** Checks that the database answers and the repository directory is a writable directory. */
export async function checkHealth(ctx: Signet): Promise<Health> {
  let database = "ok";
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      ctx.store.ping(),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${PING_TIMEOUT_MS / 1000} s`)),
          PING_TIMEOUT_MS,
        );
      }),
    ]);
  } catch (err) {
    database = `error: ${(err as Error).message}`;
  } finally {
    clearTimeout(timer);
  }
  let repositories = "ok";
  try {
    const info = await Deno.stat(ctx.config.reposDir);
    if (!info.isDirectory) repositories = "error: not a directory";
    else {
      const probe = `${ctx.config.reposDir}/.health-${crypto.randomUUID()}`;
      await Deno.writeTextFile(probe, "");
      await Deno.remove(probe);
    }
  } catch (err) {
    repositories = `error: ${(err as Error).message}`;
  }
  const ok = database === "ok" && repositories === "ok";
  return {
    status: ok ? "ok" : "unavailable",
    instance: ctx.config.instanceName,
    checks: { database, repositories },
  };
}
