/** The registry's front page: stats, a search form with filters, and paged results. */
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
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
import { location, navigate } from "../common/router.ts";
import { getStats, searchBots, type SearchQuery } from "./api.ts";
import { StatusBadge } from "./badges.tsx";
import type { Bot, Stats } from "./types.ts";

function readQuery(search: string): SearchQuery {
  const p = new URLSearchParams(search);
  return {
    q: p.get("q") ?? "",
    status: p.get("status") ?? "",
    capability: p.get("capability") ?? "",
    cursor: p.get("cursor") ?? "",
    limit: p.get("limit") ?? "",
  };
}

function hrefFor(q: SearchQuery): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v) p.set(k, v);
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
  const [stats] = useResource<Stats>(getStats, []);
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

function SearchForm({ query }: { query: SearchQuery }) {
  const q = useSignal(query.q);
  const status = useSignal(query.status);
  const capability = useSignal(query.capability);
  useEffect(() => {
    q.value = query.q;
    status.value = query.status;
    capability.value = query.capability;
  }, [query.q, query.status, query.capability]);

  const submit = (e: Event) => {
    e.preventDefault();
    navigate(hrefFor({
      q: q.value.trim(),
      status: status.value,
      capability: capability.value.trim(),
      cursor: "",
      limit: query.limit,
    }));
  };
  const filtered = query.q || query.status || query.capability;

  return (
    <form class="search-form card" role="search" onSubmit={submit}>
      <SearchInput
        class="search-main"
        name="q"
        placeholder="Search bots by name or id"
        label="Search bots"
        value={q.value}
        onInput={(value) => (q.value = value)}
      />
      <div class="search-filters">
        <label class="filter">
          <span>Status</span>
          <select
            class="select"
            name="status"
            value={status.value}
            onChange={(e) => (status.value = (e.currentTarget as HTMLSelectElement).value)}
          >
            <option value="">Any</option>
            <option value="active">Active</option>
            <option value="revoked">Revoked</option>
          </select>
        </label>
        <label class="filter">
          <span>Capability</span>
          <input
            class="input"
            name="capability"
            placeholder="e.g. deploy"
            autoComplete="off"
            value={capability.value}
            onInput={(e) => (capability.value = (e.currentTarget as HTMLInputElement).value)}
          />
        </label>
        <button type="submit" class="btn btn-primary">Search</button>
        {filtered && (
          <Link href="/" class="btn btn-ghost">
            Clear
          </Link>
        )}
      </div>
    </form>
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
            {bot.name || bot.bot_id}
          </Link>
          {bot.name && <code class="mono muted">{bot.bot_id}</code>}
        </div>
        <StatusBadge status={bot.status} />
      </div>
      {bot.description && <p class="bot-card-desc">{bot.description}</p>}
      <div class="bot-card-meta">
        {bot.owner?.name && (
          <span>
            <Icon name="users" /> {bot.owner.name}
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
                href={hrefFor({ q: "", status: "", capability: c, cursor: "", limit: "" })}
                title={`Bots with capability ${c}`}
              >
                {c}
              </Link>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

/** Cursors of the pages before the current one, for "Previous". */
const trail: string[] = [];

function Results({ query }: { query: SearchQuery }) {
  const [results, reload] = useResource(
    () => searchBots(query),
    [query.q, query.status, query.capability, query.cursor, query.limit],
  );
  const filtered = query.q || query.status || query.capability;
  const title = filtered ? "Search results" : "All bots";

  return (
    <section
      class="results"
      aria-labelledby="results-title"
      aria-busy={results.status === "loading"}
    >
      <div class="results-head">
        <h2 id="results-title">{title}</h2>
        {filtered && (
          <div class="active-filters">
            {query.q && <Badge tone="info">“{query.q}”</Badge>}
            {query.status && <Badge tone="info">status: {query.status}</Badge>}
            {query.capability && <Badge tone="info">capability: {query.capability}</Badge>}
          </div>
        )}
      </div>
      <ResourceStatus
        resource={results}
        loading="Searching…"
        failed="Search failed"
        onRetry={reload}
      />
      {results.data?.results.length === 0 && (
        <div class="card">
          <Empty icon="bot" title={filtered ? "No bots match" : "No bots registered yet"}>
            {filtered
              ? "Try a shorter search or remove a filter."
              : "Bots appear here once they are created through the registry API."}
          </Empty>
        </div>
      )}
      {results.data && results.data.results.length > 0 && (
        <>
          <ul class="bot-list">
            {results.data.results.map((b) => <BotCard key={b.bot_id} bot={b} />)}
          </ul>
          <nav class="pager" aria-label="Pages">
            {query.cursor
              ? (
                <Link
                  class="btn btn-secondary"
                  href={hrefFor({ ...query, cursor: trail.at(-1) ?? "" })}
                  onClick={(e) => {
                    e.preventDefault();
                    navigate(hrefFor({ ...query, cursor: trail.pop() ?? "" }));
                  }}
                >
                  <Icon name="arrowLeft" /> Previous
                </Link>
              )
              : <span />}
            {results.data.next_cursor && (
              <Link
                class="btn btn-secondary"
                href={hrefFor({ ...query, cursor: results.data.next_cursor })}
                onClick={() => trail.push(query.cursor)}
              >
                Next page
              </Link>
            )}
          </nav>
        </>
      )}
    </section>
  );
}

/** The landing page. */
export function Landing() {
  const query = readQuery(location.value.search);
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
      <Results query={query} />
    </>
  );
}
