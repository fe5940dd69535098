/** PostgreSQL registry bots store (see ../registry_bots.ts). */
import type { BotHit, BotStore, RegistryCounts } from "../registry_bots.ts";
import { changes, rows, type Sql } from "./sql.ts";

/** The bots store over `sql`. */
export function pgBots(sql: Sql): BotStore {
  return {
    async loadRow(botId) {
      return (await rows<{ record: string; version: number }>(
        sql,
        "SELECT record, version FROM registry_bots WHERE bot_id = $1",
        [botId],
      ))[0];
    },
    async save(bot) {
      const inserted = await changes(
        sql,
        `INSERT INTO registry_bots
           (bot_id, status, search_text, record, version, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (bot_id) DO NOTHING`,
        [
          bot.botId,
          bot.status,
          bot.searchText,
          bot.record,
          bot.version,
          bot.createdAt,
          bot.updatedAt,
        ],
      ) === 1;
      if (!inserted) {
        // search_text is only SET when it changed, so the GIN index is not rewritten needlessly.
        await changes(
          sql,
          `UPDATE registry_bots SET status = $1, record = $2, version = $3, updated_at = $4,
             search_text = CASE WHEN search_text IS DISTINCT FROM $5 THEN $5 ELSE search_text END
           WHERE bot_id = $6`,
          [bot.status, bot.record, bot.version, bot.updatedAt, bot.searchText, bot.botId],
        );
        for (const table of ["registry_keys", "registry_capabilities", "registry_controllers"]) {
          await changes(sql, `DELETE FROM ${table} WHERE bot_id = $1`, [bot.botId]);
        }
      }
      // Lists go over as JSON text (no array types needed): one statement per table.
      if (bot.keys.length > 0) {
        await changes(
          sql,
          `INSERT INTO registry_keys (bot_id, key_id, public_key, status)
           SELECT $1, k."keyId", k."publicKey", k.status
           FROM jsonb_to_recordset($2::text::jsonb) AS k("keyId" text, "publicKey" text, status text)`,
          [bot.botId, JSON.stringify(bot.keys)],
        );
      }
      if (bot.capabilities.length > 0) {
        await changes(
          sql,
          `INSERT INTO registry_capabilities (capability, bot_id)
           SELECT c, $1 FROM jsonb_array_elements_text($2::text::jsonb) AS t(c)`,
          [bot.botId, JSON.stringify(bot.capabilities)],
        );
      }
      if (bot.controllers.length > 0) {
        await changes(
          sql,
          `INSERT INTO registry_controllers (bot_id, controller_id)
           SELECT $1, c FROM jsonb_array_elements_text($2::text::jsonb) AS t(c)`,
          [bot.botId, JSON.stringify(bot.controllers)],
        );
      }
    },
    /**
     * The same filters as SQLite's search: `q` is a substring of the lower-cased search text
     * (LIKE with `\` escaping `%`, `_` and `\`), bot_id in byte order ("C" collation). The planner
     * picks between the pg_trgm GIN index (selective terms) and walking bot_id in order (broad
     * ones, or q under 3 characters); both give the same rows.
     */
    async search(query) {
      const where: string[] = [];
      const params: unknown[] = [];
      const arg = (v: unknown) => `$${params.push(v)}`;
      if (query.q !== null) {
        const q = query.q.toLowerCase();
        const like = `%${q.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
        where.push(`b.search_text LIKE ${arg(like)} ESCAPE '\\'`);
      }
      if (query.capability !== null) {
        where.push(
          `EXISTS (SELECT 1 FROM registry_capabilities c
             WHERE c.capability = ${arg(query.capability)} AND c.bot_id = b.bot_id)`,
        );
      }
      if (query.after !== null) where.push(`b.bot_id > ${arg(query.after)}`);
      if (query.status !== null) where.push(`b.status = ${arg(query.status)}`);
      const text = `SELECT b.bot_id, b.record FROM registry_bots b${
        where.length ? ` WHERE ${where.join(" AND ")}` : ""
      } ORDER BY b.bot_id LIMIT ${arg(query.limit)}`;
      const found = await rows<{ bot_id: string; record: string }>(sql, text, params);
      return found.map((r): BotHit => ({ botId: r.bot_id, record: r.record }));
    },
    async counts(): Promise<RegistryCounts> {
      const group = async (table: string) =>
        Object.fromEntries(
          (await rows<{ status: string; n: number }>(
            sql,
            `SELECT status, COUNT(*) AS n FROM ${table} GROUP BY status`,
          )).map((r) => [r.status, r.n]),
        );
      const [{ n }] = await rows<{ n: number }>(
        sql,
        "SELECT COUNT(*) AS n FROM registry_controllers",
      );
      return {
        botsByStatus: await group("registry_bots"),
        keysByStatus: await group("registry_keys"),
        controllers: n,
      };
    },
  };
}
