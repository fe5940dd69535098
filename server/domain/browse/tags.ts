/**
 * A repository's newest tags with what a release feed needs of each: the tagger and the tag's own
 * date and whole message for an annotated tag, the commit's author, date and message for a
 * lightweight one (`git for-each-ref`, newest first by that date).
 */
import type { Signet } from "../../context.ts";
import { gitRead } from "./git_read.ts";
import { type BrowseRepo, REF_TARGET_FIELDS, targetCommit } from "./refs.ts";
import { isObjectId } from "./paths.ts";

/** One tag that names a commit. */
export interface TagRelease {
  name: string;
  /** The commit it names (an annotated tag peeled). */
  commit: string;
  /** The tagger (annotated) or the commit's author (lightweight). */
  author: string;
  /** The tag's date (annotated) or the commit's committer date, Unix seconds. */
  date: number;
  /** The tag's whole message (annotated) or the commit's. */
  message: string;
}

const FORMAT = [
  ...REF_TARGET_FIELDS,
  "%(creatordate:unix)",
  "%(taggername)",
  "%(authorname)",
  "%(contents:subject)",
  // The body without a signed tag's signature block.
  "%(contents:body)",
].join("%00") + "%00%1e";

/** The `count` newest tags of `repo` that name a commit, newest first. */
export async function recentTags(
  ctx: Signet,
  repo: BrowseRepo,
  count: number,
  client?: string,
): Promise<TagRelease[]> {
  const out = await gitRead(ctx, repo.dir, [
    "for-each-ref",
    "--sort=-creatordate",
    `--count=${count}`,
    `--format=${FORMAT}`,
    "refs/tags/",
  ], { maxBytes: 4 * 1024 * 1024, client });
  const records = new TextDecoder().decode(out.stdout).split("\0\x1e\n");
  if (out.truncated) records.pop();
  const tags: TagRelease[] = [];
  for (const record of records) {
    const f = record.split("\0");
    if (f.length < 10 || !f[0].startsWith("refs/tags/")) continue;
    const [ref, type, oid, peeledType, peeled, date, tagger, author, subject] = f;
    const commit = targetCommit(type, oid, peeledType, peeled);
    if (commit === null || !isObjectId(commit)) continue;
    tags.push({
      name: ref.slice("refs/tags/".length),
      commit,
      author: tagger || author,
      date: Number(date) || 0,
      message: [subject, f.slice(9).join("\0").replace(/\n+$/, "")].filter(Boolean).join("\n\n"),
    });
  }
  return tags;
}
