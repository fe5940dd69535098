/**
 * Giving memory back after a burst of traffic, for the threads V8 and glibc leave holding it: a
 * worker's V8 heap is not shrunk when it goes idle (the main thread's is), and glibc keeps freed
 * memory of every thread's malloc arena until asked to trim. Both are measured in
 * docs/decisions.md ("Idle memory release on the guard's thread").
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** V8's full garbage collection for the calling thread's heap; null where it cannot be had. */
function exposeGc(): (() => void) | null {
  try {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc");
    return typeof gc === "function" ? gc : null;
  } catch {
    return null;
  }
}

/** glibc's malloc_trim(0) (returns every arena's free pages); null without glibc or FFI permission. */
function openMallocTrim(): (() => void) | null {
  try {
    const libc = Deno.dlopen("libc.so.6", {
      malloc_trim: { parameters: ["usize"], result: "i32" },
    });
    return () => void libc.symbols.malloc_trim(0n);
  } catch {
    return null;
  }
}

const collectGarbage = exposeGc();
const mallocTrim = openMallocTrim();

/** Collects the calling thread's garbage, then returns free malloc memory to the system. */
export function releaseIdleMemory(): void {
  collectGarbage?.();
  mallocTrim?.();
}
