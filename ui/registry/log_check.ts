/**
 * Checking a page of the audit log in the browser, as docs/registry-protocol.md section 8 says:
 * each entry's `hash` is the lowercase hex SHA-256 of the UTF-8 JCS (RFC 8785) of the entry
 * without `hash`, and each entry's `prev_hash` is the `hash` of the entry before it (64 zeros for
 * entry 1). The page is newest first; links are checked between neighbours on it.
 */
import type { LogEntry } from "./types.ts";

/** JCS (RFC 8785) of a JSON value: members sorted by UTF-16 code units, ES number form. */
export function jcs(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(jcs).join(",")}]`;
  const obj = value as Record<string, unknown>;
  return `{${
    Object.keys(obj).filter((k) => obj[k] !== undefined).sort().map((k) =>
      `${JSON.stringify(k)}:${jcs(obj[k])}`
    ).join(",")
  }}`;
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The hash an entry must have. */
export function entryHash(entry: LogEntry): Promise<string> {
  const { hash: _, ...rest } = entry;
  return sha256Hex(jcs(rest));
}

/** What checking a page found: null when every hash and link holds, else the first problem. */
export async function checkLogPage(entries: LogEntry[]): Promise<string | null> {
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (await entryHash(e) !== e.hash) return `entry #${e.seq} does not match its hash`;
    const older = entries[i + 1];
    if (older && older.seq === e.seq - 1 && e.prev_hash !== older.hash) {
      return `entry #${e.seq} does not link to entry #${older.seq}`;
    }
    if (e.seq === 1 && e.prev_hash !== "0".repeat(64)) {
      return "entry #1 does not start the chain";
    }
  }
  return null;
}
