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
