/** docs/decisions/README.md lists every decision entry of the area files, with working links. */
import { assertEquals } from "../helpers/assert.ts";

const DIR = new URL("../../docs/decisions/", import.meta.url).pathname;

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes. */
function anchor(title: string): string {
  return title.toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, "").replaceAll(" ", "-");
}

Deno.test("the decisions index links every entry of every area file, and nothing else", () => {
  const index = Deno.readTextFileSync(`${DIR}README.md`);
  const linked = [...index.matchAll(/^- \[(.+)\]\(([a-z-]+\.md)#([^)]+)\)$/gm)]
    .map((m) => `${m[2]}#${m[3]} ${m[1]}`).sort();
  const entries: string[] = [];
  for (const e of Deno.readDirSync(DIR)) {
    if (!e.name.endsWith(".md") || e.name === "README.md") continue;
    const text = Deno.readTextFileSync(`${DIR}${e.name}`);
    for (const m of text.matchAll(/^## (.+)$/gm)) entries.push(`${e.name}#${anchor(m[1])} ${m[1]}`);
  }
  entries.sort();
  assertEquals(linked, entries);
  assertEquals(entries.length >= 111, true);
});

Deno.test("decision anchors follow GitHub's rules", () => {
  assertEquals(anchor("SSH: who may connect"), "ssh-who-may-connect");
  assertEquals(anchor("`deno task start` defaults"), "deno-task-start-defaults");
});
