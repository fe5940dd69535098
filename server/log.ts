/**
 * Structured logging: JSON lines when stderr is not a terminal, short text when it is. Info lines
 * are batched and written together every few milliseconds (one write instead of one per request,
 * which at registry request rates was a tenth of the server's CPU); warnings and errors, and
 * everything before exit, are written at once.
 */

/** Fields of one log record; never put secrets, tokens, nonces or keys here. */
export type LogFields = Record<string, string | number | boolean | null | undefined>;

const asJson = !Deno.stderr.isTerminal();
let quiet = false;
/** `"instance":"<name>",` in every JSON line once set (several instances log to one place). */
let instanceJson = "";
let instanceText = "";

/** Silences all logging (used by client commands). */
export function setQuiet(value: boolean): void {
  quiet = value;
}

/**
 * Names the instance on every later line (SERVICE_INSTANCE_NAME): a JSON field `instance` after
 * `level`, or `[name]` after the level in terminal text.
 */
export function setLogInstance(name: string): void {
  instanceJson = `"instance":${JSON.stringify(name)},`;
  instanceText = ` [${name}]`;
}

/** Writes one log record with a message and fields. */
export function log(level: "info" | "warn" | "error", msg: string, fields: LogFields = {}): void {
  if (quiet) return;
  const time = isoNow();
  const line = asJson
    ? jsonLine(time, level, msg, fields)
    : `${time} ${level.toUpperCase()}${instanceText} ${msg}${
      Object.entries(fields).filter(([, v]) => v !== undefined).map(([k, v]) => ` ${k}=${v}`)
        .join("")
    }`;
  pending.push(line);
  pendingBytes += line.length + 1;
  if (level !== "info" || pendingBytes >= FLUSH_BYTES) flushLogs();
  else if (timer === undefined) {
    timer = setTimeout(flushLogs, FLUSH_MS);
    Deno.unrefTimer(timer as unknown as number);
  }
}

// The same text as JSON.stringify({ time, level, msg, ...fields }), without copying the fields.
function jsonLine(time: string, level: string, msg: string, fields: LogFields): string {
  const rest = JSON.stringify(fields);
  const head = `{"time":"${time}","level":"${level}",${instanceJson}"msg":${JSON.stringify(msg)}`;
  return rest === "{}" ? `${head}}` : `${head},${rest.slice(1)}`;
}

// ISO time of the current millisecond, formatted once per millisecond.
let lastMs = -1;
let lastIso = "";
function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

const FLUSH_MS = 10;
const FLUSH_BYTES = 64 * 1024;
const encoder = new TextEncoder();
let pending: string[] = [];
let pendingBytes = 0;
let timer: ReturnType<typeof setTimeout> | undefined;

/** Writes every buffered log line now (called on its own timer, for warnings, and at exit). */
export function flushLogs(): void {
  if (timer !== undefined) {
    clearTimeout(timer);
    timer = undefined;
  }
  if (pending.length === 0) return;
  const bytes = encoder.encode(pending.join("\n") + "\n");
  pending = [];
  pendingBytes = 0;
  try {
    let off = 0;
    while (off < bytes.length) off += Deno.stderr.writeSync(bytes.subarray(off));
  } catch { /* stderr is gone: nothing left to tell */ }
}

globalThis.addEventListener("unload", flushLogs);
