/**
 * CPU time of the bench's finished child processes (getrusage RUSAGE_CHILDREN, microsecond
 * resolution), so a sequential workload can report what the client side (git plus its ssh or
 * git-remote-http helper) burnt, apart from the server's share.
 */

const RUSAGE_CHILDREN = -1;
let lib: { symbols: { getrusage: (who: number, buf: Uint8Array) => number } } | null | undefined;

function libc() {
  if (lib === undefined) {
    try {
      lib = Deno.dlopen("libc.so.6", {
        getrusage: { parameters: ["i32", "buffer"], result: "i32" },
      });
    } catch {
      lib = null;
    }
  }
  return lib;
}

/** User + system CPU of all reaped children so far, in ms; NaN when it cannot be read. */
export function childrenCpuMs(): number {
  const l = libc();
  if (!l) return NaN;
  const buf = new Uint8Array(144); // struct rusage; starts with ru_utime, ru_stime (timeval)
  if (l.symbols.getrusage(RUSAGE_CHILDREN, buf) !== 0) return NaN;
  const v = new DataView(buf.buffer);
  const tv = (off: number) =>
    Number(v.getBigInt64(off, true)) * 1000 + Number(v.getBigInt64(off + 8, true)) / 1000;
  return tv(0) + tv(16);
}
