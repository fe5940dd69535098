/**
 * Hostile repositories in the browser: a README that tries script, `javascript:` links and raw
 * HTML; file and branch names with quotes, HTML and bidi overrides, and option-like names; a
 * binary named `.md`; a 10,000-file directory; a 100 MB blob; a commit with a 1 GB diff. Each page
 * renders with everything inert and within bounds, or says clearly why it does not.
 */
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { createRepo, signedIn } from "../../../testing/accounts.ts";
import { gitEnv, runOk } from "../../../testing/run.ts";
import { serverTest } from "../../helpers/server.ts";
import {
  bigTextBlob,
  commitManyFiles,
  git,
  HOSTILE_BRANCH,
  HOSTILE_NAMES,
  hostileWork,
} from "../../helpers/browse.ts";

const HTML = { Accept: "text/html" };
const MB = 1024 * 1024;

async function page(url: string, status = 200): Promise<string> {
  const res = await fetch(url, { headers: HTML });
  const text = await res.text();
  assertEquals(res.status, status, `${url}: ${text.slice(0, 200)}`);
  assertEquals(res.headers.get("content-type"), "text/html; charset=utf-8", url);
  return text;
}

/** Nothing in `html` that runs: no inline script, no event handler, no script URL. */
function assertInert(html: string, where: string): void {
  const scripts = html.match(/<script\b[^>]*>/g) ?? [];
  assertEquals(scripts.length, 1, `${where}: only the page's own script`);
  assert(/src="\/assets\/browse-[0-9a-f]+\.js"/.test(scripts[0] ?? ""), where);
  // A tag (its attributes' values quoted, as Preact writes them) with an `on…=` attribute.
  const handler = /<[a-z][a-z0-9]*(?:\s+[^\s=>"]+(?:="[^"]*")?)*?\s+on[a-z]+=/i;
  assert(!handler.test(html), `${where}: an event handler attribute`);
  assert(!/(href|src)="\s*(javascript|data|vbscript):/i.test(html), `${where}: a script URL`);
  assert(!html.includes("\u202E"), `${where}: a raw bidi override`);
}

serverTest("repository browser: hostile content stays inert and bounded", {}, async (server, t) => {
  const home = await Deno.makeTempDir({ prefix: "signet-browse-hostile-" });
  const { token } = await signedIn(server, "mallory");
  await createRepo(server, token, "h");
  const U = server.httpUrl;
  const base = `${U}/mallory/h`;
  const remote = `http://mallory:${token}@127.0.0.1:${server.httpPort}/mallory/h.git`;
  const w = await hostileWork(home, {
    "docs/guide.md": "# Guide\n",
    "binary.md": new Uint8Array([0x23, 0x20, 0x00, 0xff, 0x00, 0x01, 0x02]),
    "bidi.js": "const ok = true; /* \u202E } \u2066 */ alert(1);\n",
    "break.html": "</td></tr></table><script>alert('cell')</script>\n",
  }, "Hostile <b>subject</b> \u202Eesrever");
  await commitManyFiles(w, "many", 10_000, "Ten thousand files");
  const big = await bigTextBlob(`${w.dir}/.git`, w.env, 100 * MB);
  await git(w, "update-index", "--add", "--cacheinfo", `100644,${big},big.txt`);
  await git(w, "commit", "-q", "-m", "A 100 MB file");
  const bigCommit = (await git(w, "rev-parse", "HEAD")).trim();
  await git(w, "branch", HOSTILE_BRANCH);
  // A branch with a file of 400,000 one-letter lines (800 KB): its blame's porcelain is ~19 MB.
  await git(w, "checkout", "-q", "-b", "lines");
  await Deno.writeTextFile(`${w.dir}/lines.txt`, "a\n".repeat(400_000));
  await git(w, "add", "lines.txt");
  await git(w, "commit", "-q", "-m", "Many lines");
  await git(w, "checkout", "-q", "main");
  await git(w, "push", "-q", remote, "main", HOSTILE_BRANCH, "lines");

  await t.step("README: scripts, handlers and script links go; its HTML subset stays", async () => {
    const html = await page(base);
    assertInert(html, "home");
    assert(!html.includes("alert('readme')"), "a README's script goes with its text");
    assert(!html.includes("alert('img')"), "an event handler goes");
    assertStringIncludes(html, "[run me](javascript:alert('link'))");
    assertStringIncludes(html, '<img src="/mallory/h/raw/main/x" alt="x">');
    assertStringIncludes(html, "<a>raw html link</a>");
    assertStringIncludes(html, 'href="/mallory/h/blob/main/docs/guide.md"');
    assertStringIncludes(html, 'href="https://example.com/x" rel="nofollow noopener noreferrer"');
    assertStringIncludes(html, 'src="/mallory/h/raw/main/img/logo.png"');
  });

  await t.step("names with quotes, HTML, bidi overrides and option syntax", async () => {
    const tree = await page(`${base}/tree/main/names`);
    assertInert(tree, "names tree");
    assertStringIncludes(tree, "&lt;img src=x onerror=alert(1)>.html");
    assertStringIncludes(tree, "&quot;quoted&quot; &amp; 'single'.txt");
    assertStringIncludes(tree, 'title="bidirectional control U+202E">U+202E</span>');
    for (const name of HOSTILE_NAMES) {
      const blob = await page(`${base}/blob/main/names/${encodeURIComponent(name)}`);
      assertInert(blob, name);
      const raw = await fetch(`${base}/raw/main/names/${encodeURIComponent(name)}`);
      assertEquals(await raw.text(), `content of ${name}\n`, name);
    }
    const commits = await page(`${base}/commits/main`);
    assertInert(commits, "history");
    assertStringIncludes(commits, "Hostile &lt;b>subject&lt;/b>");
  });

  await t.step("a branch named with quotes, HTML and a bidi override", async () => {
    const branches = await page(`${base}/branches`);
    assertInert(branches, "branches");
    assertStringIncludes(branches, "x&quot;&lt;img/src=x/onerror=alert(1)>'");
    const refPath = HOSTILE_BRANCH.split("/").map(encodeURIComponent).join("/");
    const tree = await page(`${base}/tree/${refPath}`);
    assertInert(tree, "tree at the hostile branch");
    assertStringIncludes(tree, `href="/mallory/h/blob/${refPath}/README.md"`);
    // The header's search box names the branch as in a path, never raw; searching it works.
    assertStringIncludes(tree, `name="ref" value="${refPath}"`);
    const search = await page(`${base}/search?q=README&ref=${encodeURIComponent(refPath)}`);
    assertInert(search, "search at the hostile branch");
    assertStringIncludes(search, `href="/mallory/h/blob/${refPath}/README.md?plain=1#L`);
    // Compared with main, both ways: the name's override shown, not applied.
    for (const spec of [`main...${refPath}`, `${refPath}...main`, `main..${refPath}`]) {
      const compared = await page(`${base}/compare/${spec}`);
      assertInert(compared, `compare ${spec}`);
      assertStringIncludes(compared, ">U+202E</span>");
    }
    // Its archive's file name: quotes, HTML and the override replaced in `filename`, encoded in
    // `filename*` (RFC 8187: ' ( ) too). HEAD: this commit holds 10,000 files and a 100 MB one.
    const res = await fetch(`${base}/archive/${refPath}.zip`, { method: "HEAD" });
    assertEquals(res.status, 200);
    assertEquals(
      res.headers.get("content-disposition"),
      `attachment; filename="h-x__img-src_x-onerror_alert_1____b.zip"; ` +
        "filename*=UTF-8''h-x%22%3Cimg-src%3Dx-onerror%3Dalert%281%29%3E%27%E2%80%AEb.zip",
    );
  });

  await t.step("file content: escaped, bidi controls shown with a warning", async () => {
    const html = await page(`${base}/blob/main/break.html`);
    assertInert(html, "break.html");
    assert(!html.includes("</table><script>"));
    assertStringIncludes(html, '&lt;/<span class="hljs-name">table</span>&gt;');
    const bidi = await page(`${base}/blob/main/bidi.js`);
    assertInert(bidi, "bidi.js");
    assertStringIncludes(bidi, "bidirectional Unicode control characters");
    // Found by a search: the same marks and warning, in the line and in its match. The query stays
    // as typed in its own field (a form control's text is isolated from the page), and nowhere else.
    const query = "const ok = true; /* \u202E";
    const searched = await page(`${base}/search?q=${encodeURIComponent(query)}`);
    assertStringIncludes(searched, `value="${query}"`);
    const found = searched.replace(/<input id="search-q"[^>]*>/, "");
    assertInert(found, "a search's lines");
    assert(!found.includes("\u2066"), "a search's lines: a raw isolate");
    assertStringIncludes(found, "bidirectional Unicode control characters");
    assertStringIncludes(found, ">U+2066</span>");
    assertStringIncludes(found, ">U+202E</span></mark>");
    assertStringIncludes(bidi, ">U+2066</span>");
    // Its blame: the file's marks, and the commit's hostile subject as text.
    const blame = await page(`${base}/blame/main/break.html`);
    assertInert(blame, "blame of break.html");
    assert(!blame.includes("</table><script>"));
    assertStringIncludes(blame, "Hostile &lt;b&gt;subject&lt;/b&gt; &lt;U+202E&gt;esrever");
    const bidiBlame = await page(`${base}/blame/main/bidi.js`);
    assertInert(bidiBlame, "blame of bidi.js");
    assertStringIncludes(bidiBlame, ">U+2066</span>");
    // The history's feed: the subject as XML text, and well-formed (Python's parser reads it).
    const feed = await (await fetch(`${base}/commits/main.atom`)).text();
    assertStringIncludes(feed, "<title>Hostile &lt;b&gt;subject&lt;/b&gt; \u202Eesrever</title>");
    await runOk("python3", [
      "-c",
      "import sys, xml.etree.ElementTree as E; E.fromstring(sys.stdin.buffer.read())",
    ], { stdin: feed });
  });

  await t.step(
    "a blame too large to show says so, and so does the same request again",
    async () => {
      for (const query of ["", "?page=2"]) {
        const html = await page(`${base}/blame/lines/lines.txt${query}`);
        assertStringIncludes(html, "No blame for this file");
        assertStringIncludes(html, "too large to show");
        assertStringIncludes(html, 'href="/mallory/h/blob/lines/lines.txt"');
      }
    },
  );

  await t.step("a binary named .md is offered as a download", async () => {
    const html = await page(`${base}/blob/main/binary.md`);
    assertStringIncludes(html, "This file is binary.");
    assertStringIncludes(html, 'href="/mallory/h/raw/main/binary.md?download=1"');
    const raw = await fetch(`${base}/raw/main/binary.md`);
    assertEquals(raw.headers.get("content-type"), "application/octet-stream");
    assertStringIncludes(raw.headers.get("content-disposition") ?? "", "attachment");
    assertEquals((await raw.arrayBuffer()).byteLength, 7);
  });

  await t.step("a 10,000-file directory shows its first 1,000 entries and says so", async () => {
    const html = await page(`${base}/tree/main/many`);
    assertEquals(html.match(/href="\/mallory\/h\/blob\/main\/many\//g)?.length, 1000);
    assertStringIncludes(html, "9,000 more entries are not shown (10,000 in all)");
    assert(html.length < 1024 * 1024, `${html.length} bytes`);
  });

  await t.step("a 100 MB file is offered for download, and streams whole", async () => {
    const html = await page(`${base}/blob/main/big.txt`);
    assertStringIncludes(html, "This file is 100 MB, too large to show here");
    assertStringIncludes(html, "Download 100 MB");
    assert(html.length < 64 * 1024);
    const raw = await fetch(`${base}/raw/main/big.txt`);
    assertEquals(raw.headers.get("content-type"), "text/plain; charset=utf-8");
    assertEquals(raw.headers.get("content-length"), String(100 * MB));
    assertEquals(raw.headers.get("content-encoding"), null);
    let n = 0;
    for await (const chunk of raw.body!) n += chunk.length;
    assertEquals(n, 100 * MB);
    // Its commit (the blob is in the pushed pack): listed, never given to git's diff.
    const commit = await page(`${base}/commit/${bigCommit}`);
    assertEquals(commit.match(/Diff too large to show\./g)?.length, 1);
    assertStringIncludes(commit, 'href="/mallory/h/blob/' + bigCommit + '/big.txt"');
  });

  await t.step(
    "a commit with a 1 GB diff: listed, its diff not shown, its patch bounded",
    async () => {
      // Made in the server's repository by hand (as an admin or another tool could): the pages see
      // it at once too, as they key on the refs' files.
      const bare = `${server.dataDir}/repos/mallory/h.git`;
      const env = { ...gitEnv(home), GIT_INDEX_FILE: `${home}/huge.index` };
      const g = (...args: string[]) => runOk("git", ["--git-dir", bare, ...args], { env });
      const huge = await bigTextBlob(bare, env, 1024 * MB);
      await g("read-tree", "main");
      await g("update-index", "--add", "--cacheinfo", `100644,${huge},huge.txt`);
      await g("update-index", "--add", "--cacheinfo", `100644,${huge},big.txt`);
      const tree = (await g("write-tree")).trim();
      const commit = (await g("commit-tree", tree, "-p", "main", "-m", "A 1 GB diff")).trim();
      await g("update-ref", "refs/heads/main", commit);

      const html = await page(`${base}/commit/${commit}`);
      assertStringIncludes(html, "A 1 GB diff");
      assertStringIncludes(html, "2 files changed");
      assertEquals(html.match(/Diff too large to show\./g)?.length, 2);
      assert(html.length < 256 * 1024, `${html.length} bytes`);
      const patch = await fetch(`${base}/commit/${commit}.patch`);
      assertEquals(patch.status, 200);
      const text = await patch.text();
      assertStringIncludes(text, "Binary files");
      assert(text.length < 64 * 1024);
      const homePage = await page(base);
      assertStringIncludes(homePage, "A 1 GB diff");
      const blob = await page(`${base}/blob/main/huge.txt`);
      assertStringIncludes(blob, "This file is 1.0 GB, too large to show here");
    },
  );
  await Deno.remove(home, { recursive: true });
});
