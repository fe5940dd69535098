/**
 * Abbreviated commit ids in the browser's URLs against a real server: each page that takes a ref or
 * a commit id (compare's two sides and search's `ref` too) redirects an abbreviation (7+ hex digits)
 * to the full id's URL, path, suffix and query kept; a branch named like hex digits (or
 * `<hex>/fix`) stays the branch; an abbreviation of nothing, of a tree, or shorter than 7 digits is
 * a 404; one that two commits share (found by searching commit texts for a 7-digit collision) is a
 * 404 that says so, as HTML and as JSON.
 */
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { createRepo, signedIn } from "../../../testing/accounts.ts";
import { serverTest } from "../../helpers/server.ts";
import { commitFiles, git, newWork, type Work } from "../../helpers/browse.ts";
import { runOk } from "../../../testing/run.ts";

const HTML = { Accept: "text/html,application/xhtml+xml,*/*;q=0.8" };

/** GETs `url` without following redirects; status, Location and text. */
async function get(url: string, headers: Record<string, string> = HTML) {
  const res = await fetch(url, { headers, redirect: "manual" });
  return { status: res.status, location: res.headers.get("location"), text: await res.text() };
}

/** Hex SHA-1 of `bytes`. */
async function sha1(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-1", bytes as Uint8Array<ArrayBuffer>),
  );
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Writes two commits (on the empty tree, parentless) whose ids share their first 7 hex digits, found
 * by hashing commit texts that differ in their message (a birthday search over 28 bits: about
 * 20,000 candidates); returns their ids.
 */
async function collidingCommits(w: Work): Promise<[string, string]> {
  const seen = new Map<string, string>();
  const encoder = new TextEncoder();
  for (let i = 0;; i++) {
    const text = "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n" +
      "author A <a@example.com> 1700000000 +0000\n" +
      "committer A <a@example.com> 1700000000 +0000\n\n" +
      `candidate ${i}\n`;
    const body = encoder.encode(text);
    const id = await sha1(new Uint8Array([...encoder.encode(`commit ${body.length}\0`), ...body]));
    const other = seen.get(id.slice(0, 7));
    if (other !== undefined) {
      const written: string[] = [];
      for (const t of [other, text]) {
        const path = `${w.dir}/../commit-${written.length}.txt`;
        await Deno.writeTextFile(path, t);
        written.push(
          (await runOk("git", ["hash-object", "-w", "-t", "commit", path], {
            cwd: w.dir,
            env: w.env,
          })).trim(),
        );
      }
      return [written[0], written[1]];
    }
    seen.set(id.slice(0, 7), text);
  }
}

