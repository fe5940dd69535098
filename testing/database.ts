/**
 * Plain SQL on the database a test server uses, whichever engine it runs on: the embedded file in
 * its data dir, or (in the suite's PostgreSQL run) the database testing/launch.ts gave that data
 * dir. For tests that plant or inspect rows the API cannot (an aged token, an expired challenge).
 * Placeholders are `?`; the SQL must be valid on both engines.
 */
import { DatabaseSync } from "node:sqlite";
import postgres from "postgres";
import { testDatabaseFor } from "./postgres.ts";

/** A connection to a server's database. */
export interface ServerSql {
  /** Runs `sql` with `params`; the rows it returns (none for a write). */
  query<T = Record<string, unknown>>(sql: string, ...params: (string | number)[]): Promise<T[]>;
  close(): Promise<void>;
}

/** Opens the database of the server whose data dir is `dataDir`. */
export async function serverSql(dataDir: string): Promise<ServerSql> {
  const url = await testDatabaseFor(dataDir);
  if (url === undefined) {
    const db = new DatabaseSync(`${dataDir}/signet.db`);
    db.exec("PRAGMA busy_timeout = 5000");
    return {
      query: <T>(sql: string, ...params: (string | number)[]) => {
        const statement = db.prepare(sql);
        return Promise.resolve(
          (/^\s*(select|pragma)/i.test(sql) ? statement.all(...params) : (statement.run(
            ...params,
          ),
            [])) as T[],
        );
      },
      close: () => Promise.resolve(db.close()),
    };
  }
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  return {
    query: async <T>(text: string, ...params: (string | number)[]) => {
      let n = 0;
      return [...await sql.unsafe(text.replace(/\?/g, () => `$${++n}`), params)] as T[];
    },
    close: () => sql.end(),
  };
}
