/**
 * The registry's hot reads, answered on the connection guard's thread from its own read-only SQLite
 * connection, so they cost the app thread nothing and skip the hop to it: `GET /v1/bots/{bot_id}`
 * of a stored bot (stored_bot_reads.ts) and plain searches (plain_search.ts). Only plain requests
 * qualify (HTTP/1.1, GET, origin-form target, no body, no Expect or Upgrade); the response is byte
 * for byte what Deno.serve writes for the routed request. Everything else, including unknown bots
 * and searches the router would refuse, goes to the app.
 */
import { loadBotRowBytes, searchBotRecords } from "../../../db/sqlite/registry_bots.ts";
import { type Database, openReadOnlyDatabase } from "../../../db/sqlite/database.ts";
import type { PlanMemory } from "../../../db/registry_bots.ts";
import { pathOf, storedBotHeaders, storedBotId } from "./stored_bot_reads.ts";
import { plainSearchParams, SEARCH_ROUTE, searchHeaders } from "./plain_search.ts";
import { planMemory, planSearch, searchPage, type SearchParams } from "../search.ts";
import type {
  LocalAnswer,
  LocalAnswerer,
  LocalAnswererModule,
} from "../../http/guarded_connection.ts";

const encoder = new TextEncoder();
/** The status line and the headers before ETag, as storedBotHeaders lists them. */
const HEAD_START = okHead(storedBotHeaders(0), "etag");
/** The status line and the headers of a search page before Content-Length. */
const SEARCH_HEAD_START = okHead(searchHeaders());
const REFUSED_HEADERS = /\r?\n(?:expect|upgrade)[ \t]*:/i;
const CONNECTION_CLOSE = /\r?\nconnection[ \t]*:[^\n]*\bclose\b/i;

/** Answers stored bots and plain searches from the database at `databasePath`. */
export class GuardRegistryReads implements LocalAnswerer {
  readonly #db: Database;
  /** This thread's own planner memory (plan hints only) for searches. */
  readonly #plans: PlanMemory = planMemory();
  #reading = false;
  /** Read transactions begun, and reads in them (for tests). */
  readonly stats = { transactions: 0, reads: 0 };

  constructor(databasePath: string) {
    this.#db = openReadOnlyDatabase(databasePath);
  }

  /** The response to the bodyless request `head` (its header block), or null to pass it on. */
  answer(head: string): LocalAnswer | null {
    if (!head.startsWith("GET /")) return null;
    const lineEnd = head.indexOf("\n");
    const line = head.slice(4, head[lineEnd - 1] === "\r" ? lineEnd - 1 : lineEnd);
    if (!line.endsWith(" HTTP/1.1")) return null;
    if (REFUSED_HEADERS.test(head)) return null;
    const target = line.slice(0, -9);
    const search = plainSearchParams(target);
    if (search !== null) return this.#searchPage(head, search);
    const path = pathOf(target);
    const botId = storedBotId(path);
    if (botId === null) return null;
    this.#beginRead();
    this.stats.reads++;
    const row = loadBotRowBytes(this.#db, botId);
    if (!row) return null;
    return response(head, `${HEAD_START}etag: "${row.version}"\r\n`, row.record, path);
  }

  /** A plain search's page, or null when searchBots refuses it (the router answers the error). */
  #searchPage(head: string, params: SearchParams): LocalAnswer | null {
    this.#beginRead();
    this.stats.reads++;
    let page: string;
    try {
      const plan = planSearch(params);
      page = searchPage(searchBotRecords(this.#db, plan.query, this.#plans), plan.limit);
    } catch {
      return null; // the router answers the error
    }
    return response(head, SEARCH_HEAD_START, encoder.encode(page), SEARCH_ROUTE);
  }

  /**
   * Reads answered in one run of the event loop share one read transaction, ended once that run's
   * work is done (a microtask): beginning and ending one takes SQLite's shared-memory locks, about
   * half the cost of a lookup on its own. Requests that arrive later see later commits.
   */
  #beginRead(): void {
    if (this.#reading) return;
    try {
      this.#db.exec("BEGIN");
    } catch {
      return; // each read then runs in a transaction of its own, as SQLite does by default
    }
    this.#reading = true;
    this.stats.transactions++;
    queueMicrotask(() => this.#endRead());
  }

  #endRead(): void {
    if (!this.#reading) return;
    this.#reading = false;
    try {
      this.#db.exec("COMMIT");
    } catch {
      if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
    }
  }

  /** Closes the database connection (ending a read transaction still open). */
  close(): void {
    this.#endRead();
    this.#db.close();
  }
}

/** The status line `200 OK` and `headers` (without `omit`) as header lines. */
function okHead(headers: Record<string, string>, omit?: string): string {
  return "HTTP/1.1 200 OK\r\n" + Object.entries(headers).filter(([name]) => name !== omit)
    .map(([name, value]) => `${name}: ${value}\r\n`).join("");
}

/** The response: `headStart` (status line and leading headers), then the framing headers, `body`. */
function response(head: string, headStart: string, body: Uint8Array, path: string): LocalAnswer {
  const close = CONNECTION_CLOSE.test(head);
  const text = `${headStart}${close ? "connection: close\r\n" : ""}` +
    `content-length: ${body.length}\r\ndate: ${httpDate()}\r\n\r\n`;
  const bytes = new Uint8Array(text.length + body.length);
  encoder.encodeInto(text, bytes);
  bytes.set(body, text.length);
  return { bytes, close, path };
}

// The Date header value of the current second, formatted once per second.
let dateSecond = -1;
let dateText = "";
function httpDate(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(second * 1000).toUTCString();
  }
  return dateText;
}

/** The guard thread's entry (see LocalAnswererModule): the registry's reads from `databasePath`. */
export const openLocalAnswerer: LocalAnswererModule["openLocalAnswerer"] = (databasePath) =>
  new GuardRegistryReads(databasePath);
