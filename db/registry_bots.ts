/** Data access for registry bot records and their derived index rows (keys, capabilities, controllers, search). */
import type { Database } from "./database.ts";

/** What is stored for one bot: the JSON record plus the columns the indexes need. */
export interface BotWrite {
  botId: string;
  status: string;
  searchText: string;
  record: string;
  version: number;
  createdAt: string;
  updatedAt: string;
  keys: { keyId: string; publicKey: string; status: string }[];
  capabilities: string[];
  controllers: string[];
}

/** The stored JSON record of `botId`, or undefined. */
export function loadBotRecord(db: Database, botId: string): string | undefined {
  const row = db.prepare("SELECT record FROM registry_bots WHERE bot_id = ?").get(botId) as
    | { record: string }
    | undefined;
  return row?.record;
}

/** Inserts or replaces a bot and rewrites its index rows; call inside a transaction. */
export function saveBot(db: Database, bot: BotWrite): void {
  db.prepare(
    `INSERT INTO registry_bots (bot_id, status, search_text, record, version, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (bot_id) DO UPDATE SET status = excluded.status, search_text = excluded.search_text,
       record = excluded.record, version = excluded.version, updated_at = excluded.updated_at`,
  ).run(
    bot.botId,
    bot.status,
    bot.searchText,
    bot.record,
    bot.version,
    bot.createdAt,
    bot.updatedAt,
  );
  for (const table of ["registry_keys", "registry_capabilities", "registry_controllers"]) {
    db.prepare(`DELETE FROM ${table} WHERE bot_id = ?`).run(bot.botId);
  }
  db.prepare("DELETE FROM registry_search WHERE bot_id = ?").run(bot.botId);
  const key = db.prepare(
    "INSERT INTO registry_keys (bot_id, key_id, public_key, status) VALUES (?, ?, ?, ?)",
  );
  for (const k of bot.keys) key.run(bot.botId, k.keyId, k.publicKey, k.status);
  const cap = db.prepare("INSERT INTO registry_capabilities (capability, bot_id) VALUES (?, ?)");
  for (const c of bot.capabilities) cap.run(c, bot.botId);
  const ctl = db.prepare("INSERT INTO registry_controllers (bot_id, controller_id) VALUES (?, ?)");
  for (const c of bot.controllers) ctl.run(bot.botId, c);
  db.prepare("INSERT INTO registry_search (bot_id, text) VALUES (?, ?)").run(
    bot.botId,
    bot.searchText,
  );
}

/** Filters of one search page. */
export interface BotQuery {
  /** Case-insensitive substring of id, name or description. */
  q: string | null;
  status: string | null;
  capability: string | null;
  /** Only bots whose id sorts after this one (keyset paging). */
  after: string | null;
  limit: number;
}

/** Stored records matching `query`, ordered by bot_id ascending. */
export function searchBotRecords(db: Database, query: BotQuery): string[] {
  const where: string[] = [];
  const args: (string | number)[] = [];
  if (query.after !== null) {
    where.push("b.bot_id > ?");
    args.push(query.after);
  }
  if (query.status !== null) {
    where.push("b.status = ?");
    args.push(query.status);
  }
  if (query.capability !== null) {
    where.push(
      "b.bot_id IN (SELECT c.bot_id FROM registry_capabilities c WHERE c.capability = ?)",
    );
    args.push(query.capability);
  }
  if (query.q !== null) {
    const q = query.q.toLowerCase();
    if ([...q].length >= 3) {
      where.push(
        "b.bot_id IN (SELECT s.bot_id FROM registry_search s WHERE registry_search MATCH ?)",
      );
      args.push(`"${q.replace(/"/g, '""')}"`);
    } else {
      where.push("b.search_text LIKE ? ESCAPE '\\'");
      args.push(`%${q.replace(/[\\%_]/g, (m) => `\\${m}`)}%`);
    }
  }
  const sql = `SELECT b.record FROM registry_bots b ${
    where.length ? `WHERE ${where.join(" AND ")}` : ""
  } ORDER BY b.bot_id LIMIT ?`;
  args.push(query.limit);
  return (db.prepare(sql).all(...args) as { record: string }[]).map((r) => r.record);
}

/** Counts used by the stats endpoint. */
export interface RegistryCounts {
  botsByStatus: Record<string, number>;
  keysByStatus: Record<string, number>;
  controllers: number;
}

/** Counts bots and keys by status, and controller links. */
export function countBots(db: Database): RegistryCounts {
  const group = (sql: string) =>
    Object.fromEntries(
      (db.prepare(sql).all() as { status: string; n: number }[]).map((r) => [r.status, r.n]),
    );
  return {
    botsByStatus: group("SELECT status, COUNT(*) AS n FROM registry_bots GROUP BY status"),
    keysByStatus: group("SELECT status, COUNT(*) AS n FROM registry_keys GROUP BY status"),
    controllers: Number(
      (db.prepare("SELECT COUNT(*) AS n FROM registry_controllers").get() as { n: number }).n,
    ),
  };
}
