/** What `signet restore` asks a PostgreSQL database before pg_restore writes into it. */
import postgres from "postgres";
import { explainConnectFailure, socketOptions } from "./store.ts";

/** The tables (and other relations) already in the database at `url`, by name. */
export async function existingTables(url: string): Promise<string[]> {
  const { url: driverUrl, ...socket } = socketOptions(url);
  const sql = postgres(driverUrl, {
    ...socket,
    max: 1,
    connect_timeout: 10,
    onnotice: () => {},
    fetch_types: false,
  });
  try {
    await sql.unsafe("SELECT 1").catch((err) => {
      throw new Error(explainConnectFailure(err, url));
    });
    const rows = await sql.unsafe<{ name: string }[]>(
      `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
         AND n.nspname NOT LIKE 'pg_toast%' ORDER BY 1`,
    );
    return rows.map((r) => r.name);
  } finally {
    await sql.end({ timeout: 5 });
  }
}
