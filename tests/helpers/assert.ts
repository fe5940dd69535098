/** Minimal assertions (jsr:@std/assert is unreachable here), built on node:assert. */
import assert from "node:assert/strict";

/** Deep strict equality. */
export function assertEquals<T>(actual: T, expected: T, msg?: string): void {
  assert.deepStrictEqual(actual, expected, msg);
}

/** Deep strict inequality. */
export function assertNotEquals<T>(actual: T, expected: T, msg?: string): void {
  assert.notDeepStrictEqual(actual, expected, msg);
}

/** Truthiness. */
export function assert_(value: unknown, msg?: string): asserts value {
  assert.ok(value, msg);
}
export { assert_ as assert };

/** `haystack` contains `needle`. */
export function assertStringIncludes(haystack: string, needle: string, msg?: string): void {
  if (!haystack.includes(needle)) {
    throw new assert.AssertionError({
      message: msg ??
        `expected ${JSON.stringify(haystack.slice(0, 2000))} to include ${JSON.stringify(needle)}`,
    });
  }
}

/** `fn` throws an instance of `cls` whose message includes `includes`. */
export function assertThrows(
  fn: () => unknown,
  cls: new (...a: never[]) => Error = Error,
  includes?: string,
): Error {
  try {
    fn();
  } catch (err) {
    check(err, cls, includes);
    return err as Error;
  }
  throw new assert.AssertionError({ message: "expected function to throw" });
}

/** `fn` rejects with an instance of `cls` whose message includes `includes`. */
export async function assertRejects(
  fn: () => Promise<unknown>,
  cls: new (...a: never[]) => Error = Error,
  includes?: string,
): Promise<Error> {
  try {
    await fn();
  } catch (err) {
    check(err, cls, includes);
    return err as Error;
  }
  throw new assert.AssertionError({ message: "expected promise to reject" });
}

function check(err: unknown, cls: new (...a: never[]) => Error, includes?: string): void {
  if (!(err instanceof cls)) {
    throw new assert.AssertionError({ message: `expected ${cls.name}, got ${String(err)}` });
  }
  if (includes && !err.message.includes(includes)) {
    throw new assert.AssertionError({
      message: `expected message to include ${JSON.stringify(includes)}, got ${
        JSON.stringify(err.message)
      }`,
    });
  }
}
