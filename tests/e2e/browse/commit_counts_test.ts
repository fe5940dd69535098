/**
 * A commit page shows no line counts, rather than +0 −0, for a file too large to diff (over 1 MiB:
 * counting would mean reading both versions whole) and for a binary file.
 */
import { assert, assertStringIncludes } from "../../helpers/assert.ts";
import { createRepo, signedIn } from "../../../testing/accounts.ts";
import { serverTest } from "../../helpers/server.ts";
import { commitFiles, git, newWork, PNG_1PX } from "../../helpers/browse.ts";

const HTML = { Accept: "text/html" };

serverTest("commit pages: no +0 −0 for big or binary files", {}, async (server) => {
  const home = await Deno.makeTempDir({ prefix: "signet-counts-" });
  try {
    const { token } = await signedIn(server, "alice");
    await createRepo(server, token, "logs");
    const work = await newWork(home, "logs");
    // 60,000 lines, 1.3 MB: over the 1 MiB that git's diff is never given.
    const log = Array.from({ length: 60_000 }, (_, i) => `line ${i} of the log`).join("\n") + "\n";
    const id = await commitFiles(work, {
      "big.log": log,
      "pixel.png": PNG_1PX,
      "small.txt": "a\nb\n",
    }, "add a log");
    const remote = `http://alice:${token}@${new URL(server.httpUrl).host}/alice/logs.git`;
    await git(work, "push", "-q", remote, "main");
    const html = await (await fetch(`${server.httpUrl}/alice/logs/commit/${id}`, { headers: HTML }))
      .text();
    const item = (name: string) => {
      const at = html.indexOf(`<bdi>${name}</bdi>`);
      assert(at > 0, name);
      return html.slice(at, html.indexOf("</li>", at));
    };
    for (const name of ["big.log", "pixel.png"]) {
      assert(!item(name).includes('class="added"'), item(name));
    }
    // Counted where diffed: a small file beside them.
    assertStringIncludes(item("small.txt"), "+2");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
