/** Free TCP ports for test and bench servers, chosen where no client socket can take them. */

const FALLBACK_EPHEMERAL: [number, number] = [32768, 60999];
const LOWEST_PORT = 10_000;

/** The kernel's range for outgoing (ephemeral) ports: a port picked there can be
 * taken by any client connection between our check and the server's bind. */
function ephemeralRange(): [number, number] {
  try {
    const text = Deno.readTextFileSync("/proc/sys/net/ipv4/ip_local_port_range");
    const [low, high] = text.trim().split(/\s+/).map(Number);
    if (low > 0 && high >= low) return [low, high];
  } catch { /* not Linux, or no permission */ }
  return FALLBACK_EPHEMERAL;
}

/** The ports outside the ephemeral range to choose from, as [first, last]. */
function candidateRange(): [number, number] {
  const [low, high] = ephemeralRange();
  if (low - LOWEST_PORT >= 1000) return [LOWEST_PORT, low - 1];
  return [high + 1, 65535];
}

/** Returns a TCP port that is free now on 127.0.0.1 and outside the ephemeral range,
 * picked at random so parallel test files rarely pick the same one. */
export function freePort(): number {
  const [first, last] = candidateRange();
  for (let attempt = 0; attempt < 1000; attempt++) {
    const port = first + Math.floor(Math.random() * (last - first + 1));
    try {
      Deno.listen({ hostname: "127.0.0.1", port }).close();
      return port;
    } catch (e) {
      if (!(e instanceof Deno.errors.AddrInUse)) throw e;
    }
  }
  throw new Error(`no free port between ${first} and ${last}`);
}
