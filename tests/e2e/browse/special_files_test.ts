/**
 * An empty file says it is empty; a symbolic link is marked as one in its directory's list, and
 * its page says where it points (a link when that is inside the repository).
 */
import { assert, assertStringIncludes } from "../../helpers/assert.ts";
import { createRepo, signedIn } from "../../../testing/accounts.ts";
import { serverTest } from "../../helpers/server.ts";
import { commitFiles, git, newWork } from "../../helpers/browse.ts";

const HTML = { Accept: "text/html" };

serverTest("empty files and symbolic links are shown as what they are", {}, async (server) => {
  const home = await Deno.makeTempDir({ prefix: "signet-special-" });
  try {
    const { token } = await signedIn(server, "alice");
    await createRepo(server, token, "odd");
    const work = await newWork(home, "odd");
    await Deno.symlink("src/main.ts", `${work.dir}/link-to-main`);
    await Deno.symlink("../../etc/passwd", `${work.dir}/link-out`);
    await commitFiles(
      work,
      { "empty.txt": "", "src/main.ts": "1\n", "one-line.txt": "src/main.ts" },
      "odd files",
    );
    const remote = `http://alice:${token}@${new URL(server.httpUrl).host}/alice/odd.git`;
    await git(work, "push", "-q", remote, "main");
    const page = async (path: string) =>
      await (await fetch(`${server.httpUrl}/alice/odd${path}`, { headers: HTML })).text();

    const empty = await page("/blob/main/empty.txt");
    assertStringIncludes(empty, "This file is empty.");
    assertStringIncludes(empty, "0 lines · 0 B");
    assert(!empty.includes('id="L1"'), "an empty file has no line 1");

    const tree = await page("/tree/main");
    const row = tree.slice(tree.indexOf('data-name="link-to-main"'));
    assertStringIncludes(row.slice(0, row.indexOf("</li>")), "(symbolic link)");
    const file = tree.slice(tree.indexOf('data-name="empty.txt"'));
    assert(!file.slice(0, file.indexOf("</li>")).includes("symbolic link"), "a file is no link");

    const link = await page("/blob/main/link-to-main");
    assertStringIncludes(link, 'Symbolic link to <a href="/alice/odd/blob/main/src/main.ts">');
    const out = await page("/blob/main/link-out");
    assertStringIncludes(out, "(outside the repository)");
    assert(
      !out.includes('href="/alice/odd/blob/main/etc/passwd"'),
      "no link out of the repository",
    );
    // A one-line file that reads like a path is still a file.
    const oneLine = await page("/blob/main/one-line.txt");
    assert(!oneLine.includes("Symbolic link to"), "a file is no link");
    assertStringIncludes(oneLine, 'id="L1"');
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
