/**
 * The repository browser's only script (its pages are rendered on the server and work without
 * it): copy buttons for clone URLs and push commands, line ranges (`#L10-L20`) in code views:
 * highlighted on load, extended with shift-click on a line number, the current tab scrolled
 * into sight when the tab row is wider than a phone's screen, and each entry of a directory's list
 * given its last commit (fetched after the page is shown: the walk through history can take
 * seconds on a long one), the ref selector's menu closed by Escape or a click outside, and a
 * heading's address as GitHub writes it (`#install`) led to its id
 * here (`#user-content-install`).
 */

const LINE_HASH = /^#L(\d+)(?:-L(\d+))?$/;

function copyButtons(): void {
  for (const button of document.querySelectorAll<HTMLButtonElement>("button[data-copy]")) {
    button.hidden = false;
    button.addEventListener("click", async () => {
      const target = document.getElementById(button.dataset.copy ?? "");
      if (!target) return;
      try {
        await navigator.clipboard.writeText(target.textContent ?? "");
        const label = button.textContent;
        button.textContent = "Copied";
        button.classList.add("is-copied");
        setTimeout(() => {
          button.textContent = label;
          button.classList.remove("is-copied");
        }, 1500);
      } catch {
        // Clipboard refused (no permission): select the text so it can be copied by hand.
        const range = document.createRange();
        range.selectNodeContents(target);
        getSelection()?.removeAllRanges();
        getSelection()?.addRange(range);
      }
    });
  }
}

function markLines(): void {
  for (const row of document.querySelectorAll(".lines tr.hl")) row.classList.remove("hl");
  const m = LINE_HASH.exec(location.hash);
  if (!m) return;
  let from = Number(m[1]);
  let to = Number(m[2] ?? m[1]);
  if (to < from) [from, to] = [to, from];
  to = Math.min(to, from + 100_000);
  let first: Element | null = null;
  for (let n = from; n <= to; n++) {
    const row = document.getElementById(`L${n}`);
    if (!row) break;
    row.classList.add("hl");
    first ??= row;
  }
  first?.scrollIntoView({ block: "center" });
}

function lineClicks(): void {
  document.addEventListener("click", (e) => {
    const link = (e.target as Element | null)?.closest?.(".lines td.ln a");
    if (!(link instanceof HTMLAnchorElement)) return;
    const m = LINE_HASH.exec(location.hash);
    const line = Number(link.hash.slice(2));
    if (e.shiftKey && m) {
      e.preventDefault();
      const from = Number(m[1]);
      const [a, b] = from <= line ? [from, line] : [line, from];
      history.replaceState(null, "", a === b ? `#L${a}` : `#L${a}-L${b}`);
      markLines();
    }
  });
  addEventListener("hashchange", markLines);
}

/** On a narrow screen the tab row scrolls sideways: the current tab starts in sight. */
function currentTabInSight(): void {
  const row = document.querySelector<HTMLElement>(".repo-tabs");
  const current = row?.querySelector<HTMLElement>('[aria-current="page"]');
  if (!row || !current || row.scrollWidth <= row.clientWidth) return;
  // Clear of the fade at the row's end too: the row's scroll-padding (pages.css). Not by
  // scrollIntoView, which would also scroll the page away from a line the address points at.
  const padding = parseFloat(getComputedStyle(row).scrollPaddingRight) || 0;
  const beyond = current.getBoundingClientRect().right + padding -
    row.getBoundingClientRect().right;
  if (beyond > 0) row.scrollLeft += beyond;
}

/** The ref selector's menu (a `<details>`) closes with Escape, or a click outside it. */
function refMenuCloses(): void {
  const openMenu = () => document.querySelector<HTMLDetailsElement>("details.ref-select[open]");
  document.addEventListener("keydown", (e) => {
    const menu = openMenu();
    if (e.key !== "Escape" || !menu) return;
    menu.open = false;
    menu.querySelector("summary")?.focus();
  });
  document.addEventListener("click", (e) => {
    const menu = openMenu();
    if (menu && !(e.target instanceof Node && menu.contains(e.target))) menu.open = false;
  });
}

/** What every rendered Markdown heading's id starts with (server/http/browse/markdown.ts). */
const HEADING_ID_PREFIX = "user-content-";

/**
 * An address naming a heading without the prefix (`#install`, as a link from GitHub or a
 * README's reader writes it) scrolls to that heading, unless the page has that id itself.
 */
function headingTarget(): void {
  let name: string;
  try {
    name = decodeURIComponent(location.hash.slice(1));
  } catch {
    return;
  }
  if (name === "" || document.getElementById(name)) return;
  document.getElementById(HEADING_ID_PREFIX + name)?.scrollIntoView();
}

/** One entry's last commit, as `/<owner>/<repo>/tree-commits/…` answers it. */
interface EntryCommit {
  href: string;
  subject: string;
  author: string;
  date: string;
}

/** Puts each listed entry's last commit beside its name, as text (never as markup). */
async function entryCommits(): Promise<void> {
  const list = document.querySelector<HTMLElement>("ul.entries[data-commits]");
  if (!list?.dataset.commits) return;
  let commits: Record<string, EntryCommit>;
  try {
    const res = await fetch(list.dataset.commits, { headers: { Accept: "application/json" } });
    if (!res.ok) return;
    commits = (await res.json()).commits ?? {};
  } catch {
    return; // The list stays as it was rendered.
  }
  for (const item of list.querySelectorAll<HTMLElement>("li[data-name]")) {
    const name = decodeURIComponent(item.dataset.name!);
    const c = Object.hasOwn(commits, name) ? commits[name] : null;
    if (!c || !c.href.startsWith("/")) continue;
    const link = document.createElement("a");
    link.className = "entry-commit optional";
    link.href = c.href;
    link.textContent = c.subject;
    link.title = `${c.subject} (${c.author})`;
    const when = document.createElement("time");
    when.className = "meta entry-date";
    when.dateTime = c.date;
    when.textContent = c.date.slice(0, 10);
    when.title = `${c.date.slice(0, 16).replace("T", " ")} UTC`;
    item.append(link, when);
  }
}

copyButtons();
lineClicks();
markLines();
currentTabInSight();
entryCommits();
headingTarget();
refMenuCloses();
addEventListener("hashchange", headingTarget);
