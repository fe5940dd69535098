/** Git's wire format and repositories built for the tests that speak to git's endpoints directly. */
import { runOk } from "../../testing/run.ts";

/** A pkt-line: its length (these four hex digits included), then `payload`. */
export function pktLine(payload: string): string {
  return (payload.length + 4).toString(16).padStart(4, "0") + payload;
}

/** A protocol v0 upload-pack request body: `want id[ capabilities]`, the flush, `done`. */
export function uploadPackWant(id: string, capabilities = ""): string {
  return pktLine(`want ${id}${capabilities ? ` ${capabilities}` : ""}\n`) + "0000" + "0009done\n";
}

/** A receive-pack request's commands: one ref update asking for report-status, then the flush. */
export function receivePackCommands(oldId: string, newId: string, ref: string): Uint8Array {
  return new TextEncoder().encode(pktLine(`${oldId} ${newId} ${ref}\0report-status\n`) + "0000");
}

/** `git pack-objects --stdout --revs` in `cwd` of the revisions `revs` (e.g. `new`, `^old`). */
export async function packObjects(
  cwd: string,
  env: Record<string, string>,
  revs: string[],
): Promise<Uint8Array> {
  const packer = new Deno.Command("git", {
    args: ["pack-objects", "--stdout", "--revs", "-q"],
    cwd,
    env,
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const w = packer.stdin.getWriter();
  await w.write(new TextEncoder().encode(revs.map((r) => `${r}\n`).join("")));
  await w.close();
  return (await packer.output()).stdout;
}

/** Commits `size` random (incompressible) bytes as `file` in the work tree `cwd`; returns HEAD. */
export async function commitRandomFile(
  cwd: string,
  env: Record<string, string>,
  file: string,
  size: number,
  message: string,
): Promise<string> {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < bytes.length; i += 65536) {
    crypto.getRandomValues(bytes.subarray(i, i + 65536));
  }
  await Deno.writeFile(`${cwd}/${file}`, bytes);
  await runOk("git", ["add", "-A"], { cwd, env });
  await runOk("git", ["commit", "-q", "-m", message], { cwd, env });
  return (await runOk("git", ["rev-parse", "HEAD"], { cwd, env })).trim();
}

/**
 * Writes `content` to `file` in the work tree `cwd` and commits everything, then pushes main to
 * `pushTo` when given; returns HEAD.
 */
export async function commitFile(
  cwd: string,
  env: Record<string, string>,
  file: string,
  content: string,
  message: string,
  pushTo?: string,
): Promise<string> {
  await Deno.writeTextFile(`${cwd}/${file}`, content);
  await runOk("git", ["add", "-A"], { cwd, env });
  await runOk("git", ["commit", "-q", "-m", message], { cwd, env });
  if (pushTo !== undefined) await runOk("git", ["push", "-q", pushTo, "main"], { cwd, env });
  return (await runOk("git", ["rev-parse", "HEAD"], { cwd, env })).trim();
}

/**
 * Clones `url` bare into `dir` over protocol v2, checks it with `git fsck`, and returns its main
 * branch's commit.
 */
export async function cloneBareHead(
  url: string,
  dir: string,
  env: Record<string, string>,
): Promise<string> {
  await runOk("git", ["-c", "protocol.version=2", "clone", "-q", "--bare", url, dir], { env });
  await runOk("git", ["--git-dir", dir, "fsck", "--no-progress"], { env });
  return (await runOk("git", ["--git-dir", dir, "rev-parse", "main"], { env })).trim();
}

/** How many packs the bare repository at `bare` holds (its `objects/pack/*.pack` files). */
export function packCount(bare: string): number {
  return [...Deno.readDirSync(`${bare}/objects/pack`)].filter((e) => e.name.endsWith(".pack"))
    .length;
}
