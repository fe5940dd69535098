/**
 * The embedded engine: one SQLite file in the data dir. Writes go through one connection, in
 * group-committed batches (`WriteBatcher`): a transaction holds that connection from its BEGIN to
 * its COMMIT, so transactions are serialized and never see each other half done. Reads outside a
 * transaction use a second connection, which sees only committed data (WAL). A worker thread
 * checkpoints the WAL while writes come (checkpointer.ts).
 */
import {
  openDatabase,
  openReadOnlyDatabase,
  releaseDatabaseMemory,
  WriteBatcher,
} from "./database.ts";
import { onDemandCheckpointer } from "./checkpointer.ts";
import { promised, type SyncResource } from "./sync.ts";
import { SqliteUsers } from "./users.ts";
import { SqliteInvites } from "./invites.ts";
import { SqliteChallenges } from "./challenges.ts";
import { SqliteTokens } from "./tokens.ts";
import { SqliteRepos } from "./repos.ts";
import { SqliteBots } from "./registry_bots.ts";
import { SqliteAuditLog } from "./registry_log.ts";
import { SqliteNonces } from "./registry_nonces.ts";
import { SqliteAttestations } from "./registry_attestations.ts";
import type { Resources, Store, Transaction } from "../store.ts";

const RESOURCES: { [K in keyof Resources]: SyncResource<Resources[K]> } = {
  users: SqliteUsers,
  invites: SqliteInvites,
  challenges: SqliteChallenges,
  tokens: SqliteTokens,
  repos: SqliteRepos,
  bots: SqliteBots,
  log: SqliteAuditLog,
  nonces: SqliteNonces,
  attestations: SqliteAttestations,
};

/** Options of `openSqliteStore`. */
export interface SqliteStoreOptions {
  /** Start the WAL checkpointer thread (default true); `onCheckpointFailure` hears why it stops. */
  checkpointer?: boolean;
  onCheckpointFailure?: (message: string) => void;
}

/** Opens (creating and migrating if needed) the SQLite database at `path` as a Store. */
export async function openSqliteStore(
  path: string,
  opts: SqliteStoreOptions = {},
): Promise<Store> {
  const writer = openDatabase(path);
  await Deno.chmod(path, 0o600).catch(() => {});
  const reader = openReadOnlyDatabase(path);
  // The checkpoint thread runs while writes come (checkpointer.ts).
  const checkpointer = opts.checkpointer === false
    ? null
    : onDemandCheckpointer(path, { onFailure: opts.onCheckpointFailure });
  const batcher = new WriteBatcher(writer, () => checkpointer?.wrote());

  const entries = Object.entries(RESOURCES) as [keyof Resources, SyncResource<unknown>][];
  const inTx: Record<string, unknown> = {};
  const syncInTx: Record<string, unknown> = {};
  for (const [name, Resource] of entries) {
    syncInTx[name] = new Resource(writer);
    inTx[name] = promised(syncInTx[name] as never);
  }
  const tx = inTx as unknown as Transaction;
  const transaction = <T>(fn: (tx: Transaction) => Promise<T>): Promise<T> =>
    batcher.run(() => fn(tx));
  const outside: Record<string, unknown> = {};
  for (const [name, Resource] of entries) {
    outside[name] = promised(new Resource(reader) as never, {
      writes: Resource.WRITES,
      run: (call) => batcher.run(() => call(syncInTx[name] as never)),
    });
  }
  let closed = false;
  return {
    ...(outside as unknown as Resources),
    engine: "sqlite",
    rateBuckets: null,
    transaction,
    expectTransaction: () => batcher.expect(),
    ping: () => Promise.resolve(),
    releaseMemory() {
      if (closed) return;
      releaseDatabaseMemory(reader);
      releaseDatabaseMemory(writer);
    },
    async close() {
      if (closed) return;
      closed = true;
      await batcher.idle();
      await checkpointer?.stop();
      reader.close();
      writer.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      writer.close();
    },
  };
}
