/**
 * The PostgreSQL store (SERVICE_DATABASE_URL=postgres://…): a postgres.js pool, migrated at
 * start, with one resource module per interface. Outages surface as DomainError("unavailable")
 * (HTTP 503) and the pool reconnects by itself once the server is back.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import postgres from "postgres";
import { DomainError } from "../../protocol/errors.ts";
import type { Resources, Store, Transaction } from "../store.ts";
import { pgChallenges } from "./challenges.ts";
import { GroupCommit } from "./group_commit.ts";
import { pgInvites } from "./invites.ts";
import { migrate } from "./migrate.ts";
import { pgAttestations } from "./registry_attestations.ts";
import { pgBots } from "./registry_bots.ts";
import { pgLog } from "./registry_log.ts";
import { pgNonces } from "./registry_nonces.ts";
import { pgRepos } from "./repos.ts";
import { pgRateBuckets } from "./rate_buckets.ts";
import type { RateBucketStore } from "../rate_buckets.ts";
import {
  isConnectionError,
  isUnreachable,
  mapError,
  type Sql,
  sqlState,
  type TxState,
  UNAVAILABLE,
} from "./sql.ts";
import { pgTokens } from "./tokens.ts";
import { pgUsers } from "./users.ts";

/** Options of `openPostgresStore`. */
export interface PostgresStoreOptions {
  /** How long connecting may take at start-up before failing; default 10 s. */
  connectTimeoutMs?: number;
  /** Connections in the pool; default 10. */
  poolSize?: number;
  /**
   * The longest a call may take before it fails as "unavailable" (also the server-side
   * statement_timeout); default 30 s.
   */
  queryTimeoutMs?: number;
  /** Receives server notices (default: dropped). */
  onNotice?: (message: string) => void;
  /**
   * Hears when calls start failing because PostgreSQL cannot be reached (`false`, with the
   * driver's error, password-free) and when one succeeds again (`true`): once per change.
   */
  onAvailability?: (available: boolean, error?: string) => void;
}

/** The resources running their SQL over `sql` (inside a transaction: with its `tx` state). */
export function resourcesOver(sql: Sql, tx?: TxState): Resources {
  return {
    users: pgUsers(sql),
    invites: pgInvites(sql),
    challenges: pgChallenges(sql),
    tokens: pgTokens(sql),
    repos: pgRepos(sql),
    bots: pgBots(sql),
    log: pgLog(sql, tx),
    nonces: pgNonces(sql),
    attestations: pgAttestations(sql),
  };
}

/** int8 (ids, counts, *_ms) as JS numbers, as the SQLite store returns them. */
export const INT8_AS_NUMBER = {
  to: 20,
  from: [20],
  serialize: (x: number | bigint) => String(x),
  parse: (x: string) => Number(x),
};

/**
 * Connects to `url`, migrates the database and returns the store. Fails within
 * `connectTimeoutMs` with an Error naming host, port, database and the likely cause, never the
 * password.
 */
export async function openPostgresStore(
  url: string,
  opts: PostgresStoreOptions = {},
): Promise<Store> {
  const target = describe(url);
  const connectTimeoutMs = opts.connectTimeoutMs ?? 10_000;
  const queryTimeoutMs = opts.queryTimeoutMs ?? 30_000;
  const { url: driverUrl, ...socket } = socketOptions(url);
  const sql = postgres(driverUrl, {
    ...socket,
    max: opts.poolSize ?? 10,
    connect_timeout: Math.max(1, Math.ceil(connectTimeoutMs / 1000)),
    idle_timeout: 60,
    max_lifetime: 30 * 60,
    prepare: true,
    fetch_types: false,
    onnotice: (n) => opts.onNotice?.(String(n.message)),
    types: { int8: INT8_AS_NUMBER },
    connection: {
      application_name: "signet",
      statement_timeout: queryTimeoutMs,
      idle_in_transaction_session_timeout: queryTimeoutMs,
    },
  }) as unknown as postgres.Sql<Record<string, never>>;
  try {
    await withTimeout(
      sql.unsafe("SELECT 1"),
      connectTimeoutMs,
      () => new Error(`timed out after ${Math.round(connectTimeoutMs / 1000)} s`),
    );
    // Migrating may take long (or wait for another instance's): no deadline but the server's.
    await migrate(sql);
  } catch (err) {
    await sql.end({ timeout: 0 }).catch(() => {});
    throw new Error(startError(err, target, connectTimeoutMs), { cause: scrub(err, target) });
  }
  return new PostgresStore(sql, queryTimeoutMs, (available, err) => {
    opts.onAvailability?.(available, err === undefined ? undefined : scrub(err, target).message);
  });
}

