/** The SSH server: ssh2 on a plain TCP listener, with connection caps, deadlines and auth. */
import { AddressCounts, addressPrefix, normalizeIp } from "../ip.ts";
import {
  type BindAddress,
  ConfigError,
  DEFAULT_SSH_IDLE_TIMEOUT_S,
  DEFAULT_SSH_MAX_STARTUPS,
  DEFAULT_SSH_MAX_STARTUPS_PER_PREFIX,
} from "../config.ts";
import type { Signet } from "../context.ts";
import { log } from "../log.ts";
import { ActivityTimer } from "./activity.ts";
import {
  authenticate,
  type AuthState,
  logAuthFailure,
  newAuthState,
  noUsableKeyReason,
} from "./auth.ts";
import { loadOrCreateHostKey } from "./hostkey.ts";
import { holdKexInitUntilPeerSpeaks } from "./kexinit_hold.ts";
import { handleSession, type Peer } from "./session.ts";
import { type Connection, createSsh2Server, type Ssh2Server } from "./ssh2.ts";
import { ALGORITHMS } from "./algorithms.ts";
import { type MaxStartups, type Refusal, StartupSlots } from "./startups.ts";
import { coalesceWrites } from "./write_coalescer.ts";
import { type ConnectionTimeline, newTimeline } from "./timeline.ts";
import { listenTcp, type TcpSocket } from "./tcp_socket.ts";

/** Timeouts and caps of the SSH server (see docs/decisions/ssh.md). */
export interface SshLimits {
  /** From TCP accept to the client's identification line (its first bytes). */
  identTimeoutMs: number;
  /** From TCP accept to successful authentication. */
  handshakeTimeoutMs: number;
  /**
   * An authenticated connection with no input and no running command is closed after this
   * (0 = never).
   */
  idleTimeoutMs: number;
  /** Open connections at once, authenticated or not. */
  maxConnections: number;
  /** Connections in handshake or authentication (within maxConnections): sshd's MaxStartups. */
  maxStartups: MaxStartups;
  /** Connections still in handshake or authentication from one /24 (IPv4) or /64 (IPv6). */
  maxStartupsPerPrefix: number;
  /** Open connections at once from one IP address. */
  maxConnectionsPerIp: number;
  /** Rejected authentication attempts before the connection is dropped. */
  maxAuthFailures: number;
  /** SSH-level keepalive probing, to drop peers that vanished mid-transfer. */
  keepaliveIntervalMs: number;
  keepaliveCountMax: number;
  /** Random numbers in [0, 1) for the random early drop (tests make it deterministic). */
  random?: () => number;
}

/** The limits `signet serve` uses. */
export const DEFAULT_SSH_LIMITS: SshLimits = {
  identTimeoutMs: 10_000,
  handshakeTimeoutMs: 30_000,
  idleTimeoutMs: DEFAULT_SSH_IDLE_TIMEOUT_S * 1000,
  maxConnections: 256,
  maxStartups: DEFAULT_SSH_MAX_STARTUPS,
  maxStartupsPerPrefix: DEFAULT_SSH_MAX_STARTUPS_PER_PREFIX,
  maxConnectionsPerIp: 16,
  maxAuthFailures: 10,
  keepaliveIntervalMs: 30_000,
  keepaliveCountMax: 4,
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
  const hostKey = await loadOrCreateHostKey(ctx.config.sshHostKeyPath).catch((err) => {
    throw new ConfigError(
      `SERVICE_SSH_HOST_KEY=${ctx.config.sshHostKeyPath}: ${(err as Error).message}`,
    );
  });
  if (hostKey.generated) {
    log("info", "ssh host key generated", {
      path: ctx.config.sshHostKeyPath,
      fingerprint: hostKey.fingerprint,
    });
  }
  // The ssh2 server is made by the first connection (ssh2.ts says why); every later one reuses it.
  let making: Promise<Ssh2Server> | null = null;
  const sshServer = () =>
    making ??= createSsh2Server({
      hostKeys: [hostKey.privateKey],
      algorithms: ALGORITHMS,
      ident: "Signet",
      keepaliveInterval: limits.keepaliveIntervalMs,
      keepaliveCountMax: limits.keepaliveCountMax,
    }).then((server) => {
      // ssh2 reports a connection once the client's identification line has arrived.
      server.on("connection", (client, info) => {
        const remote = normalizeIp(info.ip) ?? info.ip;
        const waiting = pending.get(`${remote}:${info.port}`);
        waiting?.identified();
        handleConnection(
          ctx,
          client,
          remote,
          limits,
          waiting?.timeline ?? newTimeline(),
          () => waiting?.authenticated(),
        );
      });
      return server;
    });
  const sockets = new Set<TcpSocket>();
  /** Connections not authenticated yet, by `remote:port`: called as they get further. */
  const pending = new Map<
    string,
    { timeline: ConnectionTimeline; identified(): void; authenticated(): void }
  >();
  const perIp = new AddressCounts();
  const startups = new StartupSlots<TcpSocket>(
    limits.maxStartups,
    limits.maxStartupsPerPrefix,
    limits.random,
  );
  const refused = refusalLog();

  const tcp = listenTcp(bind, (socket) => {
    // Normalized as HTTP does, so an IPv4 client on a dual-stack listener counts as itself.
    const remote = normalizeIp(socket.remoteAddress) ?? socket.remoteAddress;
    if (sockets.size >= limits.maxConnections) return refuse(socket, remote, "connections");
    if (perIp.held(remote) >= limits.maxConnectionsPerIp) return refuse(socket, remote, "address");
    const admission = startups.admit(addressPrefix(remote), socket);
    if (!admission.admitted) return refuse(socket, remote, admission.reason);
    if (admission.evicted) {
      log("warn", "ssh unauthenticated connection dropped: a new network needed its slot", {
        remote_addr: normalizeIp(admission.evicted.remoteAddress),
      });
      admission.evicted.destroy();
    }
    perIp.add(remote);
    socket.setNoDelay(true);
    sockets.add(socket);
    const id = `${remote}:${socket.remotePort}`;
    const timeout = (msg: string, ms: number) =>
      setTimeout(() => {
        log("warn", msg, { remote_addr: remote });
        socket.destroy();
      }, ms);
    const identDeadline = timeout("ssh identification timeout", limits.identTimeoutMs);
    const deadline = timeout("ssh handshake timeout", limits.handshakeTimeoutMs);
    const timeline = newTimeline();
    const progress = {
      timeline,
      identified: () => {
        timeline.identified = performance.now();
        clearTimeout(identDeadline);
      },
      authenticated() {
        startups.release(socket);
        clearTimeout(deadline);
        if (pending.get(id) === progress) pending.delete(id);
      },
    };
    pending.set(id, progress);
    socket.once("close", () => {
      perIp.remove(remote);
      sockets.delete(socket);
      startups.release(socket);
      if (pending.get(id) === progress) pending.delete(id);
      clearTimeout(identDeadline);
      clearTimeout(deadline);
    });
    socket.on("error", () => {});
    // Until ssh2 has the socket, nothing reads it (no data listener): what the client sends waits.
    const handOver = (server: Ssh2Server) => {
      if (socket.destroyed) return;
      coalesceWrites(socket);
      holdKexInitUntilPeerSpeaks(socket);
      server.injectSocket(socket);
    };
    sshServer().then(handOver, (err) => {
      log("error", "ssh server could not start", { error: String(err) });
      socket.destroy();
    });
  });

  /** Closes a connection refused before the SSH handshake, and logs it (at most every 10 s). */
  function refuse(socket: TcpSocket, remote: string, reason: RefusalReason): void {
    socket.destroy();
    refused(remote, reason, limits);
  }

  return {
    port: tcp.port,
    fingerprint: hostKey.fingerprint,
    stopListening() {
      tcp.close();
    },
    close() {
      tcp.close();
      for (const socket of sockets) socket.destroy();
      return Promise.resolve();
    },
  };
}

