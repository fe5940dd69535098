/**
 * `deno task compile`: bundles the UI into its generated module, then builds the single `signet`
 * executable with `deno compile`. Deno's runtime (denort) is downloaded unless DENORT_BIN names a
 * local copy, which `deno compile` then uses.
 */
const root = new URL("./", import.meta.url).pathname;
const output = Deno.args[0] ?? `${root}signet`;

async function step(args: string[]): Promise<void> {
  const { code } = await new Deno.Command(Deno.execPath(), { args, cwd: root }).spawn().status;
  if (code !== 0) Deno.exit(code);
}

await step(["run", "-A", "ui/build.ts"]);
const denort = Deno.env.get("DENORT_BIN");
if (denort) console.error(`compile: using Deno runtime from DENORT_BIN=${denort}`);
// The connection guard and the WAL checkpointer run in Web Workers, which `deno compile` includes
// only when named.
await step([
  "compile",
  "-A",
  "--no-check",
  "--include",
  "server/http/guard_worker.ts",
  "--include",
  "db/checkpoint_worker.ts",
  "--output",
  output,
  "main.ts",
]);
console.error(`compile: wrote ${output}`);
