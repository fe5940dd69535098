/**
 * Avoids a 40 ms stall at the start of every SSH connection.
 *
 * OpenSSH sends its KEXINIT right after the version lines and, as soon as ours arrives, its key
 * exchange init: a small packet that Nagle's algorithm holds back until the KEXINIT is
 * acknowledged (git's ssh sessions do not set TCP_NODELAY). If our KEXINIT went out before theirs
 * arrived, the server's kernel has no data to carry that acknowledgement and delays it (40 ms on
 * Linux), and the whole connection waits. Sending our KEXINIT only once the client's has begun to
 * arrive lets it carry the acknowledgement. Clients that wait for the server's KEXINIT first still
 * get it, after `fallbackMs`.
 */
import type { Duplex as Socket } from "node:stream";

/**
 * Holds everything written to `socket` after the first write (our version line) until bytes
 * beyond the client's version line arrive, or `fallbackMs` passes. Call before handing the socket
 * to the SSH library.
 */
export function holdKexInitUntilPeerSpeaks(socket: Socket, fallbackMs = 250): void {
  // deno-lint-ignore no-explicit-any
  type WriteArgs = any[];
  const write = socket.write.bind(socket) as (...args: WriteArgs) => boolean;
  const held: WriteArgs[] = [];
  let writes = 0;
  let sawVersion = false;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    clearTimeout(timer);
    socket.write = write as typeof socket.write;
    socket.off("data", onData);
    for (const args of held) write(...args);
  };
  const onData = (chunk: Uint8Array) => {
    if (sawVersion) return release();
    const eol = chunk.indexOf(10);
    if (eol === -1) return;
    sawVersion = true;
    // Bytes after the client's version line are its first binary packet.
    if (eol < chunk.length - 1) release();
  };
  socket.write = ((...args: WriteArgs) => {
    if (released || writes++ === 0) return write(...args);
    held.push(args);
    return true;
  }) as typeof socket.write;
  socket.on("data", onData);
  socket.once("close", () => {
    held.length = 0;
    release();
  });
  const timer = setTimeout(release, fallbackMs);
}
