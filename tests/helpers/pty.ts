/** Running a command on a pseudo-terminal (util-linux `script`) and answering its prompts. */
import { shellQuote } from "../../client/self.ts";

/** One expected prompt and the line typed in reply. */
export interface Exchange {
  expect: string;
  reply: string;
}

/** What the terminal showed and how the command exited. */
export interface PtyResult {
  code: number;
  output: string;
}

/**
 * Runs `cmd args…` on a pty with `env`, waiting for each `expect` text in the output before
 * typing its `reply` and Enter. Fails if a prompt does not appear within `timeoutMs`.
 */
export async function runOnPty(
  cmd: string,
  args: string[],
  exchanges: Exchange[],
  opts: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {},
): Promise<PtyResult> {
  const line = [cmd, ...args].map(shellQuote).join(" ");
  const child = new Deno.Command("script", {
    args: ["-q", "-e", "-c", line, "/dev/null"],
    env: opts.env,
    cwd: opts.cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const decoder = new TextDecoder();
  let output = "";
  let seen = 0;
  const reading = (async () => {
    for await (const chunk of child.stdout) output += decoder.decode(chunk, { stream: true });
  })();
  const errText = new Response(child.stderr).text();
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
  for (const { expect, reply } of exchanges) {
    while (output.indexOf(expect, seen) < 0) {
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        await child.status;
        throw new Error(`prompt ${JSON.stringify(expect)} did not appear; output:\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    seen = output.indexOf(expect, seen) + expect.length;
    await writer.write(new TextEncoder().encode(reply + "\r"));
  }
  const status = await child.status;
  await reading;
  await writer.close().catch(() => {});
  return { code: status.code, output: output + (await errText) };
}
