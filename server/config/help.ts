/** The `signet serve --help` text, generated from the settings table. */
import { RATE_LIMIT_SETTINGS, type Setting, SETTINGS } from "./settings.ts";

/** The `signet serve --help` text, generated from SETTINGS and RATE_LIMIT_SETTINGS. */
export function serveHelp(): string {
  const entries: [string, Setting<unknown>][] = [
    ...Object.entries(SETTINGS) as [string, Setting<unknown>][],
    ...Object.entries(RATE_LIMIT_SETTINGS),
  ];
  const lines = ["signet serve: run the Signet servers", "", "Environment:"];
  for (const [name, s] of entries) {
    lines.push(`  ${name}`);
    lines.push(...wrap(`${s.about}.`, 6), ...wrap(`Accepts ${s.form}.`, 6));
  }
  return lines.join("\n") + "\n";
}

function wrap(text: string, indent: number, width = 100): string[] {
  const out: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && indent + line.length + 1 + word.length > width) {
      out.push(" ".repeat(indent) + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(" ".repeat(indent) + line);
  return out;
}
