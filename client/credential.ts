/**
 * git's credential helper protocol: `key=value` lines ending at a blank line or end of input.
 * Keys ending in `[]` may repeat (an empty value clears the list). See gitcredentials(7) and
 * git-credential(1) "INPUT/OUTPUT FORMAT".
 */

/** Credential attributes: single values as strings, `key[]` attributes as arrays. */
export type CredentialAttrs = Record<string, string | string[]>;

/** The input is not in git's credential format. */
export class CredentialFormatError extends Error {}

/** Parses credential-protocol text; throws CredentialFormatError on a malformed line. */
export function parseCredential(text: string): CredentialAttrs {
  const attrs: CredentialAttrs = {};
  for (const line of text.split("\n")) {
    if (line === "") break;
    if (line.includes("\0")) throw new CredentialFormatError("credential line contains NUL");
    const eq = line.indexOf("=");
    if (eq <= 0) {
      throw new CredentialFormatError(`invalid credential line ${JSON.stringify(line)}`);
    }
    const key = line.slice(0, eq);
    const value = line.slice(eq + 1);
    if (key.endsWith("[]")) {
      const list = attrs[key];
      if (value === "") attrs[key] = [];
      else if (Array.isArray(list)) list.push(value);
      else attrs[key] = [value];
    } else {
      attrs[key] = value;
    }
  }
  return attrs;
}

/** Serializes attributes as credential-protocol lines; throws on values that cannot be sent. */
export function formatCredential(attrs: CredentialAttrs): string {
  let out = "";
  for (const [key, value] of Object.entries(attrs)) {
    if (!/^[A-Za-z0-9_.-]+(\[\])?$/.test(key)) {
      throw new CredentialFormatError(`invalid credential key ${JSON.stringify(key)}`);
    }
    if (Array.isArray(value) !== key.endsWith("[]")) {
      throw new CredentialFormatError(`only keys ending in [] take a list (${key})`);
    }
    for (const v of Array.isArray(value) ? value : [value]) {
      if (/[\n\0]/.test(v)) {
        throw new CredentialFormatError(`credential value for ${key} contains a newline or NUL`);
      }
      out += `${key}=${v}\n`;
    }
  }
  return out;
}

/** The single value of `key`, or undefined (also when it is a list). */
export function single(attrs: CredentialAttrs, key: string): string | undefined {
  const v = attrs[key];
  return typeof v === "string" ? v : undefined;
}
