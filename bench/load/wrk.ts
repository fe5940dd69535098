/** Runs Debian's `wrk` and parses its summary (requests/s, latency percentiles, errors). */
import { cmd } from "../util.ts";

/** One wrk run. Latencies in milliseconds. */
export interface WrkResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** Non-2xx/3xx responses plus socket errors. */
  errors: number;
  raw: string;
}

/** Options of one wrk run. */
export interface WrkOptions {
  url: string;
  seconds: number;
  connections: number;
  threads?: number;
  /** Path of a Lua script (e.g. to POST pre-signed bodies). */
  script?: string;
  /** Arguments passed to the script after `--`. */
  scriptArgs?: string[];
}

function toMs(value: string, unit: string): number {
  const v = Number(value);
  if (unit === "us") return v / 1000;
  if (unit === "s") return v * 1000;
  if (unit === "m") return v * 60_000;
  return v;
}

/** Parses wrk's text output (run with `--latency`). */
export function parseWrk(text: string): WrkResult {
  const pct = (p: string) => {
    const m = new RegExp(`^\\s*${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, "m").exec(text);
    return m ? toMs(m[1], m[2]) : NaN;
  };
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? NaN);
  const requests = Number(/(\d+) requests in/.exec(text)?.[1] ?? NaN);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(text)?.[1] ?? 0);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const socketErrors = sock ? sock.slice(1).reduce((n, v) => n + Number(v), 0) : 0;
  return {
    rps,
    p50: pct("50"),
    p99: pct("99"),
    requests,
    errors: non2xx + socketErrors,
    raw: text,
  };
}

/** Runs wrk against `url` and returns the parsed result; throws if wrk itself fails. */
export async function wrk(opts: WrkOptions): Promise<WrkResult> {
  const args = [
    `-t${opts.threads ?? 1}`,
    `-c${opts.connections}`,
    `-d${opts.seconds}s`,
    "--latency",
    "--timeout",
    "10s",
  ];
  if (opts.script) args.push("-s", opts.script);
  args.push(opts.url);
  if (opts.scriptArgs) args.push("--", ...opts.scriptArgs);
  const r = await cmd("wrk", args);
  if (r.code !== 0) throw new Error(`wrk failed (${r.code}):\n${r.stdout}\n${r.stderr}`);
  const parsed = parseWrk(r.stdout);
  if (!Number.isFinite(parsed.rps)) throw new Error(`could not parse wrk output:\n${r.stdout}`);
  return parsed;
}
