/** coalesceWrites: pieces written in one synchronous run leave as one write, in order. */
import { createServer, type Socket } from "node:net";
import { coalesceWrites } from "./write_coalescer.ts";
import { assertEquals } from "../../tests/helpers/assert.ts";

const enc = new TextEncoder();

/**
 * A server that runs `onConnection` on each (coalesced) socket; `writes` counts the writes that
 * reached the real socket.
 */
async function server(
  onConnection: (socket: Socket) => void,
): Promise<{ port: number; writes: () => number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let writes = 0;
  const srv = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
    socket.write = ((...args: unknown[]) => {
      writes++;
      return write(...args);
    }) as typeof socket.write;
    coalesceWrites(socket);
    onConnection(socket);
  });
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const address = srv.address();
  return {
    port: typeof address === "object" && address ? address.port : 0,
    writes: () => writes,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        srv.close(() => resolve());
      }),
  };
}

/** Every read of a raw connection until the peer closes it, as text. */
async function reads(port: number): Promise<string[]> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const out: string[] = [];
  const buf = new Uint8Array(65536);
  while (true) {
    const n = await conn.read(buf).catch(() => null);
    if (n === null) break;
    out.push(new TextDecoder().decode(buf.subarray(0, n)));
  }
  conn.close();
  return out;
}

Deno.test("pieces of one run reach the socket as one write, in order, before end()", async () => {
  const srv = await server((socket) => {
    socket.write(enc.encode("len|"));
    socket.write(enc.encode("payload|"));
    socket.write(enc.encode("mac"));
    socket.end();
  });
  try {
    assertEquals((await reads(srv.port)).join(""), "len|payload|mac");
    assertEquals(srv.writes(), 1);
  } finally {
    await srv.close();
  }
});

Deno.test("writes of later runs still arrive, after earlier ones, with callbacks called", async () => {
  const called: string[] = [];
  const srv = await server((socket) => {
    socket.write(enc.encode("a"), () => called.push("a"));
    socket.write("b");
    setTimeout(() => {
      socket.write(enc.encode("c"), () => called.push("c"));
      setTimeout(() => socket.end(), 20);
    }, 20);
  });
  try {
    assertEquals((await reads(srv.port)).join(""), "abc");
    assertEquals(srv.writes(), 2);
    assertEquals(called, ["a", "c"]);
  } finally {
    await srv.close();
  }
});
