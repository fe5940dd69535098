/** Driving an interactive program through a real pty with tmux (its own server socket per use). */
import { run, runOk } from "../../testing/run.ts";

/** A program running in a detached tmux pane. */
export interface Pane {
  /** Types keys (tmux key names such as `Enter`, `BSpace`, `C-c`, or literal text with `literal`). */
  send(keys: string[], opts?: { literal?: boolean }): Promise<void>;
  /** The visible text of the pane, trailing blank lines removed. */
  screen(): Promise<string>;
  /** Waits until the screen contains `text` (or matches it); returns the screen. */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<string>;
  /** Waits for the program to exit and returns its exit status. */
  exitCode(timeoutMs?: number): Promise<number>;
  /** Kills this pane's tmux server. */
  close(): Promise<void>;
}

let counter = 0;

/** Starts `command` (a shell command line) in a new 120x40 pane. */
export async function startPane(command: string): Promise<Pane> {
  const socket = `signet-test-${Deno.pid}-${counter++}`;
  const tmux = (...args: string[]) => runOk("tmux", ["-L", socket, "-f", "/dev/null", ...args]);
  // The exit status is printed after the program ends so tests can read it from the screen.
  const wrapped = `${command}; echo "[exit $?]"; sleep 600`;
  await tmux("new-session", "-d", "-s", "t", "-x", "120", "-y", "40", wrapped);
  const screen = async () =>
    (await tmux("capture-pane", "-p", "-J", "-t", "t")).replace(/\n+$/, "");
  const waitFor = async (text: string | RegExp, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      const s = await screen();
      if (typeof text === "string" ? s.includes(text) : text.test(s)) return s;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${text}; screen:\n${s}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return {
    async send(keys, opts = {}) {
      await tmux("send-keys", "-t", "t", ...(opts.literal ? ["-l"] : []), ...keys);
    },
    screen,
    waitFor,
    async exitCode(timeoutMs = 10_000) {
      const s = await waitFor(/\[exit \d+\]/, timeoutMs);
      return Number(/\[exit (\d+)\]/.exec(s)![1]);
    },
    async close() {
      await run("tmux", ["-L", socket, "kill-server"]);
    },
  };
}
