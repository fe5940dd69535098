/**
 * Archive downloads (`/<owner>/<repo>/archive/<ref>.tar.gz|.zip`) against a real server: the bytes
 * git itself makes for a branch, a tag, a branch with a slash and a commit id, unpacked by tar and by
 * Python's zipfile; `export-ignore` honoured, `export-subst` not expanded (it reads whole files into
 * memory); HEAD without a body; 404s for what names no archive; the links on the home and refs pages
 * (a tag that a branch's name hides linked by its commit); a download whose git is killed fails
 * instead of ending as if complete. (And a feed whose ref begins with a tag's name, and the tags'
 * feed.)
 */
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { createRepo, signedIn } from "../../../testing/accounts.ts";
import { runOk } from "../../../testing/run.ts";
import { serverTest } from "../../helpers/server.ts";
import { commitFiles, git, newWork } from "../../helpers/browse.ts";
import { commitRandomFile } from "../../helpers/git.ts";

const HTML = { Accept: "text/html,application/xhtml+xml,*/*;q=0.8" };

/** Files of the pushed repository, by path. */
const FILES: Record<string, string> = {
  "README.md": "# Site\n",
  "src/main.ts": "console.log('hello');\n",
  "docs/deep/er/note.txt": "deep\n",
  ".gitattributes": "private.txt export-ignore\n",
  "private.txt": "left out of archives\n",
};

/** Every file under `dir` (path relative to it → content). */
async function filesUnder(dir: string, at = ""): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for await (const e of Deno.readDir(`${dir}/${at}`)) {
    const rel = at ? `${at}/${e.name}` : e.name;
    if (e.isDirectory) Object.assign(out, await filesUnder(dir, rel));
    else out[rel] = await Deno.readTextFile(`${dir}/${rel}`);
  }
  return out;
}

