/** The registry's front page: stats, a search form with filters, and paged results. */
import { type Signal, useSignal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import type { ComponentChildren } from "preact";
import {
  Badge,
  Empty,
  ErrorNotice,
  Link,
  ResourceStatus,
  SearchInput,
  Time,
  useResource,
} from "../common/components.tsx";
import { Icon } from "../common/icons.tsx";
import { navigate } from "../common/router.ts";
import {
  countsUrl,
  getCounts,
  getStats,
  MAX_PAGE_SIZE,
  PAGE_SIZE,
  searchBots,
  type SearchQuery,
  searchUrl,
  STATS_URL,
} from "./api.ts";
import { preloaded } from "../common/preload.ts";
import { StatusBadge } from "./badges.tsx";
import { PrevNext } from "./pager.tsx";
import type { Bot, SearchCounts, Stats } from "./types.ts";

/** Longest search text the registry accepts, in characters (code points). */
export const MAX_QUERY = 200;
/** Longest capability the registry accepts. */
export const MAX_CAPABILITY = 64;

/**
 * The search as the page URL holds it: `q`, `status`, `capability`, `sort`, `limit`, the `cursor`
 * of this page, and `back`, the cursors of the pages before it (repeated, oldest first; the first
 * page has none), so "Previous" is a plain link that survives a reload, a bookmark or a shared link.
 */
export interface PageQuery extends SearchQuery {
  back: string[];
}

/** The page's search and what had to be corrected in the URL to run it. */
export interface ReadQuery {
  query: PageQuery;
  /** Why a value from the URL was changed: shown above the results. */
  notes: string[];
}

/** The status filter's choices: value and label ("": any status). */
const STATUS_CHOICES = [["", "Any"], ["active", "Active"], ["revoked", "Revoked"]] as const;
const STATUSES: string[] = STATUS_CHOICES.map(([value]) => value);

/** The orders the sort select offers, as the URL's `sort` names them ("": by bot id). */
export const SORT_CHOICES: readonly [value: string, label: string][] = [
  ["", "Bot id"],
  ["name", "Name, A to Z"],
  ["-name", "Name, Z to A"],
  ["-created", "Newest first"],
  ["created", "Oldest first"],
  ["-updated", "Recently updated"],
  ["updated", "Least recently updated"],
];

/**
 * Reads the search from the URL, correcting what the registry would refuse instead of failing:
 * an unknown status becomes "any", a page size outside 1-100 is clamped, an over-long text is cut.
 */
export function readQuery(search: string): ReadQuery {
  const p = new URLSearchParams(search);
  const notes: string[] = [];
  let status = p.get("status") ?? "";
  if (!STATUSES.includes(status)) {
    notes.push(`Unknown status “${status}”: showing bots of any status.`);
    status = "";
  }
  let limit = p.get("limit") ?? "";
  if (limit !== "") {
    const n = /^\d{1,9}$/.test(limit) ? Number(limit) : NaN;
    const clamped = Number.isNaN(n) ? PAGE_SIZE : Math.min(Math.max(n, 1), MAX_PAGE_SIZE);
    if (String(clamped) !== limit) {
      notes.push(
        Number.isNaN(n)
          ? `Page size “${limit}” is not a number: showing ${PAGE_SIZE} per page.`
          : `Page size ${limit} is out of range: showing ${clamped} per page (1 to ${MAX_PAGE_SIZE}).`,
      );
    }
    limit = String(clamped);
  }
  let sort = p.get("sort") ?? "";
  if (sort === "bot_id") sort = "";
  if (!SORT_CHOICES.some(([value]) => value === sort)) {
    notes.push(`Unknown order “${sort}”: showing bots by id.`);
    sort = "";
  }
  let q = p.get("q") ?? "";
  if ([...q].length > MAX_QUERY) {
    q = [...q].slice(0, MAX_QUERY).join("");
    notes.push(`The search text was cut to its first ${MAX_QUERY} characters.`);
  }
  return {
    query: {
      q,
      status,
      capability: p.get("capability") ?? "",
      sort,
      cursor: p.get("cursor") ?? "",
      limit,
      back: p.getAll("back").filter((c) => c !== ""),
    },
    notes,
  };
}

function hrefFor(q: Partial<PageQuery>): string {
  const p = new URLSearchParams();
  for (const k of ["q", "status", "capability", "sort", "limit", "cursor"] as const) {
    const v = q[k];
    if (v) p.set(k, v);
  }
  for (const c of q.back ?? []) p.append("back", c);
  const s = p.toString();
  return s ? `/?${s}` : "/";
}

function StatCard(
  { label, value, detail }: { label: string; value: number | undefined; detail?: string },
) {
  return (
    <div class="stat">
      <span class="stat-label">{label}</span>
      <span class="stat-value">{value === undefined ? "–" : value.toLocaleString()}</span>
      {detail && <span class="stat-detail">{detail}</span>}
    </div>
  );
}

function StatsRow() {
  const [stats] = useResource<Stats>(getStats, [], preloaded(STATS_URL));
  if (stats.status === "error") {
    return <ErrorNotice title="Could not load registry statistics" message={stats.error} />;
  }
  const s = stats.data;
  const by = (m: Record<string, number> | undefined) =>
    m
      ? `${(m.active ?? 0).toLocaleString()} active · ${(m.revoked ?? 0).toLocaleString()} revoked`
      : undefined;
  return (
    <>
      <section class="stats" aria-label="Registry statistics" aria-busy={!s}>
        <StatCard label="Bots" value={s?.bots_total} detail={by(s?.bots_by_status)} />
        <StatCard label="Keys" value={s?.keys_total} detail={by(s?.keys_by_status)} />
        <StatCard label="Attestations" value={s?.attestations_total} detail="signed claims" />
        <StatCard
          label="Changes, 24 h"
          value={s?.operations_24h}
          detail={s?.log_entries !== undefined
            ? `${s.log_entries.toLocaleString()} log entries in total`
            : undefined}
        />
      </section>
      {s?.log_head && (
        <p class="log-head muted">
          <Icon name="link" /> Audit log head <strong>#{s.log_head.seq}</strong>{" "}
          <code class="mono" title={s.log_head.hash}>{s.log_head.hash}</code>
        </p>
      )}
    </>
  );
}

function SearchForm({ query }: { query: PageQuery }) {
  const q = useSignal(query.q);
  const status = useSignal(query.status);
  const capability = useSignal(query.capability);
  const sort = useSignal(query.sort);
  // The fields follow the URL when it changes (back, forward, a link), not on the first render:
  // then they hold what the page was rendered with, or what the visitor typed before hydration.
  const shown = useRef(query);
  useEffect(() => {
    const was = shown.current;
    shown.current = query;
    if (
      was.q === query.q && was.status === query.status && was.capability === query.capability &&
      was.sort === query.sort
    ) return;
    q.value = query.q;
    status.value = query.status;
    capability.value = query.capability;
    sort.value = query.sort;
  }, [query.q, query.status, query.capability, query.sort]);

  // A new search or order starts on its first page (no cursor), as the GET form without script.
  const submit = (e: Event) => {
    e.preventDefault();
    navigate(hrefFor({
      q: q.value.trim(),
      status: status.value,
      capability: capability.value.trim(),
      sort: sort.value,
      limit: query.limit,
    }));
  };
  const filtered = query.q || query.status || query.capability;

  return (
    <form class="search-form card" role="search" action="/" method="get" onSubmit={submit}>
      {query.limit && <input type="hidden" name="limit" value={query.limit} />}
      <SearchInput
        class="search-main"
        name="q"
        placeholder="Search bots by name or id"
        label="Search bots"
        maxLength={MAX_QUERY}
        value={q.value}
        onInput={(value) => (q.value = value)}
      />
      <div class="search-filters">
        <Filter label="Status">
          <ChoiceSelect name="status" choices={STATUS_CHOICES} value={status} />
        </Filter>
        <Filter label="Capability">
          <input
            class="input"
            name="capability"
            placeholder="e.g. deploy"
            autoComplete="off"
            maxLength={MAX_CAPABILITY}
            value={capability.value}
            onInput={(e) => (capability.value = (e.currentTarget as HTMLInputElement).value)}
          />
        </Filter>
        <Filter label="Sort">
          <ChoiceSelect name="sort" choices={SORT_CHOICES} value={sort} />
        </Filter>
        <button type="submit" class="btn btn-primary">Search</button>
        {filtered && (
          <Link href={hrefFor({ sort: query.sort, limit: query.limit })} class="btn btn-ghost">
            Clear
          </Link>
        )}
      </div>
    </form>
  );
}

/** A select over `choices` ([value, label] pairs) that keeps `value` in step. */
function ChoiceSelect({ name, choices, value }: {
  name: string;
  choices: readonly (readonly [string, string])[];
  value: Signal<string>;
}) {
  return (
    <select
      class="select"
      name={name}
      value={value.value}
      onChange={(e) => (value.value = (e.currentTarget as HTMLSelectElement).value)}
    >
      {choices.map(([v, label]) => <option key={v} value={v}>{label}</option>)}
    </select>
  );
}

/** A labelled search filter: the visible label, then its control. */
function Filter({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <label class="filter">
      <span>{label}</span>
      {children}
    </label>
  );
}

function BotCard({ bot }: { bot: Bot }) {
  const activeKeys = bot.keys.filter((k) => k.status !== "revoked").length;
  return (
    <li class="bot-card" data-bot-id={bot.bot_id}>
      <div class="bot-card-head">
        <span class="bot-avatar" aria-hidden="true">
          <Icon name="bot" />
        </span>
        <div class="bot-card-title">
          <Link href={`/bots/${encodeURIComponent(bot.bot_id)}`} class="bot-link">
            <bdi>{bot.name || bot.bot_id}</bdi>
          </Link>
          {bot.name && (
            <code class="mono muted">
              <bdi>{bot.bot_id}</bdi>
            </code>
          )}
        </div>
        <StatusBadge status={bot.status} />
      </div>
      {bot.description && (
        <p class="bot-card-desc">
          <bdi>{bot.description}</bdi>
        </p>
      )}
      <div class="bot-card-meta">
        {bot.owner?.name && (
          <span>
            <Icon name="users" /> <bdi>{bot.owner.name}</bdi>
          </span>
        )}
        <span>
          <Icon name="key" /> {activeKeys} active {activeKeys === 1 ? "key" : "keys"}
        </span>
        {bot.updated_at && (
          <span>
            <Icon name="clock" /> updated <Time iso={bot.updated_at} />
          </span>
        )}
      </div>
      {bot.capabilities && bot.capabilities.length > 0 && (
        <ul class="chips" aria-label="Capabilities">
          {bot.capabilities.map((c) => (
            <li key={c}>
              <Link
                class="chip"
                href={hrefFor({ capability: c })}
                title={`Bots with capability ${c}`}
              >
                <bdi>{c}</bdi>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

/** A count as shown: exact, or "1,000+" when counting stopped at the limit. */
function totalText(c: SearchCounts): string {
  return c.total_exact ? c.total.toLocaleString() : `${c.count_limit.toLocaleString()}+`;
}

/**
 * The facets of a search: how many matches each status and the commonest capabilities would give,
 * as links that apply them (each facet's counts leave its own filter out).
 */
function Facets({ query, counts }: { query: PageQuery; counts: SearchCounts }) {
  const statuses: [string, string, number | undefined][] = [
    ["", "Any", undefined],
    ["active", "Active", counts.by_status.active],
    ["revoked", "Revoked", counts.by_status.revoked],
  ];
  const base = {
    q: query.q,
    status: query.status,
    capability: query.capability,
    sort: query.sort,
    limit: query.limit,
  };
  return (
    <nav class="facets" aria-label="Refine results">
      <div class="facet">
        <h3 class="facet-title">Status</h3>
        <ul class="chips facet-list">
          {statuses.map(([value, label, n]) => (
            <li key={value}>
              <Link
                href={hrefFor({ ...base, status: value })}
                class="facet-link"
                aria-current={query.status === value ? "true" : undefined}
              >
                {label}
                {n !== undefined && <span class="facet-count">{n.toLocaleString()}</span>}
              </Link>
            </li>
          ))}
        </ul>
      </div>
      {counts.capabilities.length > 0 && (
        <div class="facet">
          <h3 class="facet-title">Capabilities</h3>
          <ul class="chips facet-list">
            {query.capability && (
              <li>
                <Link href={hrefFor({ ...base, capability: "" })} class="facet-link">
                  Any capability
                </Link>
              </li>
            )}
            {counts.capabilities.map((c) => (
              <li key={c.capability}>
                <Link
                  href={hrefFor({ ...base, capability: c.capability })}
                  class="facet-link"
                  aria-current={query.capability === c.capability ? "true" : undefined}
                >
                  <bdi>{c.capability}</bdi>
                  <span class="facet-count">{c.count.toLocaleString()}</span>
                </Link>
              </li>
            ))}
          </ul>
        </div>
      )}
      {!counts.facets_exact && (
        <p class="muted small facet-note">
          Counted over the first {counts.count_limit.toLocaleString()} matches.
        </p>
      )}
    </nav>
  );
}

function Results({ query, notes }: { query: PageQuery; notes: string[] }) {
  const [results, reload] = useResource(
    () => searchBots(query),
    [query.q, query.status, query.capability, query.sort, query.cursor, query.limit],
    preloaded(searchUrl(query)),
  );
  const [counts] = useResource(
    () => getCounts(query),
    [query.q, query.status, query.capability],
    preloaded(countsUrl(query)),
  );
  const total = counts.data;
  const filtered = query.q || query.status || query.capability;
  const title = filtered ? "Search results" : "All bots";
  const size = Number(query.limit) || PAGE_SIZE;
  const shown = results.data?.results.length ?? 0;
  // Page 1 has no cursor; every later page has one and the cursors of those between. A link kept
  // while bots were added no longer says where its page is; the last page is known from the end.
  const lastPage = query.cursor !== "" && results.status !== "loading" &&
    !results.data?.next_cursor && total?.total_exact === true && shown > 0;
  const fromEnd = lastPage ? total!.total - shown + 1 : null;
  const pageNo = fromEnd !== null
    ? Math.max(2, Math.ceil(total!.total / size))
    : query.cursor
    ? query.back.length + 2
    : 1;
  const first = fromEnd ?? (pageNo - 1) * size + 1;
  // A cursor the registry refuses (edited, or from another version): a way back, not a failure.
  const badCursor = results.status === "error" && results.code === 400 && query.cursor !== "";

  return (
    <section
      class="results"
      aria-labelledby="results-title"
      aria-busy={results.status === "loading"}
    >
      <div class="results-head">
        <h2 id="results-title">{title}</h2>
        {filtered && (
          <ul class="active-filters" aria-label="Filters">
            {query.q && (
              <li>
                <Badge tone="info">
                  “<bdi>{query.q}</bdi>”
                </Badge>
              </li>
            )}
            {query.status && (
              <li>
                <Badge tone="info">status: {query.status}</Badge>
              </li>
            )}
            {query.capability && (
              <li>
                <Badge tone="info">
                  capability: <bdi>{query.capability}</bdi>
                </Badge>
              </li>
            )}
          </ul>
        )}
        {shown > 0 && (
          <span class="results-range muted" id="results-range">
            {pageNo > 1 || (total?.total_exact && total.total > size)
              ? `Page ${pageNo}${
                total?.total_exact ? ` of ${Math.max(1, Math.ceil(total.total / size))}` : ""
              } · `
              : ""}
            {first.toLocaleString()}–{(first + shown - 1).toLocaleString()}
            {total
              ? ` of ${totalText(total)}`
              : !results.data?.next_cursor && pageNo === 1
              ? ` of ${shown.toLocaleString()}`
              : ""}
          </span>
        )}
      </div>
      {notes.map((n) => (
        <div class="notice notice-warning" role="status" key={n}>
          <Icon name="alert" class="notice-icon" />
          <div class="notice-text">
            <p>{n}</p>
          </div>
        </div>
      ))}
      {badCursor
        ? (
          <div class="notice notice-warning" role="status">
            <Icon name="alert" class="notice-icon" />
            <div class="notice-text">
              <p>
                This page's link is out of date or damaged ({results.error}).{" "}
                <Link href={hrefFor({ ...query, cursor: "", back: [] })}>
                  Go to the first page
                </Link>
              </p>
            </div>
          </div>
        )
        : (
          <ResourceStatus
            resource={results}
            loading="Searching…"
            failed="Search failed"
            onRetry={reload}
          />
        )}
      {total && <Facets query={query} counts={total} />}
      {results.data?.results.length === 0 && (
        <div class="card">
          <Empty icon="bot" title={filtered ? "No bots match" : "No bots registered yet"}>
            {pageNo > 1
              ? "There is nothing on this page: go back to the first one."
              : filtered
              ? "Try a shorter search or remove a filter."
              : "Bots appear here once they are created through the registry API."}
          </Empty>
        </div>
      )}
      {results.data && results.data.results.length > 0 && (
        <ul class="bot-list">
          {results.data.results.map((b) => <BotCard key={b.bot_id} bot={b} />)}
        </ul>
      )}
      {results.data && (
        <PrevNext
          prev={pageNo > 1
            ? hrefFor({ ...query, cursor: query.back.at(-1) ?? "", back: query.back.slice(0, -1) })
            : null}
          next={results.data.next_cursor
            ? hrefFor({
              ...query,
              cursor: results.data.next_cursor,
              back: query.cursor ? [...query.back, query.cursor] : [],
            })
            : null}
          prevLabel="Previous"
          nextLabel="Next page"
        />
      )}
    </section>
  );
}

/** The landing page for the URL query `search` (`?q=...`, or empty). */
export function Landing({ search }: { search: string }) {
  const { query, notes } = readQuery(search);
  useEffect(() => {
    document.title = query.q ? `“${query.q}” · Signet registry` : "Signet registry";
  }, [query.q]);
  return (
    <>
      <div class="hero">
        <h1>Bot identity registry</h1>
        <p class="page-description">
          Public identities of bots: their keys, who controls them and what they may do. Every
          change is signed and kept in an append-only, hash-chained log.
        </p>
      </div>
      <StatsRow />
      <SearchForm query={query} />
      <Results query={query} notes={notes} />
    </>
  );
}
