/** Asking the person at the terminal: prompts go to stderr, answers come from stdin. */

/** True when stdin and stderr are terminals, so a person can be asked. */
export function isInteractive(): boolean {
  return Deno.stdin.isTerminal() && Deno.stderr.isTerminal();
}

let pending = "";

/** Reads one line from stdin (without the newline); null at end of input. */
async function readLine(): Promise<string | null> {
  const buf = new Uint8Array(1024);
  const decoder = new TextDecoder();
  while (!pending.includes("\n")) {
    const n = await Deno.stdin.read(buf);
    if (n === null) {
      if (pending === "") return null;
      const last = pending;
      pending = "";
      return last;
    }
    pending += decoder.decode(buf.subarray(0, n), { stream: true });
  }
  const at = pending.indexOf("\n");
  const line = pending.slice(0, at);
  pending = pending.slice(at + 1);
  return line.replace(/\r$/, "");
}

/** Writes `question` to stderr and returns the trimmed answer (empty at end of input). */
export async function ask(question: string): Promise<string> {
  await Deno.stderr.write(new TextEncoder().encode(question));
  return ((await readLine()) ?? "").trim();
}

/** Asks a yes/no question; an empty answer means `defaultYes`. */
export async function confirm(question: string, defaultYes: boolean): Promise<boolean> {
  const answer = (await ask(`${question} ${defaultYes ? "[Y/n]" : "[y/N]"} `)).toLowerCase();
  if (answer === "") return defaultYes;
  return answer === "y" || answer === "yes";
}