/** Wires one ssh2 connection: authentication, then sessions once a verified key is known. */
function handleConnection(
  ctx: Signet,
  client: Connection,
  remote: string,
  limits: SshLimits,
  timeline: ConnectionTimeline,
  authenticated: () => void,
): void {
  const auth: AuthState = newAuthState();
  let peer: Peer | undefined;
  let markClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => (markClosed = resolve));

  client.on("error", () => {});
  client.on("authentication", (request) => {
    const started = performance.now();
    Promise.resolve(authenticate(request, auth, remote, limits.maxAuthFailures, ctx.limiter))
      .then((ok) => {
        timeline.authMs += performance.now() - started;
        if (!ok) client.end();
      });
  });
  client.on("ready", () => {
    timeline.authenticated = performance.now();
    authenticated();
    const key = auth.key!;
    const activity = new ActivityTimer(limits.idleTimeoutMs, () => {
      log("info", "ssh idle timeout", { remote_addr: remote });
      client.end();
    });
    peer = { ctx, key, remote, activity, closed, timeline };
    client.on("session", (accept) => handleSession(peer!, accept));
  });
  client.on("close", () => {
    peer?.activity.stop();
    markClosed();
    if (!auth.key && auth.failures > 0 && !auth.logged) {
      logAuthFailure(auth, remote, noUsableKeyReason(auth));
    }
  });
}

/** Why a connection was closed before its handshake began. */
type RefusalReason = Refusal | "connections" | "address";

const REFUSAL_TEXT: Record<RefusalReason, (limits: SshLimits) => string> = {
  connections: (l) => `too many connections (limit ${l.maxConnections})`,
  address: (l) => `too many connections from this address (limit ${l.maxConnectionsPerIp})`,
  prefix: (l) =>
    `too many unauthenticated connections from this network (limit ${l.maxStartupsPerPrefix})`,
  random: (l) => `random early drop (more than ${l.maxStartups.start} unauthenticated)`,
  full: (l) => `too many unauthenticated connections (limit ${l.maxStartups.full})`,
};

/**
 * Logs refused connections: the first at once, then at most one line every 10 s with the count
 * since the last, so an attacker retrying in a loop cannot flood the log.
 */
function refusalLog(): (remote: string, reason: RefusalReason, limits: SshLimits) => void {
  let count = 0;
  let loggedAt = -Infinity;
  return (remote, reason, limits) => {
    count++;
    if (performance.now() - loggedAt < 10_000) return;
    log("warn", `ssh connection refused: ${REFUSAL_TEXT[reason](limits)}`, {
      remote_addr: remote,
      refused: count,
    });
    count = 0;
    loggedAt = performance.now();
  };
}
