/**
 * The modules `main.ts` loads only when their command runs: the server and its operations, and the
 * bot registry client. They are imported through a variable, never a literal `import("./x.ts")`:
 * `deno run` resolves every literal dynamic import, and everything under it, before the program
 * starts, which cost each client command (the git credential helper runs on every push) ~11 ms
 * for the server's ~300 modules it never runs (docs/decisions/client-cli.md). `deno compile`
 * includes only what it can see, so compile.ts names these with `--include`.
 */

/** The on-demand modules by name, relative to the checkout's root. */
export const ON_DEMAND_MODULES = {
  serverConfig: "./server/config.ts",
  serve: "./server/serve.ts",
  ops: "./server/ops/commands.ts",
  dbCopy: "./server/ops/db_copy.ts",
  botCli: "./client/bot_cli.ts",
} as const satisfies Record<keyof OnDemandExports, string>;

/** What each on-demand module exports (type-only imports: nothing loads at start for these). */
interface OnDemandExports {
  serverConfig: typeof import("./server/config.ts");
  serve: typeof import("./server/serve.ts");
  ops: typeof import("./server/ops/commands.ts");
  dbCopy: typeof import("./server/ops/db_copy.ts");
  botCli: typeof import("./client/bot_cli.ts");
}

/** Loads the on-demand module `name`. */
export function loadOnDemand<K extends keyof OnDemandExports>(
  name: K,
): Promise<OnDemandExports[K]> {
  const specifier: string = new URL(ON_DEMAND_MODULES[name], import.meta.url).href;
  return import(specifier);
}
