/** Inline SVG icons (stroke style, 24px grid); decorative unless given a title. */
import type { JSX } from "preact";

const PATHS = {
  copy: "M8 8h11v12H8zM5 16H4V4h11v1",
  check: "M5 12.5l4.5 4.5L19 7.5",
  trash: "M4 7h16M9 7V4h6v3M6 7l1 13h10l1-13M10 11v6M14 11v6",
  plus: "M12 5v14M5 12h14",
  search: "M10.5 17a6.5 6.5 0 1 0 0-13 6.5 6.5 0 0 0 0 13zM15.5 15.5L20 20",
  external: "M14 4h6v6M20 4l-9 9M18 14v6H4V6h6",
  key:
    "M14.5 3a6.5 6.5 0 0 0-6.2 8.5L3 16.8V21h4.2v-2.5h2.5V16h2.2l1.3-1.3A6.5 6.5 0 1 0 14.5 3zM16.5 7.5h.01",
  users:
    "M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM2 21v-1a6 6 0 0 1 6-6h2a6 6 0 0 1 6 6v1M16 3.5a4 4 0 0 1 0 7.5M19 14a6 6 0 0 1 3 5.2V21",
  ticket: "M3 8V5h18v3a2 2 0 0 0 0 4v0a2 2 0 0 0 0 4v3H3v-3a2 2 0 0 0 0-4 2 2 0 0 0 0-4zM14 5v14",
  repo:
    "M5 4.5A1.5 1.5 0 0 1 6.5 3H19v15H6.5A1.5 1.5 0 0 0 5 19.5zM5 19.5A1.5 1.5 0 0 0 6.5 21H19M9 7h6",
  logout: "M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10",
  bot:
    "M12 3v3M7 7h10a3 3 0 0 1 3 3v6a3 3 0 0 1-3 3H7a3 3 0 0 1-3-3v-6a3 3 0 0 1 3-3zM9 12v1M15 12v1M9.5 16h5",
  shield: "M12 3l8 3v6c0 4.5-3.4 8.3-8 9-4.6-.7-8-4.5-8-9V6z",
  alert:
    "M12 8v5M12 16.5v.01M10.3 3.9L2.4 18a2 2 0 0 0 1.7 3h15.8a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0z",
  arrowLeft: "M19 12H5M11 6l-6 6 6 6",
  refresh: "M20 11a8 8 0 1 0-2.3 5.7M20 4v7h-7",
  terminal: "M4 5h16v14H4zM8 10l3 2-3 2M13 15h3",
  link:
    "M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1",
  clock: "M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 7v5l3 2",
} as const;

/** The names of the available icons. */
export type IconName = keyof typeof PATHS;

/** One icon; `class` sizes it through CSS. */
export function Icon(
  { name, title, class: cls }: { name: IconName; title?: string; class?: string },
): JSX.Element {
  return (
    // Stroke and fill come from the stylesheet (.icon), not attributes: a page of results holds
    // about a hundred icons, and server-rendered HTML carries each one.
    <svg
      class={cls ? `icon ${cls}` : "icon"}
      viewBox="0 0 24 24"
      aria-hidden={title ? undefined : "true"}
      role={title ? "img" : undefined}
    >
      {title && <title>{title}</title>}
      <path d={PATHS[name]} />
    </svg>
  );
}

/** The Signet mark: a seal with a check. */
export function Logo({ class: cls }: { class?: string }): JSX.Element {
  return (
    <svg class={`logo ${cls ?? ""}`} viewBox="0 0 32 32" aria-hidden="true">
      <rect x="1" y="1" width="30" height="30" rx="8" class="logo-bg" />
      <path
        d="M16 6.5l7.5 3v6c0 4.6-3.2 8.5-7.5 9.5-4.3-1-7.5-4.9-7.5-9.5v-6z"
        class="logo-shield"
      />
      <path d="M12.5 16l2.5 2.5 4.5-5" class="logo-check" />
    </svg>
  );
}
