/**
 * The explore page (`/explore`) against a real server: every user's repositories, most recently
 * pushed first, each linking to its page; paging by cursor in the URL; a filter by words of
 * `owner/name`; bad parameters a 400 (HTML to browsers, JSON to others); the logo of the
 * repository pages leads there.
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

/** The `owner/name`s a page lists, in order. */
function listed(html: string): string[] {
  return [...html.matchAll(/<a class="name" href="\/[^"]+"><bdi>([^<]*)<\/bdi>/g)].map((m) => m[1]);
}

serverTest("explore: every repository, newest push first, paged", {}, async (server, t) => {
  const home = await Deno.makeTempDir({ prefix: "signet-explore-" });
  const alice = await signedIn(server, "alice");
  const bob = await signedIn(server, "bob");
  await createRepo(server, alice.token, "older");
  await createRepo(server, bob.token, "newer");
  await createRepo(server, alice.token, "empty");
  const push = async (owner: string, token: string, name: string) => {
    const work = await newWork(home, `${owner}-${name}`);
    await commitFiles(work, { "a.txt": name }, "First");
    await git(
      work,
      "push",
      "-q",
      `http://${owner}:${token}@127.0.0.1:${server.httpPort}/${owner}/${name}.git`,
      "main",
    );
  };
  const E = `${server.httpUrl}/explore`;
  // A push's time is stored just after git answers the client: wait for each to show.
  const pushedShown = async (full: string) => {
    const shown = `${full}</bdi></a><span class="muted">pushed`;
    for (let i = 0; i < 150; i++) {
      if ((await get(E)).text.includes(shown)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${full}'s push never showed on /explore`);
  };
  await push("alice", alice.token, "older");
  await pushedShown("alice/older");
  await push("bob", bob.token, "newer");
  await pushedShown("bob/newer");

  await t.step("every repository, the last pushed first, the empty last", async () => {
    const r = await get(E);
    assertEquals(r.status, 200);
    assertEquals(listed(r.text), ["bob/newer", "alice/older", "alice/empty"]);
    assertStringIncludes(r.text, 'href="/bob/newer"');
    assertStringIncludes(r.text, "3 repositories, most recently pushed first");
  });

  await t.step("pages by cursor, forward and back", async () => {
    const first = await get(`${E}?limit=2`);
    assertEquals(listed(first.text), ["bob/newer", "alice/older"]);
    const older = /href="(\/explore\?after=[^"]+)"/.exec(first.text)?.[1].replaceAll("&amp;", "&");
    assert(older, "no link to the next page");
    const second = await get(`${server.httpUrl}${older}`);
    assertEquals(listed(second.text), ["alice/empty"]);
    assert(/href="\/explore\?before=/.test(second.text), "no link back");
  });

  await t.step("a filter by words of owner/name", async () => {
    const r = await get(`${E}?q=alice`);
    assertEquals(listed(r.text), ["alice/older", "alice/empty"]);
    assertStringIncludes(r.text, "matching “<bdi>alice</bdi>”");
    const none = await get(`${E}?q=nothing-like-it`);
    assertStringIncludes(none.text, "No repository matches.");
  });

  await t.step("bad parameters: a 400 page, or JSON", async () => {
    for (const query of ["limit=0", "after=not-a-cursor", `q=${"x".repeat(101)}`]) {
      const r = await get(`${E}?${query}`);
      assertEquals(r.status, 400, query);
      const j = await get(`${E}?${query}`, { Accept: "application/json" });
      assertEquals(j.status, 400, query);
      assertEquals(typeof JSON.parse(j.text).error, "string", query);
    }
  });

  await t.step(
    "an owner's page: the same list within the owner's, paged and filtered",
    async () => {
      const names = (html: string) =>
        [...html.matchAll(/<a class="name" href="\/alice\/([^"]+)">/g)].map((m) => m[1]);
      const all = await get(`${server.httpUrl}/alice`);
      assertEquals(names(all.text), ["older", "empty"]);
      assertStringIncludes(all.text, "2 repositories, most recently pushed first");
      const first = await get(`${server.httpUrl}/alice?limit=1`);
      assertEquals(names(first.text), ["older"]);
      const next = /href="(\/alice\?after=[^"]+)"/.exec(first.text)?.[1].replaceAll("&amp;", "&");
      assert(next, "no link to the owner's next page");
      assertEquals(names((await get(`${server.httpUrl}${next}`)).text), ["empty"]);
      assertEquals(names((await get(`${server.httpUrl}/alice?q=emp`)).text), ["empty"]);
      assertEquals((await get(`${server.httpUrl}/alice?limit=0`)).status, 400);
      assertEquals((await get(`${server.httpUrl}/nobody-here`)).status, 404);
    },
  );

  await t.step("the repository pages' logo leads here", async () => {
    const r = await get(`${server.httpUrl}/bob/newer`);
    assertStringIncludes(r.text, '<a href="/explore" class="brand">');
  });
  await Deno.remove(home, { recursive: true });
});
