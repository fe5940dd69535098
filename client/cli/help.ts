/** The one help generator of every `signet` client command and `signet bot`. */
import { CLIENT_ENV_DOCS } from "../env.ts";

/** One block of a help text: a paragraph, or a titled table of `left  right` rows. */
export type HelpSection = string | { title: string; rows: [string, string][] };

/** What a command's help says: its usage line(s) and the sections after them. */
export interface HelpSpec {
  /** `signet <name>`, or `signet bot` etc. */
  program: string;
  /** One usage (`[--json]`), or several `[usage, what it does]` forms. */
  usage: string | [string, string][];
  sections?: HelpSection[];
}

/** The longest left column that still keeps its description on the same line. */
const MAX_LEFT = 36;
/** Help lines are wrapped to this many columns. */
const WIDTH = 100;

function table(rows: [string, string][], indent = "  "): string[] {
  const width = Math.max(...rows.map(([l]) => l.length <= MAX_LEFT ? l.length : 0));
  const out: string[] = [];
  for (const [left, right] of rows) {
    if (!right) out.push(`${indent}${left}`);
    else if (left.length > MAX_LEFT) {
      out.push(...wrap(left, indent, `${indent}    `), `${indent}${" ".repeat(width + 2)}${right}`);
    } else out.push(`${indent}${left.padEnd(width)}  ${right}`);
  }
  return out;
}

/** Breaks `text` at spaces into lines of at most WIDTH columns; later lines get `next`. */
function wrap(text: string, first: string, next: string): string[] {
  const out: string[] = [];
  let line = first;
  let empty = true;
  for (const word of text.split(" ")) {
    if (!empty && line.length + 1 + word.length > WIDTH) {
      out.push(line);
      line = next + word;
    } else line = empty ? line + word : `${line} ${word}`;
    empty = false;
  }
  out.push(line);
  return out;
}

/** Renders `spec` as the text `signet help <command>` and `--help` print. */
export function helpText(spec: HelpSpec): string {
  const lines = typeof spec.usage === "string"
    ? [`Usage: ${spec.program} ${spec.usage}`.trimEnd()]
    : ["Usage:", ...table(spec.usage.map(([u, about]) => [`${spec.program} ${u}`, about]))];
  for (const section of spec.sections ?? []) {
    lines.push("");
    if (typeof section === "string") lines.push(section.trim());
    else lines.push(`${section.title}:`, ...table(section.rows));
  }
  return lines.join("\n") + "\n";
}

/** An `Environment:` section listing `names` with their descriptions from client/env.ts. */
export function environment(...names: (keyof typeof CLIENT_ENV_DOCS)[]): HelpSection {
  return { title: "Environment", rows: names.map((n) => [n, CLIENT_ENV_DOCS[n]]) };
}
