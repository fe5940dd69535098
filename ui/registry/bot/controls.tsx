/** The bot page's reverse links: the bots this one controls (those naming it as a controller). */
import { Link } from "../../common/components.tsx";
import { controlledUrl, getControlled } from "../api.ts";
import { StatusBadge } from "../badges.tsx";
import type { ControlledBots } from "../types.ts";
import { embedded, type Page, PagedList, type PageSource, usePaged } from "./paged.tsx";
import { botHref, Section } from "./section.tsx";

type Controlled = ControlledBots["bots"][number];

/** A page of the bots `id` controls, as the list holds it. */
function page(answer: ControlledBots): Page<Controlled> {
  return { items: answer.bots, next: answer.next_cursor };
}

/** The bots bot `id` controls, from the API or from what the server embedded. */
function controlledSource(id: string): PageSource<Controlled> {
  return {
    fetch: async (cursor, limit) => page(await getControlled(id, cursor, limit)),
    preloaded: (cursor, limit) => embedded(controlledUrl(id, cursor, limit), page),
  };
}

/** The bots bot `id` controls, as many pages as the page URL's query `search` says. */
export function ControlsSection({ id, search }: { id: string; search: string }) {
  const paged = usePaged(controlledSource(id), {
    list: "controls",
    path: botHref(id),
    search,
  }, [id]);
  const count = paged.items.length > 0 || paged.state === "ready" ? paged.items.length : undefined;
  const whole = paged.next === null && paged.startHref === null;
  return (
    <Section id="controls" title="Controls" icon="bot" count={whole ? count : undefined}>
      <PagedList
        paged={paged}
        what="the bots it controls"
        empty={<p class="muted small">No bot names this one as a controller.</p>}
      >
        <ul class="controllers" id="controls-list">
          {paged.items.map((b, i) => (
            <li key={b.bot_id} id={paged.anchor(i)}>
              <Link href={botHref(b.bot_id)}>
                <bdi>{b.name || b.bot_id}</bdi>
              </Link>
              {b.status === "revoked" && <StatusBadge status={b.status} />}
              {b.label && (
                <span class="muted small">
                  <bdi>{b.label}</bdi>
                </span>
              )}
            </li>
          ))}
        </ul>
      </PagedList>
    </Section>
  );
}
