/**
 * The registry's hot reads, answered on the connection guard's thread from its own database
 * connection, so they cost the app thread nothing and skip the hop to it: `GET /v1/bots/{bot_id}`
 * of a stored bot (stored_bot_reads.ts) and plain searches (plain_search.ts). Only plain requests
 * qualify (HTTP/1.1, GET, origin-form target, no body, no Expect or Upgrade); the response is byte
 * for byte what Deno.serve writes for the routed request. Everything else, including unknown bots
 * and searches the router would refuse, goes to the app. The rows come from a GuardReadSource:
 * a read-only SQLite connection (guard_reads_sqlite.ts), or a small PostgreSQL pool
 * (guard_reads_postgres.ts, loaded only for a `postgres://` URL).
 */
import type { BotHit, BotHitBytes, PlanMemory } from "../../../db/registry_bots.ts";
import type { GuardReadSource, Maybe } from "./guard_read_source.ts";
import { pathOf, storedBotHeaders, storedBotId } from "./stored_bot_reads.ts";
import { plainSearchParams, SEARCH_ROUTE, searchHeaders } from "./plain_search.ts";
import { planMemory, planSearch, searchPageBytes, type SearchParams } from "../search.ts";
import type {
  LocalAnswer,
  LocalAnswerer,
  LocalAnswererModule,
} from "../../http/guarded_connection.ts";

const encoder = new TextEncoder();
/** The status line and the headers before and after ETag, as storedBotHeaders lists them. */
const [HEAD_START, HEAD_END] = okHead(storedBotHeaders(0)).split(`etag: "0"\r\n`);
/** The status line and the headers of a search page before Content-Length. */
const SEARCH_HEAD_START = okHead(searchHeaders());
const REFUSED_HEADERS = /\r?\n(?:expect|upgrade)[ \t]*:/i;
const CONNECTION_CLOSE = /\r?\nconnection[ \t]*:[^\n]*\bclose\b/i;

/** Answers stored bots and plain searches from `source`. */
export class GuardRegistryReads implements LocalAnswerer {
  /** This thread's own planner memory (plan hints only) for searches. */
  readonly #plans: PlanMemory = planMemory();

  constructor(readonly source: GuardReadSource) {}

  /** The response to the bodyless request `head` (its header block), or null to pass it on. */
  answer(head: string): Maybe<LocalAnswer | null> {
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
    const answer = (row: { record: Uint8Array; version: number } | undefined) =>
      row
        ? response(head, `${HEAD_START}etag: "${row.version}"\r\n${HEAD_END}`, row.record, path)
        : null;
    const row = this.source.loadBot(botId);
    return row instanceof Promise ? row.then(answer, () => null) : answer(row);
  }

  /** A plain search's page, or null when searchBots refuses it (the router answers the error). */
  #searchPage(head: string, params: SearchParams): Maybe<LocalAnswer | null> {
    let plan;
    let rows;
    try {
      plan = planSearch(params);
      rows = this.source.search(plan.query, this.#plans);
    } catch {
      return null; // the router answers the error
    }
    const answer = (hits: BotHit[] | BotHitBytes[]) =>
      response(head, SEARCH_HEAD_START, searchPageBytes(hits, plan), SEARCH_ROUTE);
    return rows instanceof Promise ? rows.then(answer, () => null) : answer(rows);
  }

  /** Gives back the source's caches. */
  releaseMemory(): void {
    this.source.releaseMemory();
  }

  /** Closes the source's connection. */
  close(): void | Promise<void> {
    return this.source.close();
  }
}

/** The status line `200 OK` and `headers` as header lines. */
function okHead(headers: Record<string, string>): string {
  return "HTTP/1.1 200 OK\r\n" +
    Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("");
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

/**
 * The guard thread's entry (see LocalAnswererModule): the registry's reads from `database`, the
 * SQLite file's path or a `postgres://` URL.
 */
export const openLocalAnswerer: LocalAnswererModule["openLocalAnswerer"] = async (database) => {
  const source: GuardReadSource = /^postgres(ql)?:\/\//.test(database)
    ? await (await import("./guard_reads_postgres.ts")).openPostgresReads(database)
    : (await import("./guard_reads_sqlite.ts")).openSqliteReads(database);
  return new GuardRegistryReads(source);
};
