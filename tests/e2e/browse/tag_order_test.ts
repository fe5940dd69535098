/**
 * Tags are listed in one order everywhere the repository pages list them (the tags page, the ref
 * picker, the tags feed): newest first by the tag's own date (an annotated tag's tagger date), with
 * that date shown, not its commit's.
 */
import { assert, assertEquals } from "../../helpers/assert.ts";
import { createRepo, signedIn } from "../../../testing/accounts.ts";
import { serverTest } from "../../helpers/server.ts";
import { commitFiles, git, newWork } from "../../helpers/browse.ts";

const HTML = { Accept: "text/html" };

/** The order in which `names` first appear in `text`. */
function orderIn(text: string, names: string[]): string[] {
  return names.filter((n) => text.includes(n)).sort((a, b) => text.indexOf(a) - text.indexOf(b));
}

serverTest(
  "tags: one order on the tags page, in the picker and in the feed",
  {},
  async (server) => {
    const home = await Deno.makeTempDir({ prefix: "signet-tag-order-" });
    try {
      const { token } = await signedIn(server, "alice");
      await createRepo(server, token, "tagged");
      const work = await newWork(home, "tagged");
      const at = (date: string) => ({ ...work, env: { ...work.env, GIT_COMMITTER_DATE: date } });
      // The older commit gets the newer tag: commit order and tag order disagree.
      await commitFiles(at("2020-01-01T00:00:00Z"), { "a.txt": "a\n" }, "old commit");
      const old = (await git(work, "rev-parse", "HEAD")).trim();
      await commitFiles(at("2021-01-01T00:00:00Z"), { "a.txt": "b\n" }, "new commit");
      await git(at("2022-01-01T00:00:00Z"), "tag", "-a", "-m", "first release", "rel-first");
      await git(at("2023-06-01T00:00:00Z"), "tag", "-a", "-m", "backport", "rel-second", old);
      // An old-style annotated tag without a tagger line (old imports have them): no date of its
      // own, so its commit's (2020).
      const tagObject = `${home}/tagless.txt`;
      await Deno.writeTextFile(tagObject, `object ${old}\ntype commit\ntag rel-untagged\n\nold\n`);
      const oid = (await git(work, "hash-object", "-t", "tag", "-w", "--literally", tagObject))
        .trim();
      await git(work, "update-ref", "refs/tags/rel-untagged", oid);
      const remote = `http://alice:${token}@${new URL(server.httpUrl).host}/alice/tagged.git`;
      await git(work, "push", "-q", remote, "main", "--tags");

      const base = `${server.httpUrl}/alice/tagged`;
      const names = ["rel-second", "rel-first"];
      const tagsPage = await (await fetch(`${base}/tags`, { headers: HTML })).text();
      const repoHome = await (await fetch(base, { headers: HTML })).text();
      const feed = await (await fetch(`${base}/tags.atom`)).text();
      assertEquals(orderIn(tagsPage, names), names, "tags page");
      assertEquals(orderIn(repoHome.slice(repoHome.indexOf("Tags")), names), names, "picker");
      assertEquals(orderIn(feed, names), names, "feed");
      // The date shown is the tag's (2023), not its commit's (2020).
      const row = tagsPage.slice(tagsPage.indexOf("rel-second"), tagsPage.indexOf("rel-first"));
      assert(row.includes("2023-06-01"), row);
      const untagged = tagsPage.slice(tagsPage.indexOf("rel-untagged"));
      assert(untagged.slice(0, untagged.indexOf("</li>")).includes("2020-01-01"), untagged);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
);
