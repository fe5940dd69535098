/** The frame both apps share: skip link, top bar (brand, section tabs, an end slot) and main. */
import type { ComponentChildren } from "preact";
import { Link } from "./components.tsx";
import { Logo } from "./icons.tsx";

/** The page frame: `tabs` in the top bar's navigation, `end` at its right, `children` in main. */
export function Shell(
  { home, tag, tabs, end, children }: {
    /** Where the brand links to. */
    home: string;
    /** The word beside the brand: Admin, Registry. */
    tag: string;
    tabs: ComponentChildren;
    end: ComponentChildren;
    children: ComponentChildren;
  },
) {
  return (
    <>
      <a href="#main" class="skip-link">Skip to content</a>
      <header class="topbar">
        <div class="topbar-inner container">
          <Link href={home} class="brand">
            <Logo />
            <span class="brand-name">Signet</span>
            <span class="brand-tag">{tag}</span>
          </Link>
          <nav class="tabs" aria-label="Sections">{tabs}</nav>
          {end}
        </div>
      </header>
      <main id="main" class="container main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}

/**
 * The page for a path nothing serves (or a thing that does not exist), with a link (`children`)
 * somewhere useful; the server sends the same page, with status 404, on a fresh load.
 */
export function NotFound(
  { path, title = "Page not found", lead = "There is nothing at", children }: {
    /** What was looked for: a path, an id (user text, isolated with `<bdi>`). */
    path: string;
    title?: string;
    lead?: string;
    children: ComponentChildren;
  },
) {
  return (
    <div class="page-header not-found">
      <div>
        <h1>{title}</h1>
        <p class="page-description">
          {lead}{" "}
          <code>
            <bdi>{path}</bdi>
          </code>.
        </p>
        <p>{children}</p>
      </div>
    </div>
  );
}
