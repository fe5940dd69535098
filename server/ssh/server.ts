/** The SSH server: ssh2 on a plain TCP listener, with connection caps, deadlines and auth. */
import { createServer, type Socket } from "node:net";
import { AddressCounts, normalizeIp } from "../ip.ts";
import type { BindAddress } from "../config.ts";
import type { Signet } from "../context.ts";
import { fingerprint } from "../crypto/sshkey.ts";
import { log } from "../log.ts";
import { ActivityTimer } from "./activity.ts";
import { authenticate, type AuthState, logAuthFailure, newAuthState } from "./auth.ts";
import { loadOrCreateHostKey } from "./hostkey.ts";
import { holdKexInitUntilPeerSpeaks } from "./kexinit_hold.ts";
import { handleSession, type Peer } from "./session.ts";
import { type Algorithms, type Connection, createSsh2Server } from "./ssh2.ts";
import { coalesceWrites } from "./write_coalescer.ts";

/** Timeouts and caps of the SSH server (see docs/decisions.md). */
export interface SshLimits {
  /** From TCP accept to successful authentication. */
  handshakeTimeoutMs: number;
  /** An authenticated connection with no input and no running command is closed after this. */
  idleTimeoutMs: number;
  /** Open connections at once, authenticated or not. */
  maxConnections: number;
  /** Connections still in handshake or authentication at once (within maxConnections). */
  maxUnauthenticated: number;
  /** Open connections at once from one IP address. */
  maxConnectionsPerIp: number;
  /** Rejected authentication attempts before the connection is dropped. */
  maxAuthFailures: number;
  /** SSH-level keepalive probing, to drop peers that vanished mid-transfer. */
  keepaliveIntervalMs: number;
  keepaliveCountMax: number;
}

/** The limits `signet serve` uses. */
export const DEFAULT_SSH_LIMITS: SshLimits = {
  handshakeTimeoutMs: 30_000,
  idleTimeoutMs: 10 * 60_000,
  maxConnections: 256,
  maxUnauthenticated: 64,
  maxConnectionsPerIp: 16,
  maxAuthFailures: 10,
  keepaliveIntervalMs: 30_000,
  keepaliveCountMax: 4,
};

/**
 * Algorithms offered. The client's preference picks among them; OpenSSH picks chacha20 first,
 * which measured fastest under Deno (docs/decisions.md). No CBC, no SHA-1 MACs.
 */
const ALGORITHMS: Algorithms = {
  kex: [
    "curve25519-sha256",
    "curve25519-sha256@libssh.org",
    "ecdh-sha2-nistp256",
    "ecdh-sha2-nistp384",
    "ecdh-sha2-nistp521",
    "diffie-hellman-group16-sha512",
    "diffie-hellman-group14-sha256",
  ],
  cipher: [
    "chacha20-poly1305@openssh.com",
    "aes128-gcm@openssh.com",
    "aes256-gcm@openssh.com",
    "aes128-ctr",
    "aes192-ctr",
    "aes256-ctr",
  ],
  hmac: [
    "hmac-sha2-256-etm@openssh.com",
    "hmac-sha2-512-etm@openssh.com",
    "hmac-sha2-256",
    "hmac-sha2-512",
  ],
  compress: ["none"],
};

/** A running SSH server. */
export interface SshServer {
  /** The port it listens on (useful when the bind asked for port 0). */
  port: number;
  /** The host key's `SHA256:…` fingerprint. */
  fingerprint: string;
  /** Stops accepting connections; open ones (and their transfers) carry on. */
  stopListening(): void;
  /** Stops listening and drops every connection. */
  close(): Promise<void>;
}

