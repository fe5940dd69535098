/**
 * Code search (`/<owner>/<repo>/search?q=…[&ref=…]`) against a real server and a pushed repository:
 * case ignored, the query taken as plain text (regex characters and option-like text included)
 * unless a regular expression or matching case is asked for,
 * binary files left out, each line linking to that line of the file with the match marked, a file's
 * lines bounded with a link to the rest, another branch by `ref`; bad queries a 400 (HTML to
 * browsers, JSON to others), unknown refs a 404; markup in files and queries shown as text; the
 * search box in every repository page's header.
 */
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { createRepo, signedIn } from "../../../testing/accounts.ts";
import { serverTest } from "../../helpers/server.ts";
import { commitFiles, git, newWork } from "../../helpers/browse.ts";

const HTML = { Accept: "text/html,application/xhtml+xml,*/*;q=0.8" };

/** GETs `url` as a browser; status and text. */
async function get(url: string, headers: Record<string, string> = HTML) {
  const res = await fetch(url, { headers, redirect: "manual" });
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
}

/** The paths of the files a results page lists, in order. */
function listedFiles(html: string): string[] {
  return [...html.matchAll(/<h2 class="box-head"><a href="[^"]*"><bdi>([^<]*)<\/bdi>/g)].map((m) =>
    m[1]
  );
}

