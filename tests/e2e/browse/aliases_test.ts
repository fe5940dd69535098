/**
 * Addresses GitHub answers that name a page another way redirect to the page's own address: a
 * commit by branch or tag name, HEAD for the default branch, a file page with no file, a page with
 * no ref. Everything else is served or missing as before.
 */
import { assertEquals } from "../../helpers/assert.ts";
import { createRepo, signedIn } from "../../../testing/accounts.ts";
import { serverTest } from "../../helpers/server.ts";
import { commitFiles, git, newWork } from "../../helpers/browse.ts";

const HTML = { Accept: "text/html" };

serverTest("GitHub's other names for a page redirect to its address", {}, async (server, t) => {
  const home = await Deno.makeTempDir({ prefix: "signet-aliases-" });
  try {
    const { token } = await signedIn(server, "alice");
    await createRepo(server, token, "site");
    const work = await newWork(home, "site");
    const first = await commitFiles(work, { "src/main.ts": "1\n" }, "first");
    await git(work, "tag", "-a", "-m", "one", "v1");
    const second = await commitFiles(work, { "src/main.ts": "2\n" }, "second");
    await git(work, "branch", "feature/x");
    const remote = `http://alice:${token}@${new URL(server.httpUrl).host}/alice/site.git`;
    await git(work, "push", "-q", remote, "main", "feature/x", "--tags");
    const base = "/alice/site";
    const get = async (path: string) => {
      const res = await fetch(`${server.httpUrl}${base}${path}`, {
        headers: HTML,
        redirect: "manual",
      });
      await res.body?.cancel();
      return { status: res.status, location: res.headers.get("location") };
    };

    await t.step("each alias is a 302 to the page's own address", async () => {
      const redirects: [string, string][] = [
        ["/commit/main", `/commit/${second}`],
        ["/commit/v1", `/commit/${first}`],
        ["/commit/feature/x", `/commit/${second}`],
        ["/commit/HEAD", `/commit/${second}`],
        ["/tree/HEAD", "/tree/main"],
        ["/tree/HEAD/src", "/tree/main/src"],
        ["/blob/HEAD/src/main.ts", "/blob/main/src/main.ts"],
        ["/raw/HEAD/src/main.ts", "/raw/main/src/main.ts"],
        ["/blob/main", "/tree/main"],
        ["/blob/feature/x", "/tree/feature/x"],
        ["/tree", "/tree/main"],
        ["/commits", "/commits/main"],
        ["/tree/HEAD/src?plain=1", "/tree/main/src?plain=1"],
      ];
      for (const [from, to] of redirects) {
        assertEquals(await get(from), { status: 302, location: `${base}${to}` }, from);
      }
    });

    await t.step("pages at their own address, and what names nothing, are as before", async () => {
      assertEquals((await get(`/commit/${second}`)).status, 200);
      assertEquals((await get("/tree/main/src")).status, 200);
      assertEquals((await get("/blob/main/src/main.ts")).status, 200);
      assertEquals((await get("/commit/no-such-branch")).status, 404);
      assertEquals((await get("/blob/no-such-branch")).status, 404);
      // Dot segments are never written into a redirect.
      const dots = await get("/tree/HEAD/..%2F..%2F..%2F..%2Fadmin");
      assertEquals([dots.status === 302, dots.location], [false, null]);
    });

    await t.step("with a branch under HEAD/, HEAD names nothing else", async () => {
      await createRepo(server, token, "heady");
      const auth = `http://alice:${token}@${new URL(server.httpUrl).host}/alice/heady.git`;
      await commitFiles(work, { "x/f.txt": "on main\n", "f.txt": "top\n" }, "files");
      await git(work, "push", "-q", auth, "main", "main:refs/heads/HEAD/x");
      const heady = async (path: string) => {
        const res = await fetch(`${server.httpUrl}/alice/heady${path}`, {
          headers: HTML,
          redirect: "manual",
        });
        const text = await res.text();
        return { status: res.status, location: res.headers.get("location"), text };
      };
      // HEAD/x is the branch: its f.txt, not main's x/f.txt.
      const file = await heady("/blob/HEAD/x/f.txt");
      assertEquals([file.status, file.location], [200, null]);
      assertEquals((await heady("/commit/HEAD/no/such/thing")).status, 404);
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