// The transaction (and its resources) the current async call chain runs in, if any.
const current = new AsyncLocalStorage<{ sql: Sql; resources: Resources }>();

class PostgresStore implements Store {
  readonly engine = "postgres" as const;
  readonly users;
  readonly invites;
  readonly challenges;
  readonly tokens;
  readonly repos;
  readonly bots;
  readonly log;
  readonly nonces;
  readonly attestations;
  readonly rateBuckets: RateBucketStore;
  #closed = false;
  /** Whether PostgreSQL answered the last call that could tell (an outage flips it once). */
  #available = true;
  /** How many times #available changed. */
  #changes = 0;
  readonly #pool: Resources;
  readonly #commits: GroupCommit;

  constructor(
    private readonly sql: postgres.Sql<Record<string, never>>,
    private readonly queryTimeoutMs: number,
    private readonly onAvailability: (available: boolean, err?: unknown) => void,
  ) {
    this.#pool = resourcesOver(sql);
    this.#commits = new GroupCommit(
      (fn) => this.sql.begin(fn) as Promise<never>,
      (run) => {
        let abandoned = false;
        return withTimeout(run(() => abandoned), this.queryTimeoutMs + 5_000, () => {
          abandoned = true;
          return new DomainError("unavailable", UNAVAILABLE);
        });
      },
    );
    // A call on the store made inside `transaction`'s function runs in that transaction.
    const route = <K extends keyof Resources>(name: K): Resources[K] => {
      const out: Record<string, unknown> = {};
      for (const method of Object.keys(this.#pool[name])) {
        out[method] = (...args: unknown[]) => {
          const tx = current.getStore();
          const target = (tx ? tx.resources : this.#pool)[name] as unknown as Record<
            string,
            (...a: unknown[]) => Promise<unknown>
          >;
          return tx ? target[method](...args) : this.#guard(() => target[method](...args));
        };
      }
      return out as unknown as Resources[K];
    };
    this.users = route("users");
    this.invites = route("invites");
    this.challenges = route("challenges");
    this.tokens = route("tokens");
    this.repos = route("repos");
    this.bots = route("bots");
    this.log = route("log");
    this.nonces = route("nonces");
    this.attestations = route("attestations");
    const buckets = pgRateBuckets(sql);
    this.rateBuckets = {
      take: (...args) => this.#guard(() => buckets.take(...args)),
      prune: (nowMs) => this.#guard(() => buckets.prune(nowMs)),
    };
  }

  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    const outer = current.getStore();
    if (outer) return fn(outer.resources);
    if (this.#closed) return Promise.reject(new DomainError("unavailable", UNAVAILABLE));
    const since = this.#changes;
    return this.#commits.run((sql, state) => {
      const resources = resourcesOver(sql, state);
      return current.run({ sql, resources }, () => fn(resources));
    }).then((out) => {
      this.#reached(true, since);
      return out;
    }, (err) => {
      throw this.#mapped(err, since);
    });
  }

  expectTransaction(): () => void {
    return this.#commits.expect();
  }

  async ping(): Promise<void> {
    await this.#guard(() => this.sql.unsafe("SELECT 1"));
  }

  /** Nothing to give back: the rows live in PostgreSQL's memory, not this process's. */
  releaseMemory(): void {}

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.sql.end({ timeout: 5 });
  }

  // Maps outages to DomainError("unavailable") and gives up on a call that takes too long.
  async #guard<T>(call: () => Promise<T>, onTimeout?: () => void): Promise<T> {
    if (this.#closed) throw new DomainError("unavailable", UNAVAILABLE);
    const since = this.#changes;
    try {
      const out = await withTimeout(call(), this.queryTimeoutMs + 5_000, () => {
        onTimeout?.();
        return new DomainError("unavailable", UNAVAILABLE);
      });
      this.#reached(true, since);
      return out;
    } catch (err) {
      throw this.#mapped(err, since);
    }
  }

  // `err` as the caller sees it; failing to reach PostgreSQL marks it unreachable. `since`: the
  // number of changes when the call began.
  #mapped(err: unknown, since: number): unknown {
    const mapped = mapError(err);
    if (isUnreachable(err)) this.#reached(false, since, err);
    else if (!(mapped instanceof DomainError && mapped.kind === "unavailable")) {
      this.#reached(true, since);
    }
    return mapped;
  }

  // Tells onAvailability when PostgreSQL's reachability changed (never after close). A call that
  // began before the last change says nothing: it may have been sent to the server before it went
  // away, or have failed before it came back.
  #reached(available: boolean, since: number, err?: unknown): void {
    if (available === this.#available || this.#closed || since !== this.#changes) return;
    this.#available = available;
    this.#changes++;
    this.onAvailability(available, err);
  }
}

