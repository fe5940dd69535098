/**
 * The compare page (`/<owner>/<repo>/compare/<base>...<head>`, and `..`) against a real server: the
 * commits head has that base has not, and the diff since their merge base (what merging brings, not
 * what base did meanwhile); two dots diff the refs directly; refs with slashes and full ids; a head
 * already in base, unrelated histories; malformed specs and unknown refs are 404s; the branches page
 * links each branch to its comparison with the default branch.
 */
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { createRepo, signedIn } from "../../../testing/accounts.ts";
import { serverTest } from "../../helpers/server.ts";
import { commitFiles, git, newWork } from "../../helpers/browse.ts";

const HTML = { Accept: "text/html,application/xhtml+xml,*/*;q=0.8" };

/** GETs `url` as a browser; status and text. */
async function get(url: string, headers: Record<string, string> = HTML) {
  const res = await fetch(url, { headers, redirect: "manual" });
  return { status: res.status, text: await res.text() };
}

/** The subjects a page's commit list shows, in order. */
function subjects(html: string): string[] {
  return [...html.matchAll(/<a class="subject" href="[^"]*"><bdi>([^<]*)<\/bdi>/g)].map((m) =>
    m[1]
  );
}

/** The paths the page's list of changed files shows, in order. */
function changed(html: string): string[] {
  return [...html.matchAll(/<a class="name file-name" href="#diff-\d+"><bdi>([^<]*)<\/bdi>/g)].map((
    m,
  ) => m[1]);
}

serverTest("compare: what a branch brings, since its merge base", {}, async (server, t) => {
  const home = await Deno.makeTempDir({ prefix: "signet-compare-" });
  const { token } = await signedIn(server, "alice");
  await createRepo(server, token, "site");
  const work = await newWork(home, "site");
  const first = await commitFiles(work, { "a.txt": "a\n", "gone.txt": "bye\n" }, "First");
  await git(work, "checkout", "-q", "-b", "feature/x");
  await commitFiles(work, { "feature.txt": "new feature\n" }, "Add feature");
  await git(work, "rm", "-q", "gone.txt");
  const tip = await commitFiles(work, { "a.txt": "a, changed\n" }, "Change a, remove gone");
  await git(work, "checkout", "-q", "main");
  // main moves on meanwhile: not part of what feature/x brings.
  await commitFiles(work, { "main-only.txt": "main\n" }, "Main moves on");
  // A branch with no history in common.
  await git(work, "checkout", "-q", "--orphan", "other");
  await git(work, "rm", "-rqf", ".");
  await commitFiles(work, { "o.txt": "o\n" }, "Other root");
  await git(work, "checkout", "-q", "main");
  const remote = `http://alice:${token}@127.0.0.1:${server.httpPort}/alice/site.git`;
  await git(work, "push", "-q", remote, "main", "feature/x", "other");
  const C = `${server.httpUrl}/alice/site/compare`;

  await t.step("three dots: head's commits, and the diff since the merge base", async () => {
    const r = await get(`${C}/main...feature/x`);
    assertEquals(r.status, 200, r.text.slice(0, 400));
    assertEquals(subjects(r.text), ["Change a, remove gone", "Add feature"]);
    assertEquals(changed(r.text), ["a.txt", "feature.txt", "gone.txt"]);
    assertStringIncludes(r.text, "2 commits in <bdi>feature/x</bdi> that <bdi>main</bdi> has not");
    assert(!r.text.includes("main-only.txt"), "main's own change shown as brought by feature/x");
    // Files link to head's version; the deleted one to the merge base's.
    assertStringIncludes(r.text, `href="/alice/site/blob/${tip}/feature.txt"`);
    assertStringIncludes(r.text, `href="/alice/site/blob/${first}/gone.txt"`);
    assertStringIncludes(r.text, 'href="/alice/site/compare/feature/x...main"'); // swap
  });

  await t.step("two dots: the refs' trees against each other", async () => {
    const r = await get(`${C}/main..feature/x`);
    assertEquals(r.status, 200);
    assertEquals(changed(r.text), ["a.txt", "feature.txt", "gone.txt", "main-only.txt"]);
  });

  await t.step("full ids; a head already in base; unrelated histories", async () => {
    const ids = await get(`${C}/${first}...${tip}`);
    assertEquals(subjects(ids.text), ["Change a, remove gone", "Add feature"]);
    const behind = await get(`${C}/feature/x...${first}`);
    assertEquals(behind.status, 200);
    assertStringIncludes(
      behind.text,
      `<bdi>${first}</bdi> has no commit that <bdi>feature/x</bdi> has not.`,
    );
    assertEquals(changed(behind.text), []);
    const unrelated = await get(`${C}/main...other`);
    assertEquals(unrelated.status, 200);
    assertStringIncludes(unrelated.text, "no history in common");
    assertEquals(changed(unrelated.text), []);
  });

  await t.step("malformed specs and unknown refs are 404s", async () => {
    for (
      const spec of [
        "main",
        "...main",
        "main...",
        "main...nope",
        "nope...main",
        "main....feature/x",
        "main/a.txt...feature/x",
        "main...feature/x/a.txt",
      ]
    ) {
      const r = await get(`${C}/${spec}`);
      assertEquals(r.status, 404, spec);
      const j = await get(`${C}/${spec}`, { Accept: "application/json" });
      assertEquals(j.status, 404, spec);
      assertEquals(typeof JSON.parse(j.text).error, "string", spec);
    }
    assertEquals((await get(C)).status, 404);
  });

  await t.step("the branches page links each branch to its comparison", async () => {
    const r = await get(`${server.httpUrl}/alice/site/branches`);
    assertStringIncludes(r.text, 'href="/alice/site/compare/main...feature/x"');
    assert(!r.text.includes('href="/alice/site/compare/main...main"'), "main compared with itself");
  });
  await Deno.remove(home, { recursive: true });
});
