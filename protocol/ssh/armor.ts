/** The PEM-style armor OpenSSH wraps around binary blobs (private key files, SSHSIG signatures). */
import { decodeBase64 } from "../secrets.ts";

/** What `dearmor` found: the bytes, or why there are none. */
export type Dearmored =
  | { ok: true; bytes: Uint8Array }
  /** The text is not `label` armor; `found` is the label it has instead, if any. */
  | { ok: false; problem: "armor"; found: string | null }
  /** The armor is right but its body is not base64. */
  | { ok: false; problem: "base64" };

/**
 * The bytes between `-----BEGIN <label>-----` and `-----END <label>-----` (CRLF or LF line ends,
 * whitespace around lines ignored). Each caller words its own errors.
 */
export function dearmor(text: string, label: string): Dearmored {
  const lines = text.replace(/\r\n/g, "\n").trim().split("\n").map((l) => l.trim());
  if (
    lines.length < 3 || lines[0] !== `-----BEGIN ${label}-----` ||
    lines[lines.length - 1] !== `-----END ${label}-----`
  ) {
    return {
      ok: false,
      problem: "armor",
      found: /^-----BEGIN (.+)-----$/.exec(lines[0])?.[1] ?? null,
    };
  }
  try {
    return { ok: true, bytes: decodeBase64(lines.slice(1, -1).join("")) };
  } catch {
    return { ok: false, problem: "base64" };
  }
}
