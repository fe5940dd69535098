/**
 * The repository browser over HTTP against a real server and repositories pushed over HTTP and SSH:
 * every page (blame included), refs with slashes and commit ids, raw types, history paging, the
 * commit page and its patch, the empty repository's push lines, 404s (HTML to browsers, JSON to
 * others), smart HTTP left as it was, and pages that follow a push at once.
 */
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { createRepo, signedIn } from "../../../testing/accounts.ts";
import { runOk } from "../../../testing/run.ts";
import { serverTest } from "../../helpers/server.ts";
import { gitSshEnv } from "../../helpers/ssh.ts";
import { commitFiles, MAIN_TS, PNG_1PX, pushSite } from "../../helpers/browse.ts";

const HTML = { Accept: "text/html,application/xhtml+xml,*/*;q=0.8" };

/** Whether `html` shows a diff line of class `cls` (`da`, `dd`) reading `text`, after its numbers. */
function hasDiffLine(html: string, cls: string, text: string): boolean {
  const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`<span class="${cls}"(?: id="[^"]*")?><(i|a) [^>]*></\\1>${escaped}</span>`)
    .test(html);
}

/** GETs `url` as a browser does; status, headers and text. */
async function get(url: string, headers: Record<string, string> = HTML) {
  const res = await fetch(url, { headers, redirect: "manual" });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** A page: 200, HTML, the UI's CSP, no inline script; its text. */
async function page(url: string): Promise<string> {
  const r = await get(url);
  assertEquals(r.status, 200, `${url}: ${r.text.slice(0, 300)}`);
  assertEquals(r.headers.get("content-type"), "text/html; charset=utf-8", url);
  assertStringIncludes(r.headers.get("content-security-policy") ?? "", "script-src 'self'");
  assertEquals(r.headers.get("cross-origin-opener-policy"), "same-origin", url);
  assert(!/<script>|<script [^>]*>[^<]/.test(r.text), `inline script on ${url}`);
  return r.text;
}

/** A 404 page for a browser (heading and a way back) and a JSON 404 for anyone else. */
async function assert404(url: string): Promise<void> {
  const r = await get(url);
  assertEquals(r.status, 404, url);
  assertEquals(r.headers.get("content-type"), "text/html; charset=utf-8", url);
  assertStringIncludes(r.text, "<h1>Page not found</h1>", url);
  assert(/class="btn btn-secondary" href="\/[^"]*"/.test(r.text), `no way back on ${url}`);
  const j = await get(url, { Accept: "application/json" });
  assertEquals(j.status, 404, url);
  assertEquals(typeof JSON.parse(j.text).error, "string", url);
}

serverTest("repository browser: every page of a pushed repository", {}, async (server, t) => {
  const home = await Deno.makeTempDir({ prefix: "signet-browse-" });
  const { user, token } = await signedIn(server, "alice");
  await createRepo(server, token, "site");
  await createRepo(server, token, "empty");
  const U = server.httpUrl;
  const httpRemote = `http://alice:${token}@127.0.0.1:${server.httpPort}/alice/site.git`;
  const ssh = {
    env: gitSshEnv(server.sshPort, user.key, home),
    remote: `ssh://git@127.0.0.1:${server.sshPort}/alice/site.git`,
  };
  const site = await pushSite(home, httpRemote, ssh, 55);

  await t.step(
    "home: README rendered, top-level tree, last commit, counts, clone URLs",
    async () => {
      const html = await page(`${U}/alice/site`);
      assertStringIncludes(html, '<h1 id="user-content-site">Site</h1>');
      assertStringIncludes(html, 'href="/alice/site/blob/main/docs/guide.md"');
      assertStringIncludes(html, 'href="/alice/site/tree/main/src"');
      assertStringIncludes(html, 'href="/alice/site/blob/main/README.md"');
      assertStringIncludes(html, "Greet more warmly");
      assertStringIncludes(html, "2 branches · 1 tag");
      assertStringIncludes(html, `>${U}/alice/site.git</code>`);
      assertStringIncludes(html, `>ssh://git@127.0.0.1:${server.sshPort}/alice/site.git</code>`);
      assertStringIncludes(html, 'data-copy="clone-http"');
    },
  );

  await t.step("a clone URL in a browser goes to the repository's page", async () => {
    const r = await get(`${U}/alice/site.git`);
    assertEquals(r.status, 301);
    assertEquals(r.headers.get("location"), "/alice/site");
    const owner = await get(`${U}/alice/`);
    assertEquals(owner.status, 301);
    assertEquals(owner.headers.get("location"), "/alice");
  });

  await t.step(
    "tree: a ref with a slash (pushed over SSH), breadcrumbs, ref selector",
    async () => {
      const html = await page(`${U}/alice/site/tree/feature/x/src`);
      assertStringIncludes(html, 'href="/alice/site/blob/feature/x/src/feature.ts"');
      assertStringIncludes(html, 'aria-label="Breadcrumb"');
      assertStringIncludes(html, 'href="/alice/site/tree/main/src"');
      assertStringIncludes(html, 'href="/alice/site/tree/v1.0/src"');
      const byId = await page(`${U}/alice/site/tree/${site.first}/src`);
      assertStringIncludes(byId, `href="/alice/site/blob/${site.first}/src/main.ts"`);
      const tag = await page(`${U}/alice/site/tree/v1.0`);
      assertStringIncludes(tag, '<span class="ref-kind">Tag:</span>');
      assertStringIncludes(tag, '<span class="ref-name"><bdi>v1.0</bdi></span>');
      // A file's tree URL and a directory's blob URL lead to the right page.
      assertEquals(
        (await get(`${U}/alice/site/tree/main/README.md`)).headers.get("location"),
        "/alice/site/blob/main/README.md",
      );
      assertEquals(
        (await get(`${U}/alice/site/blob/main/src`)).headers.get("location"),
        "/alice/site/tree/main/src",
      );
    },
  );

  await t.step(
    "blob: line anchors, highlighting, Markdown with a source toggle, images",
    async () => {
      const html = await page(`${U}/alice/site/blob/main/src/main.ts`);
      assertStringIncludes(html, '<tr id="L2"><td class="ln"><a href="#L2">2</a></td>');
      assertStringIncludes(html, '<span class="hljs-keyword">export</span>');
      assertStringIncludes(html, "hello there");
      const old = await page(`${U}/alice/site/blob/${site.first}/src/main.ts`);
      assert(!old.includes("hello there"));
      const md = await page(`${U}/alice/site/blob/main/docs/guide.md`);
      assertStringIncludes(md, '<h1 id="user-content-guide">Guide</h1>');
      assertStringIncludes(md, 'href="/alice/site/blob/main/README.md"');
      assertStringIncludes(md, 'href="/alice/site/blob/main/docs/guide.md?plain=1"');
      const src = await page(`${U}/alice/site/blob/main/docs/guide.md?plain=1`);
      assertStringIncludes(src, '<td class="lc"><span class="hljs-section"># Guide</span></td>');
      const img = await page(`${U}/alice/site/blob/main/img/logo.png`);
      assertStringIncludes(
        img,
        '<img class="preview-image" src="/alice/site/raw/main/img/logo.png"',
      );
    },
  );

  await t.step("blame: each run of lines headed by its commit, highlighted, anchored", async () => {
    const blob = await page(`${U}/alice/site/blob/main/src/main.ts`);
    assertStringIncludes(blob, 'href="/alice/site/blame/main/src/main.ts">Blame</a>');
    const html = await page(`${U}/alice/site/blame/main/src/main.ts`);
    // Line 3 (the greeting) is from the second commit; the lines around it from the first.
    const row = (n: number) => html.match(new RegExp(`<tr id="L${n}"[^]*?</tr>`))?.[0] ?? "";
    assertStringIncludes(row(1), `href="/alice/site/commit/${site.first}"`);
    assertStringIncludes(row(1), "First commit");
    assertStringIncludes(row(3), `href="/alice/site/commit/${site.second}"`);
    assertStringIncludes(row(3), "Greet more warmly");
    assertStringIncludes(row(3), "hello there");
    // The author named on the run's first row; every row shaded by its commit's age.
    assertStringIncludes(row(1), '<span class="blame-author">Test</span>');
    for (const n of [1, 2, 3]) assert(/<td class="blame age-[0-4]">/.test(row(n)), row(n));
    assertStringIncludes(row(4), `href="/alice/site/commit/${site.first}"`);
    assert(!row(2).includes("/commit/"), "a run's later rows repeat its commit");
    assertStringIncludes(row(2), '<td class="ln"><a href="#L2">2</a></td>');
    assertStringIncludes(html, '<span class="hljs-keyword">export</span>');
    assertStringIncludes(html, "lines from 2 commits");
    // Blame prior to the greeting's change: the file as it was before, its line 3 from the first.
    assert(!row(1).includes('blame-prior" href'), "the first commit has nothing prior");
    const prior = row(3).match(/class="blame-prior" href="([^"]+)"/)?.[1];
    assert(prior?.startsWith("/alice/site/blame/"), `no prior link in ${row(3)}`);
    const before = await page(`${U}${prior}`);
    assertStringIncludes(before, "lines from 1 commit<");
    assertStringIncludes(before, `href="/alice/site/commit/${site.first}"`);
    assert(!before.includes("hello there"), "the prior blame shows the later line");
    // At the first commit, every line is its own.
    const old = await page(`${U}/alice/site/blame/${site.first}/src/main.ts`);
    assert(!old.includes(site.second), "the old blame names a later commit");
    // A binary file has no blame: a page that says so and leads to the file.
    const png = await get(`${U}/alice/site/blame/main/img/logo.png`);
    assertStringIncludes(png.text, "No blame for this file");
    assertStringIncludes(png.text, 'href="/alice/site/blob/main/img/logo.png"');
    const dir = await get(`${U}/alice/site/blame/main/src`);
    assertEquals(dir.status, 302);
    assertEquals(dir.headers.get("location"), "/alice/site/tree/main/src");
  });

  await t.step(
    "raw: text as text/plain, images as images, HTML and SVG never rendered",
    async () => {
      const ts = await fetch(`${U}/alice/site/raw/main/src/main.ts`);
      assertEquals(ts.headers.get("content-type"), "text/plain; charset=utf-8");
      assertEquals(await ts.text(), MAIN_TS.replace("hello", "hello there"));
      const png = await fetch(`${U}/alice/site/raw/main/img/logo.png`);
      assertEquals(png.headers.get("content-type"), "image/png");
      assertEquals(new Uint8Array(await png.arrayBuffer()), PNG_1PX);
      for (const name of ["page.html", "icon.svg"]) {
        const r = await fetch(`${U}/alice/site/raw/main/${name}`);
        assertEquals(r.headers.get("content-type"), "text/plain; charset=utf-8", name);
        assertStringIncludes(r.headers.get("content-security-policy") ?? "", "sandbox");
        assertEquals(r.headers.get("x-content-type-options"), "nosniff");
        await r.body?.cancel();
      }
      // An SVG is an image to an image load only (Sec-Fetch-Dest, set by browsers), sandboxed.
      const asImage = await fetch(`${U}/alice/site/raw/main/icon.svg`, {
        headers: { "Sec-Fetch-Dest": "image" },
      });
      assertEquals(asImage.headers.get("content-type"), "image/svg+xml");
      assertStringIncludes(asImage.headers.get("content-security-policy") ?? "", "sandbox");
      assertEquals(asImage.headers.get("x-content-type-options"), "nosniff");
      assertEquals(asImage.headers.get("vary"), "Sec-Fetch-Dest");
      await asImage.body?.cancel();
      for (const dest of ["document", "iframe", "embed", "object"]) {
        const r = await fetch(`${U}/alice/site/raw/main/icon.svg`, {
          headers: { "Sec-Fetch-Dest": dest },
        });
        assertEquals(r.headers.get("content-type"), "text/plain; charset=utf-8", dest);
        await r.body?.cancel();
      }
      const dl = await fetch(`${U}/alice/site/raw/main/page.html?download=1`);
      assertEquals(dl.headers.get("content-type"), "application/octet-stream");
      assertStringIncludes(
        dl.headers.get("content-disposition") ?? "",
        'attachment; filename="page.html"',
      );
      await dl.body?.cancel();
    },
  );

  await t.step("each entry's last commit, as JSON for the tree page's script", async () => {
    const tree = await page(`${U}/alice/site/tree/main`);
    assertStringIncludes(tree, 'data-commits="/alice/site/tree-commits/main"');
    assertStringIncludes(tree, '<li data-name="src">');
    const json = async (path: string) => {
      const r = await get(`${U}${path}`, { Accept: "application/json" });
      assertEquals(r.status, 200, r.text);
      assertEquals(r.headers.get("content-type"), "application/json; charset=utf-8");
      return JSON.parse(r.text) as {
        commits: Record<string, { id: string; href: string; subject: string; date: string }>;
        complete: boolean;
      };
    };
    const root = await json("/alice/site/tree-commits/main");
    assertEquals(root.complete, true);
    assertEquals(
      Object.keys(root.commits).sort(),
      ["README.md", "docs", "icon.svg", "img", "page.html", "src"],
    );
    assertEquals(root.commits.src.id, site.second);
    assertEquals(root.commits.src.subject, "Greet more warmly");
    assertEquals(root.commits.src.href, `/alice/site/commit/${site.second}`);
    assertEquals(root.commits["README.md"].id, site.first);
    assert(/^\d{4}-\d\d-\d\dT/.test(root.commits.src.date), root.commits.src.date);
    const feature = await json("/alice/site/tree-commits/feature/x/src");
    assertEquals(feature.commits["feature.ts"].id, site.feature);
    assertEquals(feature.commits["main.ts"].id, site.second);
    // A file, or a path that is not there: 404 JSON.
    for (const path of ["main/README.md", "main/nope", "nope"]) {
      const r = await get(`${U}/alice/site/tree-commits/${path}`, { Accept: "application/json" });
      assertEquals(r.status, 404, path);
      assertEquals(typeof JSON.parse(r.text).error, "string", path);
    }
  });

  await t.step("history: paged, of a path too", async () => {
    const first = await page(`${U}/alice/site/commits/main`);
    assertStringIncludes(first, "Greet more warmly");
    assertStringIncludes(first, 'href="/alice/site/commits/main?page=2"');
    assertEquals(first.match(/class="subject"/g)?.length, 50);
    const second = await page(`${U}/alice/site/commits/main?page=2`);
    assertStringIncludes(second, "First commit");
    assertStringIncludes(second, 'href="/alice/site/commits/main">Newer');
    const path = await page(`${U}/alice/site/commits/main/src/main.ts`);
    assertEquals(path.match(/class="subject"/g)?.length, 2);
    await assert404(`${U}/alice/site/commits/main?page=3`);
    await assert404(`${U}/alice/site/commits/main?page=-1`);
  });

  await t.step("an Atom feed of a ref's commits, linked from its history", async () => {
    const history = await page(`${U}/alice/site/commits/main`);
    assertStringIncludes(history, 'href="/alice/site/commits/main.atom"');
    // Discoverable by feed readers from the page itself.
    assertStringIncludes(
      history,
      '<link rel="alternate" type="application/atom+xml" href="/alice/site/commits/main.atom"',
    );
    const res = await fetch(`${U}/alice/site/commits/main.atom`);
    assertEquals(res.status, 200);
    assertEquals(res.headers.get("content-type"), "application/atom+xml; charset=utf-8");
    const feed = await res.text();
    // Well-formed XML, read by Python's parser: 50 entries, the newest first, absolute links.
    const parsed = await runOk("python3", [
      "-c",
      "import sys, xml.etree.ElementTree as E\n" +
      "ns = {'a': 'http://www.w3.org/2005/Atom'}\n" +
      "f = E.fromstring(sys.stdin.buffer.read())\n" +
      "es = f.findall('a:entry', ns)\n" +
      "print(len(es), es[0].find('a:title', ns).text, es[0].find('a:link', ns).get('href'))",
    ], { stdin: feed });
    assertEquals(
      parsed.trim(),
      `50 Greet more warmly ${U}/alice/site/commit/${site.second}`,
    );
    const branch = await fetch(`${U}/alice/site/commits/feature/x.atom`);
    assertEquals(branch.status, 200);
    assertStringIncludes(await branch.text(), "commits on feature/x");
    await assert404(`${U}/alice/site/commits/nope.atom`);
  });

  await t.step("commit: message, author, parents, per-file diff, and its patch", async () => {
    const html = await page(`${U}/alice/site/commit/${site.second}`);
    assertStringIncludes(html, "Greet more warmly");
    assertStringIncludes(html, "Test");
    assertStringIncludes(html, `>${site.second}</dd>`);
    const parent = (await runOk("git", ["rev-parse", `${site.second}^`], { cwd: site.work.dir }))
      .trim();
    assertStringIncludes(html, `href="/alice/site/commit/${parent}"`);
    // The parent changes no file (an empty commit): its page, with nothing in the list.
    const empty = await page(`${U}/alice/site/commit/${parent}`);
    assertStringIncludes(empty, "filler 54");
    assertStringIncludes(empty, "0 files changed");
    assert(hasDiffLine(html, "da", "+  return `hello there ${name}`;"), html);
    assert(hasDiffLine(html, "dd", "-  return `hello ${name}`;"), html);
    assertStringIncludes(html, `href="/alice/site/archive/${site.second}.zip"`);
    const root = await page(`${U}/alice/site/commit/${site.first}`);
    assertStringIncludes(root, "none (first commit)");
    assertStringIncludes(root, "With a body line.");
    const patch = await fetch(`${U}/alice/site/commit/${site.second}.patch`);
    assertEquals(patch.headers.get("content-type"), "text/plain; charset=utf-8");
    const text = await patch.text();
    assert(text.startsWith(`From ${site.second} `), text.slice(0, 80));
    assertStringIncludes(text, "Subject: [PATCH] Greet more warmly");
  });

  await t.step("branches and tags with their last commit dates; the owner's list", async () => {
    const branches = await page(`${U}/alice/site/branches`);
    assertStringIncludes(branches, 'href="/alice/site/tree/feature/x"');
    assertStringIncludes(branches, "default</span>");
    assert(/<time dateTime="\d{4}-\d\d-\d\dT/.test(branches.replace("datetime", "dateTime")));
    const tags = await page(`${U}/alice/site/tags`);
    assertStringIncludes(tags, 'href="/alice/site/tree/v1.0"');
    assertStringIncludes(tags, "version 1.0");
    // Labelled cells, for the stacked layout on a phone; an annotated tag's own message.
    assertStringIncludes(tags, '<td data-label="Message">');
    assertStringIncludes(tags, '<td class="nowrap" data-label="Download">');
    assertStringIncludes(branches, '<td data-label="Last commit">');
    const owner = await page(`${U}/alice`);
    assertStringIncludes(owner, 'href="/alice/site"');
    assertStringIncludes(owner, 'href="/alice/empty"');
    assertStringIncludes(owner, "never pushed");
    assertStringIncludes(owner, "2 repositories, most recently pushed first");
    assertStringIncludes(owner, '<a class="name" href="/alice/site"><bdi>site</bdi></a>');
  });

  await t.step("titles name the page, its ref and the repository", async () => {
    const title = async (path: string) =>
      (await get(`${U}${path}`)).text.match(/<title>([^<]*)<\/title>/)?.[1];
    const cases: [string, string][] = [
      ["/alice/site", "alice/site · Signet"],
      ["/alice/site/tree/main", "alice/site at main · Signet"],
      ["/alice/site/tree/v1.0", "alice/site at v1.0 · Signet"],
      ["/alice/site/tree/feature/x/src", "src at feature/x · alice/site · Signet"],
      ["/alice/site/blob/main/src/main.ts", "src/main.ts at main · alice/site · Signet"],
      [
        `/alice/site/blob/${site.first}/src/main.ts`,
        `src/main.ts at ${site.first.slice(0, 10)} · alice/site · Signet`,
      ],
      ["/alice/site/blame/main/src/main.ts", "Blame of src/main.ts at main · alice/site · Signet"],
      ["/alice/site/commits/main", "History of main · alice/site · Signet"],
      ["/alice/site/commits/main?page=2", "History of main, page 2 · alice/site · Signet"],
      [
        "/alice/site/commits/main/src/main.ts",
        "History of src/main.ts at main · alice/site · Signet",
      ],
      [
        `/alice/site/commit/${site.second}`,
        `Greet more warmly · alice/site@${site.second.slice(0, 10)} · Signet`,
      ],
      ["/alice/site/blob/main/nope.txt", "nope.txt is not on main · alice/site · Signet"],
      ["/alice/site/branches", "Branches · alice/site · Signet"],
    ];
    for (const [path, expected] of cases) assertEquals(await title(path), expected, path);
  });

  await t.step("an empty repository shows the exact push lines for both transports", async () => {
    const html = await page(`${U}/alice/empty`);
    assertStringIncludes(
      html,
      `git remote add origin ${U}/alice/empty.git\ngit push -u origin main`,
    );
    assertStringIncludes(
      html,
      `git remote add origin ssh://git@127.0.0.1:${server.sshPort}/alice/empty.git\ngit push -u origin main`,
    );
  });

  await t.step("unknown repositories, refs, paths, commits and pages are 404s", async () => {
    for (
      const path of [
        "/nobody",
        "/alice/nope",
        "/alice/site/tree/nope",
        "/alice/site/tree/main/nope",
        "/alice/site/blob/main/nope.txt",
        "/alice/site/blame/main/nope.txt",
        "/alice/site/blame/nope/README.md",
        "/alice/site/raw/main/nope.txt",
        "/alice/site/commits/nope",
        `/alice/site/commit/${"0".repeat(40)}`,
        `/alice/site/commit/${"0".repeat(40)}.patch`,
        "/alice/site/nope",
        "/alice/site/tree/--output=x",
        "/alice/site/blob/main/%2e%2e/%2e%2e/etc/passwd",
        "/alice/site/blob/main/a%0Ab",
        "/alice/site/tree/%ZZ",
        "/Bad..Name/x",
      ]
    ) {
      await assert404(`${U}${path}`);
    }
  });

  await t.step("smart HTTP is as it was: clone, and info/refs without a service", async () => {
    const dest = `${home}/clone`;
    await runOk("git", ["clone", "-q", `${U}/alice/site.git`, dest]);
    assertEquals((await runOk("git", ["rev-parse", "HEAD"], { cwd: dest })).trim(), site.second);
    const r = await get(`${U}/alice/site.git/info/refs`, {});
    assertEquals(r.status, 403);
  });

  await t.step("a push shows at once (pages are cached by the refs' state)", async () => {
    await page(`${U}/alice/site`);
    const third = await commitFiles(site.work, { "NEW.txt": "new\n" }, "Third, after caching");
    await runOk("git", ["push", "-q", httpRemote, "main"], {
      cwd: site.work.dir,
      env: site.work.env,
    });
    const html = await page(`${U}/alice/site`);
    assertStringIncludes(html, "Third, after caching");
    assertStringIncludes(html, 'href="/alice/site/blob/main/NEW.txt"');
    assertStringIncludes(await page(`${U}/alice/site/commits/main`), third.slice(0, 10));
  });

  await t.step(
    "a missing path names its ref and leads to the nearest folder and to the default branch",
    async () => {
      // NEW.txt is on main only (the step before pushed it); src/ is on every ref.
      await assert404(`${U}/alice/site/blob/feature/x/NEW.txt`);
      let r = await get(`${U}/alice/site/blob/feature/x/NEW.txt`);
      assertStringIncludes(r.text, "Branch <code><bdi>feature/x</bdi></code> has no");
      assertStringIncludes(r.text, 'href="/alice/site/blob/main/NEW.txt"');
      assertStringIncludes(r.text, 'href="/alice/site/tree/feature/x"');
      r = await get(`${U}/alice/site/blame/v1.0/NEW.txt`);
      assertEquals(r.status, 404);
      assertStringIncludes(r.text, "Tag <code><bdi>v1.0</bdi></code> has no");
      assertStringIncludes(r.text, 'href="/alice/site/blame/main/NEW.txt"');
      r = await get(`${U}/alice/site/tree/main/src/nope/deeper`);
      assertEquals(r.status, 404);
      assertStringIncludes(r.text, 'href="/alice/site/tree/main/src"');
      assert(!r.text.includes("See it on"), "main is the default branch: nothing to see elsewhere");
      r = await get(`${U}/alice/site/blob/${site.first}/src/feature.ts`);
      assertEquals(r.status, 404);
      assertStringIncludes(
        r.text,
        `Commit <code><bdi>${site.first.slice(0, 10)}</bdi></code> has no`,
      );
      assertStringIncludes(r.text, `href="/alice/site/tree/${site.first}/src"`);
      // No ref at all: the page says so and leads to the branches and tags.
      r = await get(`${U}/alice/site/tree/nope/README.md`);
      assertEquals(r.status, 404);
      assertStringIncludes(
        r.text,
        "No branch, tag or commit of <bdi>alice/site</bdi> starts the path",
      );
      assertStringIncludes(r.text, 'href="/alice/site/branches"');
      assertStringIncludes(r.text, 'href="/alice/site/tags"');
    },
  );

  await t.step("a merge commit's page shows both parents and the diff to the first", async () => {
    await runOk("git", ["merge", "-q", "--no-ff", "-m", "Merge feature/x", "feature/x"], {
      cwd: site.work.dir,
      env: site.work.env,
    });
    await runOk("git", ["push", "-q", httpRemote, "main"], {
      cwd: site.work.dir,
      env: site.work.env,
    });
    const merge = (await runOk("git", ["rev-parse", "HEAD"], { cwd: site.work.dir })).trim();
    const html = await page(`${U}/alice/site/commit/${merge}`);
    assertStringIncludes(html, "<dt>Parents</dt>");
    assertStringIncludes(html, `href="/alice/site/commit/${site.feature}"`);
    assertStringIncludes(html, "(against the first parent)");
    assertStringIncludes(html, "1 file changed");
    assert(hasDiffLine(html, "da", "+export const x = 1;"), html);
  });

  await t.step("HEAD answers like GET without a body, stating the page's length", async () => {
    const r = await fetch(`${U}/alice/site/tree/main`, { method: "HEAD", headers: HTML });
    assertEquals(r.status, 200);
    assertEquals(await r.text(), "");
    const page = await (await fetch(`${U}/alice/site/tree/main`, { headers: HTML })).text();
    assertEquals(r.headers.get("content-length"), String(new TextEncoder().encode(page).length));
  });
  await Deno.remove(home, { recursive: true });
});