/** `p`, or a rejection with `error()` once `ms` have passed (a late failure of `p` is dropped). */
export function withTimeout<T>(p: Promise<T>, ms: number, error: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(error()), ms);
  });
  p.catch(() => {}); // a late failure after the timeout is not unhandled
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * A URL naming a Unix-domain socket directory the libpq way (`?host=/run/postgresql`), as
 * postgres.js wants it: the URL without that parameter, and the socket's `path` (absent for TCP)
 * to spread into the driver's options.
 */
export function socketOptions(url: string): { url: string; path?: string } {
  const u = new URL(url);
  const dir = u.searchParams.get("host");
  if (!dir || !dir.startsWith("/")) return { url };
  u.searchParams.delete("host");
  return { url: u.toString(), path: `${dir.replace(/\/+$/, "")}/.s.PGSQL.${u.port || "5432"}` };
}

interface Target {
  host: string;
  port: string;
  database: string;
  user: string;
  password: string;
}

function describe(url: string): Target {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error("SERVICE_DATABASE_URL is not a valid postgres:// URL");
  }
  const user = decodeURIComponent(u.username) || "postgres";
  const socket = socketOptions(url).path;
  return {
    // A Unix-domain socket (`?host=/dir`) is named by its path, as libpq's messages do.
    host: socket ? `socket ${socket}` : u.hostname || "localhost",
    port: u.port || "5432",
    database: decodeURIComponent(u.pathname.replace(/^\//, "")) || user,
    user,
    password: decodeURIComponent(u.password),
  };
}

// The start-up failure as one line: where, and the likely cause.
function startError(err: unknown, t: Target, timeoutMs: number): string {
  const at = t.host.startsWith("socket ") ? t.host : `${t.host}:${t.port}`;
  const where = `cannot open PostgreSQL database "${t.database}" at ${at} as user "${t.user}"`;
  const code = sqlState(err);
  let cause: string;
  if (err instanceof Error && /^(timed out|database schema version)/.test(err.message)) {
    cause = err.message;
  } else if (code === "ECONNREFUSED" || err instanceof Deno.errors.ConnectionRefused) {
    cause = `connection refused: is PostgreSQL running and listening on ${at}?`;
  } else if (code === "ENOENT" || err instanceof Deno.errors.NotFound) {
    cause =
      `no such socket: is PostgreSQL running, and is ${at} its socket (its directory and port)?`;
  } else if (code === "ENOTFOUND" || code === "EAI_AGAIN") {
    cause = `host ${t.host} not found: check the host name in SERVICE_DATABASE_URL`;
  } else if (code === "CONNECT_TIMEOUT" || code === "ETIMEDOUT") {
    cause = `timed out after ${Math.round(timeoutMs / 1000)} s: is ${at} reachable?`;
  } else if (code === "28P01") {
    cause = `password authentication failed for user "${t.user}"`;
  } else if (code === "3D000") {
    cause = `database "${t.database}" does not exist (create it, owned by "${t.user}")`;
  } else if (code === "28000") {
    cause = `the server refused user "${t.user}": ${scrub(err, t).message}`;
  } else if (code === "42501") {
    cause = `user "${t.user}" lacks a privilege the schema needs: ${scrub(err, t).message}`;
  } else if (code === "0A000" || code === "58P01") {
    cause = `the server cannot provide what the schema needs: ${scrub(err, t).message}`;
  } else if (isConnectionError(err)) {
    cause = `the connection failed (${code ?? "network error"})`;
  } else {
    cause = scrub(err, t).message;
  }
  return `${where}: ${cause}`;
}

/**
 * Why connecting to `url` failed, as one line naming the database, where it is and the likely
 * cause, never the password (what a start-up failure says).
 */
export function explainConnectFailure(err: unknown, url: string, timeoutMs = 10_000): string {
  return startError(err, describe(url), timeoutMs);
}

// The error with the password removed from its message (drivers may echo connection strings).
function scrub(err: unknown, t: Target): Error {
  const message = err instanceof Error ? err.message : String(err);
  if (!t.password) return new Error(message);
  return new Error(message.split(t.password).join("***"));
}