serverTest("abbreviated commit ids redirect to the full id's page", {}, async (server, t) => {
  const home = await Deno.makeTempDir({ prefix: "signet-abbrev-" });
  const { token } = await signedIn(server, "alice");
  await createRepo(server, token, "site");
  const work = await newWork(home, "site");
  await commitFiles(work, { "src/main.ts": "console.log(1);\n" }, "First");
  const second = await commitFiles(work, { "src/main.ts": "console.log(2);\n" }, "Second");
  const first = (await git(work, "rev-parse", "HEAD~1")).trim();
  const short = second.slice(0, 7);
  // Branches named like the first commit's abbreviation, and under another abbreviation of it,
  // both at the second commit: the branch, not the commit beginning with those digits.
  const hexBranch = first.slice(0, 7);
  const underHex = `${first.slice(0, 8)}/fix`;
  await git(work, "branch", hexBranch, second);
  await git(work, "branch", underHex, second);
  const [one, two] = await collidingCommits(work);
  assertEquals(one.slice(0, 7), two.slice(0, 7));
  assert(one !== two);
  await git(work, "branch", "collide-1", one);
  await git(work, "branch", "collide-2", two);
  const remote = `http://alice:${token}@127.0.0.1:${server.httpPort}/alice/site.git`;
  await git(work, "push", "-q", remote, "main", hexBranch, underHex, "collide-1", "collide-2");
  const U = `${server.httpUrl}/alice/site`;

  await t.step("each page redirects, keeping the path, the suffix and the query", async () => {
    const cases: [string, string][] = [
      [`/commit/${short}`, `/commit/${second}`],
      [`/commit/${second.slice(0, 12)}.patch`, `/commit/${second}.patch`],
      [`/tree/${short}/src`, `/tree/${second}/src`],
      [`/blob/${short}/src/main.ts?plain=1`, `/blob/${second}/src/main.ts?plain=1`],
      [`/blame/${short}/src/main.ts`, `/blame/${second}/src/main.ts`],
      [`/raw/${short}/src/main.ts`, `/raw/${second}/src/main.ts`],
      [`/commits/${short}?page=2`, `/commits/${second}?page=2`],
      [`/commits/${short}.atom`, `/commits/${second}.atom`],
      [`/archive/${short}.zip`, `/archive/${second}.zip`],
    ];
    for (const [from, to] of cases) {
      const r = await get(`${U}${from}`);
      assertEquals(r.status, 302, from);
      assertEquals(r.location, `/alice/site${to}`, from);
    }
    // Either side of a comparison, and a search's ref.
    const compared = await get(`${U}/compare/${first.slice(0, 9)}...${short}`);
    assertEquals(compared.status, 302);
    assertEquals(compared.location, `/alice/site/compare/${first}...${second}`);
    const searched = await get(`${U}/search?q=console&ref=${short}`);
    assertEquals(searched.status, 302);
    assertEquals(searched.location, `/alice/site/search?q=console&ref=${second}`);
    // The target is the page itself.
    const followed = await fetch(`${U}/commit/${short}`, { headers: HTML });
    assertEquals(followed.status, 200);
    assertStringIncludes(await followed.text(), "Second");
    // An upper-case abbreviation is not one (ids in URLs are lower case), nor are 6 digits.
    if (/[a-f]/.test(short)) {
      assertEquals((await get(`${U}/commit/${short.toUpperCase()}`)).status, 404);
    }
    assertEquals((await get(`${U}/commit/${second.slice(0, 6)}`)).status, 404);
  });

  await t.step("a branch named like hex digits, or under them, is the branch", async () => {
    for (const ref of [hexBranch, underHex]) {
      const r = await get(`${U}/raw/${ref}/src/main.ts`);
      assertEquals(r.status, 200, ref);
      assertEquals(r.text, "console.log(2);\n", ref);
    }
    // The same digits with no branch of that name redirect to the first commit.
    const r = await get(`${U}/raw/${first.slice(0, 9)}/src/main.ts`);
    assertEquals(r.location, `/alice/site/raw/${first}/src/main.ts`);
  });

  await t.step("an abbreviation of no commit is a 404", async () => {
    const tree = (await git(work, "rev-parse", `${second}^{tree}`)).trim();
    for (const path of [`/commit/${tree.slice(0, 10)}`, "/tree/0000000000/src"]) {
      const r = await get(`${U}${path}`);
      assertEquals(r.status, 404, path);
      assertEquals(r.location, null, path);
    }
  });

  await t.step("an abbreviation two commits share is a 404 that says so", async () => {
    const shared = one.slice(0, 7);
    const page = await get(`${U}/commit/${shared}`);
    assertEquals(page.status, 404);
    assertStringIncludes(page.text, "Ambiguous commit id");
    assertStringIncludes(page.text, shared);
    const json = await get(`${U}/tree/${shared}`, { Accept: "application/json" });
    assertEquals(json.status, 404);
    assertStringIncludes(JSON.parse(json.text).error, `commit id ${shared} is ambiguous`);
    assertStringIncludes(page.text, "More than one object begins with");
    // Both commits are listed, each leading to its page.
    assertStringIncludes(page.text, `Commits that begin with ${shared}`);
    for (const id of [one, two]) assertStringIncludes(page.text, `href="/alice/site/commit/${id}"`);
    // One more digit tells them apart (the search only matched 7).
    if (one[7] !== two[7]) {
      const r = await get(`${U}/commit/${one.slice(0, 8)}`);
      assertEquals(r.location, `/alice/site/commit/${one}`);
    }
  });
  await Deno.remove(home, { recursive: true });
});
