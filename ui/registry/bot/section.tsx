/** Pieces every section of the bot page uses: the section card and links to bots. */
import type { ComponentChildren } from "preact";
import { Icon, type IconName } from "../../common/icons.tsx";

/** The registry browser's path of bot `id`. */
export function botHref(id: string): string {
  return `/bots/${encodeURIComponent(id)}`;
}

/** A card with a titled heading (and an optional count) around one part of the bot page. */
export function Section(
  { id, title, icon, count, children }: {
    id: string;
    title: string;
    icon: IconName;
    count?: number;
    children: ComponentChildren;
  },
) {
  return (
    <section class="card section" aria-labelledby={`${id}-title`} id={id}>
      <div class="card-head">
        <h2 id={`${id}-title`}>
          <Icon name={icon} class="muted" />
          {title}
          {count !== undefined && <span class="count">{count}</span>}
        </h2>
      </div>
      {children}
    </section>
  );
}

/** A Section listing `items` (each `<li>` made by `item`), or saying `empty` when there are none. */
export function ListSection<T>(
  { id, title, icon, items, listClass, empty, item }: {
    id: string;
    title: string;
    icon: IconName;
    items: T[] | undefined;
    listClass: string;
    empty: string;
    item: (value: T, index: number) => ComponentChildren;
  },
) {
  const list = items ?? [];
  return (
    <Section id={id} title={title} icon={icon} count={list.length}>
      {list.length > 0
        ? <ul class={listClass}>{list.map(item)}</ul>
        : <p class="muted small">{empty}</p>}
    </Section>
  );
}
