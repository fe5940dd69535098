/** The page for what is not there: what was looked for and a way back. */
import type { ComponentChildren } from "preact";

/**
 * The page for a path nothing serves (or a thing that does not exist), with a link (`children`)
 * somewhere useful; the server sends the same page, with status 404, on a fresh load (and the
 * repository browser its own pages for what it cannot show).
 */
export function NotFound(
  { path, title = "Page not found", lead = "There is nothing at", shown, children }: {
    /** What was looked for: a path, an id (user text, isolated with `<bdi>`). */
    path: string;
    title?: string;
    /** What comes before the shown `path` (text, or markup such as a ref's name in `<code>`). */
    lead?: ComponentChildren;
    /** How `path` is shown, when not as `<bdi>{path}</bdi>`. */
    shown?: ComponentChildren;
    children: ComponentChildren;
  },
) {
  return (
    <div class="page-header not-found">
      <div>
        <h1>{title}</h1>
        <p class="page-description">
          {lead} <code>{shown ?? <bdi>{path}</bdi>}</code>.
        </p>
        <p>{children}</p>
      </div>
    </div>
  );
}
