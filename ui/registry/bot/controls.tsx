/** The bot page's reverse links: the bots this one controls (those naming it as a controller). */
import { Link } from "../../common/components.tsx";
import { preloaded } from "../../common/preload.ts";
import { controlledUrl, getControlled } from "../api.ts";
import { StatusBadge } from "../badges.tsx";
import type { ControlledBots } from "../types.ts";
import { type Page, PagedList, usePaged } from "./paged.tsx";
import { botHref, Section } from "./section.tsx";

type Controlled = ControlledBots["bots"][number];

/** The first page the server rendered, if it did. */
function firstPage(id: string): Page<Controlled, string> | undefined {
  const answer = preloaded(controlledUrl(id));
  if (!answer || !("data" in answer)) return undefined;
  const page = answer.data as ControlledBots;
  return { items: page.bots, next: page.next_cursor };
}

/** The bots bot `id` controls, page by page. */
export function ControlsSection({ id }: { id: string }) {
  const paged = usePaged(
    async (cursor: string | undefined) => {
      const page = await getControlled(id, cursor);
      return { items: page.bots, next: page.next_cursor };
    },
    [id],
    undefined,
    firstPage(id),
  );
  const count = paged.items.length > 0 || paged.state === "ready" ? paged.items.length : undefined;
  return (
    <Section id="controls" title="Controls" icon="bot" count={paged.next ? undefined : count}>
      <PagedList
        paged={paged}
        what="the bots it controls"
        empty={<p class="muted small">No bot names this one as a controller.</p>}
      >
        <ul class="controllers" id="controls-list">
          {paged.items.map((b) => (
            <li key={b.bot_id}>
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