serverTest("archives: a ref's files as .tar.gz and .zip", {}, async (server, t) => {
  const home = await Deno.makeTempDir({ prefix: "signet-archive-" });
  const { token } = await signedIn(server, "alice");
  await createRepo(server, token, "site");
  const U = server.httpUrl;
  const work = await newWork(home, "site");
  const first = await commitFiles(work, FILES, "First");
  await git(work, "tag", "-a", "v1.0", "-m", "version 1.0");
  await git(work, "checkout", "-q", "-b", "feature/x");
  await commitFiles(work, { "src/feature.ts": "export const x = 1;\n" }, "Add x");
  await git(work, "checkout", "-q", "-b", "subst", "main");
  await commitFiles(work, {
    ".gitattributes": "version.txt export-subst\n",
    "version.txt": "$Format:%H$\n",
  }, "Substitute");
  // A tag and a branch both named `shadow`, at different commits; a tag named like the first
  // segment of the branch `feature/x`.
  await git(work, "tag", "shadow", first);
  await git(work, "tag", "feature", first);
  await git(work, "branch", "shadow");
  // A release: an annotated tag with notes, by its own tagger.
  await runOk("git", ["tag", "-a", "v2.0", "-m", "Second release\n\nNotes line.", first], {
    cwd: work.dir,
    env: { ...work.env, GIT_COMMITTER_NAME: "Release Manager" },
  });
  // A tag naming a blob: listed on the tags page, offered nowhere as a ref to browse.
  await git(work, "tag", "blobtag", `${first}:README.md`);
  await git(work, "checkout", "-q", "main");
  const remote = `http://alice:${token}@127.0.0.1:${server.httpPort}/alice/site.git`;
  await git(
    work,
    "push",
    "-q",
    remote,
    "main",
    "feature/x",
    "subst",
    "refs/heads/shadow",
    "refs/tags/v1.0",
    "refs/tags/shadow",
    "refs/tags/feature",
    "refs/tags/blobtag",
    "refs/tags/v2.0",
  );
  const expected = { ...FILES };
  delete expected["private.txt"];

  await t.step(
    "main as .tar.gz: git's own bytes, attachment, unpacks under site-main/",
    async () => {
      const res = await fetch(`${U}/alice/site/archive/main.tar.gz`);
      assertEquals(res.status, 200);
      assertEquals(res.headers.get("content-type"), "application/gzip");
      assertStringIncludes(res.headers.get("content-disposition")!, 'filename="site-main.tar.gz"');
      assertEquals(res.headers.get("x-content-type-options"), "nosniff");
      const bytes = new Uint8Array(await res.arrayBuffer());
      const local = await new Deno.Command("git", {
        args: ["archive", "--format=tar.gz", "--prefix=site-main/", "main"],
        cwd: work.dir,
        env: work.env,
        stdout: "piped",
      }).output();
      assertEquals(bytes, local.stdout, "the server's archive differs from git archive's");
      await Deno.writeFile(`${home}/main.tar.gz`, bytes);
      await Deno.mkdir(`${home}/tgz`);
      await runOk("tar", ["-xzf", `${home}/main.tar.gz`, "-C", `${home}/tgz`]);
      assertEquals([...Deno.readDirSync(`${home}/tgz`)].map((e) => e.name), ["site-main"]);
      assertEquals(await filesUnder(`${home}/tgz/site-main`), expected);
    },
  );

  await t.step("a branch with a slash as .zip unpacks under site-feature-x/", async () => {
    const res = await fetch(`${U}/alice/site/archive/feature/x.zip`);
    assertEquals(res.status, 200);
    assertEquals(res.headers.get("content-type"), "application/zip");
    assertStringIncludes(res.headers.get("content-disposition")!, 'filename="site-feature-x.zip"');
    await Deno.writeFile(`${home}/x.zip`, new Uint8Array(await res.arrayBuffer()));
    await runOk("python3", ["-m", "zipfile", "-e", `${home}/x.zip`, `${home}/zip`]);
    assertEquals(
      await filesUnder(`${home}/zip/site-feature-x`),
      { ...expected, "src/feature.ts": "export const x = 1;\n" },
    );
  });

  await t.step("a tag and a commit id name their archives", async () => {
    for (const [ref, base] of [["v1.0", "site-v1.0"], [first, `site-${first}`]]) {
      const res = await fetch(`${U}/alice/site/archive/${ref}.tar.gz`);
      assertEquals(res.status, 200, ref);
      assertStringIncludes(res.headers.get("content-disposition")!, `filename="${base}.tar.gz"`);
      const dir = `${home}/ref-${ref}`;
      await Deno.mkdir(dir);
      await Deno.writeFile(`${dir}.tar.gz`, new Uint8Array(await res.arrayBuffer()));
      await runOk("tar", ["-xzf", `${dir}.tar.gz`, "-C", dir]);
      assertEquals(await filesUnder(`${dir}/${base}`), expected, ref);
    }
  });

  await t.step("export-subst is not expanded", async () => {
    const res = await fetch(`${U}/alice/site/archive/subst.tar.gz`);
    assertEquals(res.status, 200);
    await Deno.writeFile(`${home}/subst.tar.gz`, new Uint8Array(await res.arrayBuffer()));
    await Deno.mkdir(`${home}/subst`);
    await runOk("tar", ["-xzf", `${home}/subst.tar.gz`, "-C", `${home}/subst`]);
    assertEquals(await Deno.readTextFile(`${home}/subst/site-subst/version.txt`), "$Format:%H$\n");
  });

  await t.step("HEAD answers the headers without a body", async () => {
    const res = await fetch(`${U}/alice/site/archive/main.zip`, { method: "HEAD" });
    assertEquals(res.status, 200);
    assertEquals(res.headers.get("content-type"), "application/zip");
    assertEquals((await res.arrayBuffer()).byteLength, 0);
  });

  await t.step("what names no archive is a 404 (HTML to a browser, JSON to others)", async () => {
    for (
      const path of [
        "archive/nope.tar.gz",
        "archive/main.rar",
        "archive/main",
        "archive/.zip",
        "archive/main/README.md.zip",
        "archive/featur.zip",
        "archive/..%2Fmain.zip",
        `archive/${"0".repeat(40)}.zip`,
      ]
    ) {
      const page = await fetch(`${U}/alice/site/${path}`, { headers: HTML });
      assertEquals(page.status, 404, path);
      assertEquals(page.headers.get("content-type"), "text/html; charset=utf-8", path);
      await page.body?.cancel();
      const json = await fetch(`${U}/alice/site/${path}`);
      assertEquals(json.status, 404, path);
      assertEquals(typeof (await json.json()).error, "string", path);
    }
    const other = await fetch(`${U}/alice/nothing/archive/main.zip`);
    assertEquals(other.status, 404);
    await other.body?.cancel();
  });

  await t.step("the home and refs pages link to the archives", async () => {
    const home = await (await fetch(`${U}/alice/site`, { headers: HTML })).text();
    assertStringIncludes(home, 'href="/alice/site/archive/main.tar.gz"');
    assertStringIncludes(home, 'href="/alice/site/archive/main.zip"');
    const branches = await (await fetch(`${U}/alice/site/branches`, { headers: HTML })).text();
    assertStringIncludes(branches, 'href="/alice/site/archive/feature/x.zip"');
    const tags = await (await fetch(`${U}/alice/site/tags`, { headers: HTML })).text();
    assertStringIncludes(tags, 'href="/alice/site/archive/v1.0.tar.gz"');
    assert(!tags.includes("archive/main."), "the tags page lists tags only");
    // The tag `shadow` is hidden by the branch `shadow` in a URL: linked by its commit.
    assertStringIncludes(tags, `href="/alice/site/archive/${first}.zip"`);
    assertStringIncludes(tags, `href="/alice/site/tree/${first}"`);
    assert(!tags.includes('href="/alice/site/archive/shadow.zip"'), "the tag links the branch");
    assertStringIncludes(branches, 'href="/alice/site/archive/shadow.zip"');
    assertStringIncludes(tags, "names no commit");
    assert(!home.includes("/tree/blobtag"), "the ref menu offers a tag that names a blob");
  });

  await t.step("the history's feed of feature/x, though a tag is named feature", async () => {
    const history = await (await fetch(`${U}/alice/site/commits/feature/x`, { headers: HTML }))
      .text();
    assertStringIncludes(history, 'href="/alice/site/commits/feature/x.atom"');
    const feed = await fetch(`${U}/alice/site/commits/feature/x.atom`);
    assertEquals(feed.status, 200);
    assertEquals(feed.headers.get("content-type"), "application/atom+xml; charset=utf-8");
    assertStringIncludes(await feed.text(), "<title>Add x</title>");
  });

  await t.step("the tags' feed: every tag, linked as the tags page links it", async () => {
    const tags = await (await fetch(`${U}/alice/site/tags`, { headers: HTML })).text();
    assertStringIncludes(
      tags,
      '<link rel="alternate" type="application/atom+xml" href="/alice/site/tags.atom"',
    );
    assertStringIncludes(tags, 'href="/alice/site/tags.atom" type="application/atom+xml"');
    const res = await fetch(`${U}/alice/site/tags.atom`);
    assertEquals(res.status, 200);
    assertEquals(res.headers.get("content-type"), "application/atom+xml; charset=utf-8");
    const feedText = await res.text();
    // Well-formed XML (Python's parser): one entry a tag, titled by its name, with its link.
    const parsed = await runOk("python3", [
      "-c",
      "import sys, xml.etree.ElementTree as E\n" +
      "ns = {'a': 'http://www.w3.org/2005/Atom'}\n" +
      "f = E.fromstring(sys.stdin.buffer.read())\n" +
      "for e in f.findall('a:entry', ns):\n" +
      "  print(e.find('a:title', ns).text, e.find('a:link', ns).get('href'))",
    ], { stdin: feedText });
    assertEquals(parsed.trim().split("\n").sort(), [
      `feature ${U}/alice/site/tree/feature`,
      // Hidden by the branch of the same name: linked by its commit.
      `shadow ${U}/alice/site/tree/${first}`,
      `v1.0 ${U}/alice/site/tree/v1.0`,
      `v2.0 ${U}/alice/site/tree/v2.0`,
    ]);
    // An annotated tag's entry: its tagger and its whole message, then the commit.
    const release = await runOk("python3", [
      "-c",
      "import sys, xml.etree.ElementTree as E\n" +
      "ns = {'a': 'http://www.w3.org/2005/Atom'}\n" +
      "f = E.fromstring(sys.stdin.buffer.read())\n" +
      "e = [e for e in f.findall('a:entry', ns) if e.find('a:title', ns).text == 'v2.0'][0]\n" +
      "print(e.find('a:author/a:name', ns).text)\n" +
      "print(e.find('a:content', ns).text)",
    ], { stdin: feedText });
    assertEquals(
      release.trim(),
      `Release Manager\nSecond release\n\nNotes line.\n\n${first}`,
    );
    const none = await fetch(`${U}/alice/nothing/tags.atom`);
    assertEquals(none.status, 404);
    await none.body?.cancel();
  });

  await t.step("a download whose git is killed fails, not ends as if complete", async () => {
    await commitRandomFile(work.dir, work.env, "big.bin", 20 * 1024 * 1024, "Big");
    await git(work, "push", "-q", remote, "HEAD:refs/heads/big");
    const res = await fetch(`${U}/alice/site/archive/big.zip`);
    assertEquals(res.status, 200);
    const reader = res.body!.getReader();
    await reader.read(); // git is now blocked writing the rest, which is not read yet
    const children = await runOk("ps", ["--ppid", String(server.pid), "-o", "pid=,args="]);
    const archiver = children.split("\n").find((l) => l.includes(" archive "));
    assert(archiver, `no git archive among\n${children}`);
    Deno.kill(Number(archiver.trim().split(/\s+/)[0]), "SIGKILL");
    let failed = false;
    try {
      while (!(await reader.read()).done) { /* the rest, until the break */ }
    } catch {
      failed = true;
    }
    assert(failed, "the cut-off download ended as if complete");
  });

  await Deno.remove(home, { recursive: true });
});
