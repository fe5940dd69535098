/**
 * Strict JSON reading for signed bodies. `JSON.parse` silently keeps the last of duplicate keys
 * and accepts lone UTF-16 surrogates, so two parties could read different payloads from the same
 * bytes, and JCS (RFC 8785, which requires I-JSON) is undefined for them: both are rejected. So
 * is U+0000 in a string, which PostgreSQL cannot store as text (the same answer on both engines).
 */

/** Parses `text` as strict JSON: its value, or why it is not acceptable. */
export function readStrictJson(
  text: string,
  maxDepth = 32,
): { ok: true; value: unknown } | { ok: false; problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: "request body is not valid JSON" };
  }
  if (!text.isWellFormed()) {
    return { ok: false, problem: "request body contains a lone UTF-16 surrogate" };
  }
  const problem = scan(text, maxDepth) ?? (value === undefined ? "request body is empty" : null);
  return problem === null ? { ok: true, value } : { ok: false, problem };
}

/** Why a text is not acceptable strict JSON, or null when it is. */
export function strictJsonProblem(text: string, maxDepth = 32): string | null {
  const read = readStrictJson(text, maxDepth);
  return read.ok ? null : read.problem;
}

/** Parses `text` as strict JSON (see strictJsonProblem); throws Error with the problem. */
export function parseStrictJson(text: string): unknown {
  const read = readStrictJson(text);
  if (!read.ok) throw new Error(read.problem);
  return read.value;
}

// Walks already-valid JSON text, tracking the keys of every open object. A string without a
// backslash is its own text, and the whole text is already well-formed, so only strings with
// escapes are decoded (to compare keys as JSON reads them, and to find escaped lone surrogates).
function scan(text: string, maxDepth: number): string | null {
  const stack: { keys: Set<string> | null; expectKey: boolean }[] = [];
  let nextBackslash = text.indexOf("\\");
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '"') {
      const end = stringEnd(text, i);
      while (nextBackslash !== -1 && nextBackslash < i) {
        nextBackslash = text.indexOf("\\", nextBackslash + 1);
      }
      const escaped = nextBackslash !== -1 && nextBackslash < end;
      const value = escaped ? JSON.parse(text.slice(i, end)) as string : text.slice(i + 1, end - 1);
      if (escaped && !value.isWellFormed()) {
        return "request body contains a lone UTF-16 surrogate";
      }
      // No engine stores it alike (PostgreSQL's text refuses it): refused on both.
      if (escaped && value.includes("\u0000")) {
        return "request body contains U+0000 (NUL) in a string";
      }
      const top = stack[stack.length - 1];
      if (top?.keys && top.expectKey) {
        if (top.keys.has(value)) return `duplicate key "${value}" in request body`;
        top.keys.add(value);
        top.expectKey = false;
      }
      i = end;
      continue;
    }
    if (ch === "{" || ch === "[") {
      stack.push({ keys: ch === "{" ? new Set() : null, expectKey: ch === "{" });
      if (stack.length > maxDepth) return `request body nests deeper than ${maxDepth} levels`;
    } else if (ch === "}" || ch === "]") {
      stack.pop();
    } else if (ch === ",") {
      const top = stack[stack.length - 1];
      if (top?.keys) top.expectKey = true;
    }
    i++;
  }
  return null;
}

function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
  return i + 1;
}