serverTest("code search: a ref's text files, searched for plain text", {}, async (server, t) => {
  const home = await Deno.makeTempDir({ prefix: "signet-search-" });
  const { token } = await signedIn(server, "alice");
  await createRepo(server, token, "site");
  const work = await newWork(home, "site");
  const binary = new Uint8Array([104, 101, 108, 108, 111, 0, 1, 2, 3]); // "hello\0…"
  await commitFiles(work, {
    "README.md": "# Hello\n\nSay hello.\n",
    "src/main.ts": "export function greet() {\n  console.log('HELLO');\n}\n",
    "src/regex.ts": "const r = foo(bar);\nconst s = foobar;\n",
    "src/options.txt": "run with -n --output=x\n",
    "src/hostile.html": "<script>alert('hello')</script>\n",
    "logo.bin": binary,
    "many.txt": Array.from({ length: 15 }, (_, i) => `hello line ${i + 1}`).join("\n") + "\n",
    "docs/guide.md": "# Guide\n\nA zebrafish swims.\n",
    // Over the 1 MiB a file's page shows: no lines there to link to.
    "big.log": "start\nzebrafish\n" + "filler line of the log\n".repeat(50_000),
  }, "First");
  await git(work, "checkout", "-q", "-b", "feature/x");
  await commitFiles(work, { "src/feature.ts": "export const onlyOnFeature = 1;\n" }, "Feature");
  await git(work, "checkout", "-q", "main");
  const remote = `http://alice:${token}@127.0.0.1:${server.httpPort}/alice/site.git`;
  await git(work, "push", "-q", remote, "main", "feature/x");
  const S = `${server.httpUrl}/alice/site/search`;

  await t.step("case ignored; text files only; lines linked and marked", async () => {
    const r = await get(`${S}?q=hello`);
    assertEquals(r.status, 200, r.text.slice(0, 500));
    assertEquals(r.type, "text/html; charset=utf-8");
    assertEquals(
      listedFiles(r.text).sort(),
      ["README.md", "many.txt", "src/hostile.html", "src/main.ts"],
    );
    assertStringIncludes(r.text, 'href="/alice/site/blob/main/src/main.ts#L2"');
    assertStringIncludes(r.text, "<mark>HELLO</mark>");
    assertStringIncludes(r.text, "<mark>Hello</mark>");
    // The file's markup is text on the page.
    assertStringIncludes(r.text, "&lt;script>alert('<mark>hello</mark>')&lt;/script>");
    assert(!r.text.includes("<script>alert"), "file content served as markup");
  });

  await t.step("a line links where the file's page has that line", async () => {
    const r = await get(`${S}?q=zebrafish`);
    assertEquals(listedFiles(r.text), ["big.log", "docs/guide.md"]);
    // Markdown is shown rendered: its source view has the line anchors.
    assertStringIncludes(r.text, 'href="/alice/site/blob/main/docs/guide.md?plain=1#L3"');
    // Too large to show: the file's page (which says so and offers it), with no anchor.
    assertStringIncludes(r.text, 'class="line-no" href="/alice/site/blob/main/big.log" ');
    assert(!r.text.includes("big.log#L"), "a line anchor the too-large file's page lacks");
  });

  await t.step("a file's lines are bounded, with a link to the rest", async () => {
    const r = await get(`${S}?q=hello+line`);
    assertEquals(listedFiles(r.text), ["many.txt"]);
    assertEquals(r.text.match(/class="line-no"/g)?.length, 10);
    assertStringIncludes(r.text, "More matches in this file");
    assertStringIncludes(r.text, "10+ matching lines in 1 file");
  });

  await t.step("the query is plain text: regex characters and options", async () => {
    const regex = await get(`${S}?q=${encodeURIComponent("foo(bar)")}`);
    assertEquals(listedFiles(regex.text), ["src/regex.ts"]);
    assertStringIncludes(regex.text, "<mark>foo(bar)</mark>");
    // Line 2 (`foobar`) would match foo(bar) read as a pattern.
    assertEquals(regex.text.match(/class="line-no"/g)?.length, 1);
    assert(!regex.text.includes("src/regex.ts#L2"), "foobar matched foo(bar) as a pattern");
    const option = await get(`${S}?q=${encodeURIComponent("-n --output=x")}`);
    assertEquals(listedFiles(option.text), ["src/options.txt"]);
    const none = await get(`${S}?q=${encodeURIComponent("nothing holds this")}`);
    assertEquals(none.status, 200);
    assertStringIncludes(none.text, "No text file here holds that.");
  });

  await t.step("a regular expression, and matching case, when asked", async () => {
    // `foo(bar)` as a pattern: `foobar` (line 2), not the text `foo(bar)` (line 1).
    const group = await get(`${S}?q=${encodeURIComponent("foo(bar)")}&regex=1`);
    assertEquals(group.status, 200);
    assertEquals(listedFiles(group.text), ["src/regex.ts"]);
    assertEquals(group.text.match(/class="line-no"/g)?.length, 1);
    assertStringIncludes(group.text, 'href="/alice/site/blob/main/src/regex.ts#L2"');
    assertStringIncludes(group.text, "<mark>foobar</mark>");
    assertStringIncludes(group.text, 'name="regex" value="1" checked');
    // Alternatives: both lines.
    const either = await get(`${S}?q=${encodeURIComponent("foo(bar|\\(bar)")}&regex=1`);
    assertEquals(either.text.match(/class="line-no"/g)?.length, 2);
    assertStringIncludes(either.text, "<mark>foo(bar</mark>");
    // POSIX classes, as git reads them, marked too.
    const digits = await get(`${S}?q=${encodeURIComponent("line 1[[:digit:]]$")}&regex=1`);
    assertEquals(listedFiles(digits.text), ["many.txt"]);
    assertStringIncludes(digits.text, "hello <mark>line 15</mark>");
    // Case: HELLO only in src/main.ts.
    const exact = await get(`${S}?q=HELLO&case=1`);
    assertEquals(listedFiles(exact.text), ["src/main.ts"]);
    assertStringIncludes(exact.text, 'name="case" value="1" checked');
    // The ref selector keeps both options.
    const kept = await get(`${S}?q=x&regex=1&case=1&ref=feature%2Fx`);
    assertStringIncludes(kept.text, 'href="/alice/site/search?q=x&amp;regex=1&amp;case=1"');
    // Patterns refused before git runs, or by git: 400 saying why, HTML or JSON; nothing listed.
    const refused: [string, string][] = [
      ["foo(", "not a regular expression this search reads (missing closing )"],
      ["(a)\\1", "not a regular expression this search reads (invalid escape"],
      ["a{2000}", "not a regular expression this search reads (invalid repeat count"],
      ["\\d+", "\\d is not part of POSIX regular expressions"],
      // RE2 reads it; git's POSIX expressions do not.
      ["(?i)x", "not a regular expression git can read ("],
    ];
    for (const [pattern, why] of refused) {
      const bad = await get(`${S}?q=${encodeURIComponent(pattern)}&regex=1`);
      assertEquals(bad.status, 400, pattern);
      assertStringIncludes(bad.text, why);
      assertEquals(listedFiles(bad.text), [], pattern);
    }
    const json = await get(`${S}?q=${encodeURIComponent("foo(")}&regex=1`, {
      Accept: "application/json",
    });
    assertEquals(json.status, 400);
    assertStringIncludes(JSON.parse(json.text).error, "not a regular expression");
  });

  await t.step("another branch by ref; an unknown ref is a 404", async () => {
    const main = await get(`${S}?q=onlyOnFeature`);
    assertEquals(listedFiles(main.text), []);
    const feature = await get(`${S}?q=onlyOnFeature&ref=feature%2Fx`);
    assertEquals(listedFiles(feature.text), ["src/feature.ts"]);
    assertStringIncludes(feature.text, 'href="/alice/site/blob/feature/x/src/feature.ts#L1"');
    // The ref selector keeps the query.
    assertStringIncludes(feature.text, 'href="/alice/site/search?q=onlyOnFeature"');
    assertStringIncludes(feature.text, 'name="ref" value="feature/x"');
    assertEquals((await get(`${S}?q=x&ref=nope`)).status, 404);
    const json = await get(`${S}?q=x&ref=nope`, { Accept: "application/json" });
    assertEquals(json.status, 404);
    assertEquals(typeof JSON.parse(json.text).error, "string");
  });

  await t.step("no query: the form; a bad one: 400, HTML or JSON", async () => {
    const form = await get(S);
    assertEquals(form.status, 200);
    assertStringIncludes(form.text, 'role="search"');
    assertEquals(listedFiles(form.text), []);
    for (const q of ["x".repeat(257), "a%0Ab", "%20%20"]) {
      const r = await get(`${S}?q=${q}`);
      assertEquals(r.status, 400, q);
      assertStringIncludes(r.text, 'aria-invalid="true"', q);
      const j = await get(`${S}?q=${q}`, { Accept: "application/json" });
      assertEquals(j.status, 400, q);
      assertEquals(typeof JSON.parse(j.text).error, "string", q);
    }
    // A query with markup is shown as text.
    const markup = await get(`${S}?q=${encodeURIComponent("<img src=x onerror=alert(1)>")}`);
    assertEquals(markup.status, 200);
    assert(!markup.text.includes("<img src=x"), "the query was served as markup");
  });

  await t.step("every repository page's header has the search box", async () => {
    const home = await get(`${server.httpUrl}/alice/site`);
    assertStringIncludes(home.text, 'action="/alice/site/search"');
    const tree = await get(`${server.httpUrl}/alice/site/tree/feature/x/src`);
    assertStringIncludes(tree.text, 'name="ref" value="feature/x"');
  });
  await Deno.remove(home, { recursive: true });
});
