/** Structured logging: JSON lines when stderr is not a terminal, short text when it is. */

/** Fields of one log record; never put secrets, tokens, nonces or keys here. */
export type LogFields = Record<string, string | number | boolean | null | undefined>;

const asJson = !Deno.stderr.isTerminal();
let quiet = false;

/** Silences all logging (used by client commands). */
export function setQuiet(value: boolean): void {
  quiet = value;
}

/** Writes one log record with a message and fields. */
export function log(level: "info" | "warn" | "error", msg: string, fields: LogFields = {}): void {
  if (quiet) return;
  const time = new Date().toISOString();
  const line = asJson
    ? JSON.stringify({ time, level, msg, ...fields })
    : `${time} ${level.toUpperCase()} ${msg}${
      Object.entries(fields).filter(([, v]) => v !== undefined).map(([k, v]) => ` ${k}=${v}`)
        .join("")
    }`;
  console.error(line);
}
