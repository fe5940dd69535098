/**
 * The storage interface the domain talks to: one small store per resource, composed here, with
 * one implementation per engine (`db/sqlite/`, `db/postgres/`). Everything is async and carries
 * no driver types, so the domain cannot tell the engines apart; `openStore` (db/open.ts) picks one.
 */
import type { ChallengeStore } from "./challenges.ts";
import type { InviteStore } from "./invites.ts";
import type { AttestationStore } from "./registry_attestations.ts";
import type { BotStore } from "./registry_bots.ts";
import type { AuditLogStore } from "./registry_log.ts";
import type { NonceStore } from "./registry_nonces.ts";
import type { RateBucketStore } from "./rate_buckets.ts";
import type { RepoStore } from "./repos.ts";
import type { TokenStore } from "./tokens.ts";
import type { UserStore } from "./users.ts";

/** Which engine a store runs on. */
export type Engine = "sqlite" | "postgres";

/** Every resource's store. */
export interface Resources {
  users: UserStore;
  invites: InviteStore;
  challenges: ChallengeStore;
  tokens: TokenStore;
  repos: RepoStore;
  bots: BotStore;
  log: AuditLogStore;
  nonces: NonceStore;
  attestations: AttestationStore;
}

/** What a transaction's function receives: the resources, all inside that one transaction. */
export type Transaction = Resources;

/** The open database. Calls outside `transaction` each commit on their own. */
export interface Store extends Resources {
  readonly engine: Engine;
  /**
   * The rate limits' token buckets, shared by every instance on the database; null on an engine
   * one process owns (SQLite), whose limiter keeps them in memory. Outside any transaction.
   */
  readonly rateBuckets: RateBucketStore | null;
  /**
   * Runs `fn` in one transaction: it commits when `fn` resolves and changes nothing when it
   * throws (the error is rethrown). `fn` may run more than once (an engine that groups
   * transactions into one commit retries the others when one fails), so it must not act outside
   * the database. Transactions that could conflict are serialized or fail cleanly, never merged.
   */
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
  /**
   * Announces a transaction that is being prepared and will probably be submitted soon (an
   * engine that groups commits waits briefly for it); call the returned function once, after
   * submitting it or giving up.
   */
  expectTransaction(): () => void;
  /** Resolves when the database answers; rejects with DomainError("unavailable") when not. */
  ping(): Promise<void>;
  /**
   * Gives back memory held only for speed (caches, mappings of the database file), for a server at
   * rest; the next reads are slower once. Nothing on an engine that holds none (PostgreSQL).
   */
  releaseMemory(): void;
  /** Finishes pending writes and closes the connections. */
  close(): Promise<void>;
}
