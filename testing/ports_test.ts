/** Test servers' ports come from outside the kernel's ephemeral range, so client sockets cannot take them. */
import { assert } from "../tests/helpers/assert.ts";
import { freePort } from "./ports.ts";

Deno.test("freePort picks bindable ports outside the ephemeral range", () => {
  const [low, high] = Deno.readTextFileSync("/proc/sys/net/ipv4/ip_local_port_range")
    .trim().split(/\s+/).map(Number);
  for (let i = 0; i < 50; i++) {
    const port = freePort();
    assert(port < low || port > high, `${port} is inside ${low}-${high}`);
    Deno.listen({ hostname: "127.0.0.1", port }).close();
  }
});
