/** Formatting of sizes, times and counts for display. */

/** Bytes as B, KiB, MiB or GiB with at most one decimal. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return "–";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  return `${value.toFixed(digits)} ${units[unit]}`;
}

/**
 * The Intl formatters, made on first use: the first Intl object a page makes loads the locale data
 * (about 15 ms in a fresh Chromium renderer), which at module load would run before the page's
 * first paint (docs/decisions/ui.md, "First contentful paint of the public pages").
 */
let relativeFormat: Intl.RelativeTimeFormat | undefined;
let absoluteFormat: Intl.DateTimeFormat | undefined;

function relative(): Intl.RelativeTimeFormat {
  return relativeFormat ??= new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
}

const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["second", 60],
  ["minute", 60],
  ["hour", 24],
  ["day", 30],
  ["month", 12],
  ["year", Infinity],
];

/** "3 minutes ago" style description of `iso` relative to `now`. */
export function timeAgo(iso: string, now = Date.now()): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return iso;
  let delta = (then - now) / 1000;
  if (Math.abs(delta) < 45) return "just now";
  for (const [unit, size] of STEPS) {
    if (Math.abs(delta) < size) return relative().format(Math.round(delta), unit);
    delta /= size;
  }
  return relative().format(Math.round(delta), "year");
}

/** A full local date and time for `iso`, e.g. for tooltips. */
export function formatDateTime(iso: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  absoluteFormat ??= new Intl.DateTimeFormat(undefined, {
    dateStyle: "medium",
    timeStyle: "short",
  });
  return absoluteFormat.format(t);
}

/** "1 repository" / "3 repositories". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}
