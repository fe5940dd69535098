/**
 * The parts of the npm `ssh2` server API Signet uses, typed here: `@types/ssh2` depends on
 * Node 18's global types, which would replace Deno's own (breaking `node:sqlite` and timers).
 */
import type ssh2Module from "ssh2";
import type { Duplex, Writable } from "node:stream";
import { loadWithFinalizingChacha20 } from "./chacha20_release.ts";

/** A key parsed by ssh2. */
export interface ParsedKey {
  type: string;
  verify(data: Uint8Array, signature: Uint8Array, hashAlgo?: string): boolean | Error;
}

/** One authentication request from a client. */
export interface AuthContext {
  username: string;
  method: string;
  /** For `publickey`: the offered key's algorithm and SSH wire blob. */
  key?: { algo: string; data: Uint8Array };
  /** For `publickey` with a signature: the signature and the data it must cover. */
  signature?: Uint8Array;
  blob?: Uint8Array;
  hashAlgo?: string;
  accept(): void;
  reject(methodsLeft?: string[], partialSuccess?: boolean): void;
}

/** A session channel once exec or shell was accepted: stdin/stdout plus stderr and exit. */
export interface ServerChannel extends Duplex {
  stderr: Writable;
  /** Sends `exit-status`. */
  exit(status: number): void;
}

/** Reply functions are undefined when the client did not ask for a reply. */
type Reply = (() => void) | undefined;

/** A session before its exec or shell request. */
export interface Session {
  on(event: "pty", listener: (accept: Reply, reject: Reply) => void): this;
  on(event: "window-change", listener: (accept: Reply, reject: Reply) => void): this;
  on(
    event: "env",
    listener: (accept: Reply, reject: Reply, info: { key: string; val: string }) => void,
  ): this;
  on(
    event: "exec",
    listener: (accept: () => ServerChannel, reject: Reply, info: { command: string }) => void,
  ): this;
  on(event: "shell", listener: (accept: () => ServerChannel, reject: Reply) => void): this;
}

/** One client connection. */
export interface Connection {
  on(event: "authentication", listener: (ctx: AuthContext) => void): this;
  on(event: "ready" | "close", listener: () => void): this;
  on(event: "error", listener: (err: Error) => void): this;
  on(event: "session", listener: (accept: () => Session, reject: () => void) => void): this;
  end(): void;
}

/** Where a connection comes from. */
export interface ClientInfo {
  ip: string;
  port: number;
}

/** Algorithm lists, in preference order. */
export interface Algorithms {
  kex?: string[];
  cipher?: string[];
  serverHostKey?: string[];
  hmac?: string[];
  compress?: string[];
}

/** Options of the ssh2 server. */
export interface ServerConfig {
  hostKeys: string[];
  algorithms?: Algorithms;
  ident?: string;
  keepaliveInterval?: number;
  keepaliveCountMax?: number;
}

/** The ssh2 server; Signet hands it sockets from its own listener. */
export interface Ssh2Server {
  injectSocket(socket: Duplex): void;
  on(event: "connection", listener: (client: Connection, info: ClientInfo) => void): this;
}

// ssh2 (with the Node APIs it pulls in, some 15 MB of memory) is loaded by the first SSH
// connection, not at start: a server nobody reaches over SSH never holds it.
let loaded: typeof ssh2Module | null = null;
let loading: Promise<typeof ssh2Module> | null = null;

/**
 * Loads ssh2 (once), with the `node:crypto` functions that release its per-packet chacha20
 * contexts (chacha20_release.ts).
 */
export function loadSsh2(): Promise<typeof ssh2Module> {
  return loading ??= loadWithFinalizingChacha20(() => import("ssh2")).then((m) =>
    loaded = m.default
  );
}

/** Creates an ssh2 server, loading ssh2 first if no one has yet. */
export async function createSsh2Server(config: ServerConfig): Promise<Ssh2Server> {
  return new (await loadSsh2()).Server(config);
}

/**
 * Parses a public or private key (SSH wire blob, OpenSSH or PEM text). Called during an SSH
 * connection's authentication, so after `createSsh2Server` loaded ssh2; throws before that.
 */
export function parseKey(data: Uint8Array | string): ParsedKey | ParsedKey[] | Error {
  if (!loaded) throw new Error("ssh2 is not loaded: create the ssh2 server first");
  return loaded.utils.parseKey(data);
}
