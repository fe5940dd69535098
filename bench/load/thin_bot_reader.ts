/**
 * The thinnest stored-bot reader on Signet's stack, for the storage engines' GET bot limit: a raw
 * HTTP/1.1 listener (as the connection guard answers stored bots) that answers
 * `GET /v1/bots/{id}` with the record and the same headers Signet sends, and does nothing else (no
 * routing, limits, logs, metrics, or other requests). The rows come from one of:
 * - `sqlite`: the guard's own source, a read-only connection to the SQLite file;
 * - `postgres`: the guard's own source, its pool with reads batched one statement at a time;
 * - `postgres-each`: one prepared point select per request over a pool of `max` connections,
 *   pipelined (postgres.js's defaults), as an application without batching would read.
 *
 * Usage: deno run -A bench/load/thin_bot_reader.ts <port> <sqlite|postgres|postgres-each>
 *   <database file or postgres:// URL> [max]
 */
import postgres from "postgres";
import { openSqliteReads } from "../../server/registry/http/guard_reads_sqlite.ts";
import { openPostgresReads } from "../../server/registry/http/guard_reads_postgres.ts";
import { INT8_AS_NUMBER, socketOptions } from "../../db/postgres/store.ts";

type Row = { record: Uint8Array; version: number } | undefined;
type Load = (botId: string) => Row | Promise<Row>;

const [port, mode, database, max = "4"] = Deno.args;
const load = openSource(mode, database, Number(max));
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const PREFIX = "GET /v1/bots/";
const NOT_FOUND = encoder.encode(
  "HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}",
);

function openSource(mode: string, database: string, max: number): Load {
  if (mode === "sqlite") {
    const reads = openSqliteReads(database);
    return (id) => reads.loadBot(id);
  }
  if (mode === "postgres") {
    const reads = openPostgresReads(database);
    return (id) => reads.loadBot(id) as Promise<Row>;
  }
  if (mode === "postgres-each") {
    const { url, path } = socketOptions(database);
    const sql = postgres(url, {
      ...(path ? { path } : {}),
      max,
      prepare: true,
      fetch_types: false,
      onnotice: () => {},
      types: { int8: INT8_AS_NUMBER },
    });
    return async (id) => {
      const rows = await sql.unsafe(
        "SELECT record, version FROM registry_bots WHERE bot_id = $1",
        [id],
        { prepare: true },
      ).raw() as unknown as Uint8Array[][];
      if (rows.length === 0) return undefined;
      return { record: rows[0][0], version: Number(decoder.decode(rows[0][1])) };
    };
  }
  throw new Error(`unknown mode ${mode}: sqlite, postgres or postgres-each`);
}

function response(row: Row): Uint8Array {
  if (!row) return NOT_FOUND;
  const head = `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\netag: "${row.version}"\r\n` +
    "access-control-allow-origin: *\r\naccess-control-expose-headers: ETag,Location\r\n" +
    `content-length: ${row.record.length}\r\n` +
    `date: ${new Date().toUTCString()}\r\n\r\n`;
  const bytes = new Uint8Array(head.length + row.record.length);
  encoder.encodeInto(head, bytes);
  bytes.set(row.record, head.length);
  return bytes;
}

async function serve(conn: Deno.Conn): Promise<void> {
  const buf = new Uint8Array(16 * 1024);
  let pending = "";
  try {
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) return;
      pending += decoder.decode(buf.subarray(0, n));
      for (let end = pending.indexOf("\r\n\r\n"); end !== -1; end = pending.indexOf("\r\n\r\n")) {
        const head = pending.slice(0, end);
        pending = pending.slice(end + 4);
        const target = head.startsWith(PREFIX)
          ? head.slice(PREFIX.length, head.indexOf(" ", 4))
          : "";
        const row = target ? await load(target) : undefined;
        const out = response(row);
        for (let written = 0; written < out.length;) {
          written += await conn.write(out.subarray(written));
        }
      }
    }
  } catch {
    // the client went away
  } finally {
    try {
      conn.close();
    } catch { /* closed already */ }
  }
}

const listener = Deno.listen({ hostname: "127.0.0.1", port: Number(port) });
for await (const conn of listener) serve(conn);
