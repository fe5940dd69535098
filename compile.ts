/**
 * `deno task compile`: builds the single `signet` executable with `deno compile`, after rebuilding
 * the UI module (ui/generated/assets.ts) only when it is older than the sources under ui/.
 * `deno compile` needs Deno's runtime (denort) for the target: it downloads it once, unless
 * DENORT_BIN names a local copy. Without network, the download failure is explained, not dumped.
 */
import { builtSourceHash, uiSourceHash } from "./ui/source_hash.ts";
import { ON_DEMAND_MODULES } from "./on_demand.ts";

const rootUrl = new URL("./", import.meta.url);
const root = decodeURIComponent(rootUrl.pathname);
const output = Deno.args[0] ?? `${root}signet`;

async function step(args: string[]): Promise<void> {
  const { code } = await new Deno.Command(Deno.execPath(), { args, cwd: root }).spawn().status;
  if (code !== 0) Deno.exit(code);
}

/** The runtime archive `deno compile` downloads for this Deno and machine. */
function denortArchive(): string {
  return `denort-${Deno.build.target}.zip`;
}

/**
 * What to do when `deno compile` could not download the runtime: `url` and the innermost `cause`
 * as its error report gave them.
 */
function offlineHelp(url: string | undefined, cause: string | undefined): string {
  const version = Deno.version.deno;
  return `compile: deno compile could not download Deno's runtime (denort ${version} for ` +
    `${Deno.build.target})${url ? ` from\n  ${url}` : ""}\n` +
    `${cause ? `  (${cause})\n` : ""}` +
    `Without network: fetch that file where there is network (it is also an asset of the ` +
    `Deno v${version} release, named ${denortArchive()}), unzip it here, and run:\n` +
    `  DENORT_BIN=/path/to/denort deno task compile\n` +
    `The denort must be exactly version ${version}, the version of the deno running this.`;
}

if ((await builtSourceHash(rootUrl)) === (await uiSourceHash(rootUrl))) {
  console.error("compile: ui/generated/assets.ts is up to date with ui/");
} else {
  await step(["run", "-A", "ui/build.ts"]);
}
const denort = Deno.env.get("DENORT_BIN");
if (denort) console.error(`compile: using Deno runtime from DENORT_BIN=${denort}`);
// The connection guard and the WAL checkpointer run in Web Workers, the guard imports the
// registry's reads by URL, and main.ts loads the server by name (on_demand.ts): `deno compile`
// includes such modules only when named. stderr is read here so that a failed runtime download
// becomes advice.
const child = new Deno.Command(Deno.execPath(), {
  args: [
    "compile",
    "-A",
    "--no-check",
    "--include",
    "server/http/guard_worker.ts",
    "--include",
    "server/registry/http/guard_registry_reads.ts",
    "--include",
    "db/sqlite/checkpoint_worker.ts",
    ...Object.values(ON_DEMAND_MODULES).flatMap((module) => ["--include", module]),
    "--output",
    output,
    "main.ts",
  ],
  cwd: root,
  stdout: "inherit",
  stderr: "piped",
}).spawn();
/** deno's colour codes. */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");

// Progress lines pass through as they come; from the first error line on, the rest is held.
let held = "";
let pending = "";
const decoder = new TextDecoder();
for await (const chunk of child.stderr) {
  pending += decoder.decode(chunk, { stream: true });
  let at;
  while ((at = pending.indexOf("\n")) >= 0) {
    const line = pending.slice(0, at + 1);
    pending = pending.slice(at + 1);
    // "error" starts deno's failure report.
    if (held || line.replace(ANSI, "").startsWith("error")) held += line;
    else await Deno.stderr.write(new TextEncoder().encode(line));
  }
}
held += pending;
const { code } = await child.status;
if (code !== 0) {
  const plain = held.replace(ANSI, "");
  const download = /error sending request for url \((\S+denort\S+?)\)/.exec(plain);
  if (download || (/denort/.test(plain) && /dns error|Connect|timed out/i.test(plain))) {
    const causes = [...plain.split("Stack backtrace")[0].matchAll(/^\s*\d+: (.+)$/gm)].map((m) =>
      m[1]
    );
    console.error(offlineHelp(download?.[1], causes.at(-1)));
  } else {
    await Deno.stderr.write(new TextEncoder().encode(held));
  }
  Deno.exit(code);
}
console.error(`compile: wrote ${output}`);
