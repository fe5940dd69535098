/** The previous and next links under a paged list of the registry's pages. */
import { Link } from "../common/components.tsx";
import { Icon } from "../common/icons.tsx";

/**
 * Links to the previous page (`prev`) and the next one (`next`), each only when there is one, and
 * nothing at all when there is neither; a placeholder keeps "next" on the right on the first page.
 */
export function PrevNext(
  { prev, next, prevLabel, nextLabel }: {
    prev: string | null;
    next: string | null;
    prevLabel: string;
    nextLabel: string;
  },
) {
  if (prev === null && next === null) return null;
  return (
    <nav class="pager" aria-label="Pages">
      {prev !== null
        ? (
          <Link class="btn btn-secondary" rel="prev" href={prev}>
            <Icon name="arrowLeft" /> {prevLabel}
          </Link>
        )
        : <span />}
      {next !== null && (
        <Link class="btn btn-secondary" rel="next" href={next}>
          {nextLabel}
        </Link>
      )}
    </nav>
  );
}