/** Loads (or creates) the host key and starts listening on `bind`. */
export async function startSshServer(
  ctx: Signet,
  bind: BindAddress,
  limits: SshLimits = DEFAULT_SSH_LIMITS,
): Promise<SshServer> {
  const hostKey = await loadOrCreateHostKey(ctx.config.sshHostKeyPath);
  if (hostKey.generated) {
    log("info", "ssh host key generated", {
      path: ctx.config.sshHostKeyPath,
      fingerprint: hostKey.fingerprint,
    });
  }
  const ssh = createSsh2Server({
    hostKeys: [hostKey.privateKey],
    algorithms: ALGORITHMS,
    ident: "Signet",
    keepaliveInterval: limits.keepaliveIntervalMs,
    keepaliveCountMax: limits.keepaliveCountMax,
  });
  const sockets = new Set<Socket>();
  const onAuthenticated = new Map<string, () => void>();
  let unauthenticated = 0;
  const perIp = new AddressCounts();

  const tcp = createServer((socket) => {
    // Normalized as HTTP does, so an IPv4 client on a dual-stack listener counts as itself.
    const remote = normalizeIp(socket.remoteAddress ?? "") ?? socket.remoteAddress ?? "unknown";
    if (sockets.size >= limits.maxConnections || unauthenticated >= limits.maxUnauthenticated) {
      log("warn", "ssh connection refused: too many connections", { remote_addr: remote });
      socket.destroy();
      return;
    }
    if (perIp.held(remote) >= limits.maxConnectionsPerIp) {
      log("warn", "ssh connection refused: too many connections from this address", {
        remote_addr: remote,
      });
      socket.destroy();
      return;
    }
    perIp.add(remote);
    socket.setNoDelay(true);
    sockets.add(socket);
    unauthenticated++;
    let authenticated = false;
    const id = `${remote}:${socket.remotePort}`;
    const deadline = setTimeout(() => {
      log("warn", "ssh handshake timeout", { remote_addr: remote });
      socket.destroy();
    }, limits.handshakeTimeoutMs);
    onAuthenticated.set(id, () => {
      authenticated = true;
      unauthenticated--;
      clearTimeout(deadline);
    });
    socket.once("close", () => {
      perIp.remove(remote);
      sockets.delete(socket);
      onAuthenticated.delete(id);
      clearTimeout(deadline);
      if (!authenticated) unauthenticated--;
    });
    socket.on("error", () => {});
    coalesceWrites(socket);
    holdKexInitUntilPeerSpeaks(socket);
    ssh.injectSocket(socket);
  });

  ssh.on("connection", (client, info) => {
    const id = `${info.ip}:${info.port}`;
    handleConnection(ctx, client, info.ip, limits, () => onAuthenticated.get(id)?.());
  });

  await new Promise<void>((resolve, reject) => {
    tcp.once("error", reject);
    tcp.listen(bind.port, bind.hostname, () => {
      tcp.off("error", reject);
      resolve();
    });
  });
  tcp.on("error", (err) => log("error", "ssh listener error", { error: err.message }));
  const address = tcp.address();
  const port = typeof address === "object" && address ? address.port : bind.port;

  return {
    port,
    fingerprint: hostKey.fingerprint,
    stopListening() {
      if (tcp.listening) tcp.close();
    },
    async close() {
      const closed = new Promise<void>((resolve) => {
        if (tcp.listening) tcp.close(() => resolve());
        else resolve();
      });
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

/** Wires one ssh2 connection: authentication, then sessions once a verified key is known. */
function handleConnection(
  ctx: Signet,
  client: Connection,
  remote: string,
  limits: SshLimits,
  authenticated: () => void,
): void {
  const auth: AuthState = newAuthState();
  let peer: Peer | undefined;
  let markClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => (markClosed = resolve));

  client.on("error", () => {});
  client.on("authentication", (request) => {
    if (!authenticate(request, auth, remote, limits.maxAuthFailures, ctx.limiter)) client.end();
  });
  client.on("ready", () => {
    authenticated();
    const key = auth.key!;
    const activity = new ActivityTimer(limits.idleTimeoutMs, () => {
      log("info", "ssh idle timeout", { remote_addr: remote });
      client.end();
    });
    peer = { ctx, key, fingerprint: fingerprint(key.blob), remote, activity, closed };
    client.on("session", (accept) => handleSession(peer!, accept));
  });
  client.on("close", () => {
    peer?.activity.stop();
    markClosed();
    if (!auth.key && auth.failures > 0 && !auth.logged) {
      logAuthFailure(auth, remote, "no usable key");
    }
  });
}
