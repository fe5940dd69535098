import { assertEquals } from "../../tests/helpers/assert.ts";
import { Buffer } from "node:buffer";
import { listenTcp, type TcpSocket } from "./tcp_socket.ts";

const LOOPBACK = { hostname: "127.0.0.1", port: 0 };

/** Reads `conn` to its end. */
async function readToEnd(conn: Deno.Conn): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  const buf = new Uint8Array(65536);
  for (let n; (n = await conn.read(buf)) !== null;) parts.push(buf.slice(0, n));
  return new Uint8Array(Buffer.concat(parts));
}

/** Accepts one connection and resolves with its socket. */
function acceptOne(): { port: number; socket: Promise<TcpSocket>; close(): void } {
  let accepted!: (s: TcpSocket) => void;
  const socket = new Promise<TcpSocket>((r) => (accepted = r));
  const listener = listenTcp(LOOPBACK, accepted);
  return { port: listener.port, socket, close: () => listener.close() };
}

/** A client connected to a fresh listener, the server's socket for it, and a teardown. */
async function connected(): Promise<
  { client: Deno.TcpConn; socket: TcpSocket; server: ReturnType<typeof acceptOne>; end(): void }
> {
  const server = acceptOne();
  const client = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
  const socket = await server.socket;
  const end = () => {
    socket.destroy();
    client.close();
    server.close();
  };
  return { client, socket, server, end };
}

Deno.test("tcp socket: 4 MiB echoed back byte for byte, then both ends close", async () => {
  const server = acceptOne();
  const client = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
  const sent = new Uint8Array(4 << 20);
  for (let o = 0; o < sent.length; o += 65536) crypto.getRandomValues(sent.subarray(o, o + 65536));
  const socket = await server.socket;
  const closed = new Promise<void>((r) => socket.once("close", r));
  socket.on("data", (chunk: Uint8Array) => socket.write(chunk));
  socket.on("end", () => socket.end());
  const writing = (async () => {
    for (let o = 0; o < sent.length;) o += await client.write(sent.subarray(o));
    await client.closeWrite();
  })();
  const received = await readToEnd(client);
  await writing;
  await closed;
  assertEquals(received.length, sent.length);
  assertEquals(Buffer.compare(Buffer.from(received), Buffer.from(sent)), 0);
  client.close();
  server.close();
});

Deno.test("tcp socket: remote address and port are the client's", async () => {
  const { client, socket, end } = await connected();
  const local = client.localAddr as Deno.NetAddr;
  assertEquals([socket.remoteAddress, socket.remotePort, socket.remoteFamily], [
    local.hostname,
    local.port,
    "IPv4",
  ]);
  end();
});

Deno.test("tcp socket: nothing is lost while paused; reading resumes where it stopped", async () => {
  const { client, socket, end } = await connected();
  const chunks: Uint8Array[] = [];
  socket.on("data", (c: Uint8Array) => chunks.push(c));
  socket.pause();
  const message = new TextEncoder().encode("x".repeat(200_000));
  for (let o = 0; o < message.length;) o += await client.write(message.subarray(o));
  await new Promise((r) => setTimeout(r, 50));
  assertEquals(chunks.length, 0);
  const ended = new Promise((r) => socket.once("end", r));
  await client.closeWrite();
  socket.resume();
  await ended;
  assertEquals(Buffer.concat(chunks).length, message.length);
  end();
});

Deno.test("tcp socket: destroy closes the connection; the listener's close keeps it open", async () => {
  const { client, socket, server } = await connected();
  server.close();
  server.close();
  socket.write("still here");
  const buf = new Uint8Array(64);
  const n = await client.read(buf);
  assertEquals(new TextDecoder().decode(buf.subarray(0, n!)), "still here");
  const closed = new Promise((r) => socket.once("close", r));
  socket.destroy();
  await closed;
  assertEquals(socket.destroyed, true);
  assertEquals((await readToEnd(client)).length, 0);
  client.close();
  let refused = false;
  await Deno.connect({ hostname: "127.0.0.1", port: server.port }).then(
    (c) => c.close(),
    () => (refused = true),
  );
  assertEquals(refused, true);
});
