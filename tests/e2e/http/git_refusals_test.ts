/**
 * Refused git reads over smart HTTP give back what they hold: a read refused while every git slot
 * is taken is answered at once (it does not wait for a slot first), a HEAD of a protocol v0
 * advertisement, whose body nobody reads, ends its git, so the repository can still be deleted, and
 * a read of a deleted name whose body is slow to come is refused without waiting for it, so the
 * name can be created again at once. A body its client gives up on is a client's error, not a 500.
 */
import { assert, assertEquals } from "../../helpers/assert.ts";
import { alteredToken, createRepo, createUser, login } from "../../../testing/accounts.ts";
import { gitEnv, runOk } from "../../../testing/run.ts";
import { serverTest, tempHome } from "../../helpers/server.ts";
import { pollUntil, resolvesWithin } from "../../helpers/wait.ts";
import { RawHttp } from "../../helpers/raw_http.ts";
import { commitRandomFile, uploadPackWant } from "../../helpers/git.ts";

/** Far longer than any answer takes on a busy machine; the bugs made these wait for ever. */
const ANSWER_LIMIT_MS = 30_000;

/** Gives the bare repository `dir` 3,000 branches: a v0 advertisement larger than a pipe holds. */
async function manyRefs(dir: string, env: Record<string, string>): Promise<void> {
  const head = (await runOk("git", ["--git-dir", dir, "rev-parse", "main"], { env })).trim();
  const lines = Array.from({ length: 3000 }, (_, i) => `create refs/heads/b${i} ${head}\n`);
  const child = new Deno.Command("git", {
    args: ["--git-dir", dir, "update-ref", "--stdin"],
    env,
    stdin: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(lines.join("")));
  await writer.close();
  assert((await child.status).success, "update-ref failed");
}

/**
 * A protocol v0 upload-pack request for `want` over a raw socket whose answer (a pack larger than
 * every buffer on the way) is never read: its git holds a slot.
 */
async function unreadPack(port: number, path: string, want: string): Promise<Deno.TcpConn> {
  const body = uploadPackWant(want);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(
    new TextEncoder().encode(
      `POST ${path}/git-upload-pack HTTP/1.1\r\nHost: x\r\n` +
        `Content-Type: application/x-git-upload-pack-request\r\n` +
        `Content-Length: ${body.length}\r\n\r\n${body}`,
    ),
  );
  return conn;
}

serverTest("refused git reads over HTTP give back their slot and the repository", {
  // One git slot, and no cut-off of slow readers within the test: the unread answer keeps its slot.
  env: { SERVICE_GIT_CONCURRENCY: "1", SERVICE_HTTP_BODY_TIMEOUT: "600" },
}, async (server, t) => {
  const home = await tempHome();
  const env = gitEnv(home);
  const alice = await createUser(server, "alice");
  const token = await login(server, alice);
  await createRepo(server, token, "big");
  const url = `${server.httpUrl}/alice/big.git`;
  const work = `${home}/work`;
  await runOk("git", ["init", "-q", "-b", "main", work], { env });
  const head = await commitRandomFile(work, env, "big.bin", 40 * 1024 * 1024, "one");
  await runOk("git", ["push", "-q", url.replace("http://", `http://alice:${token}@`), "main"], {
    cwd: work,
    env,
  });
  const dir = `${server.dataDir}/repos/alice/big.git`;
  await manyRefs(dir, env);
  const port = Number(new URL(server.httpUrl).port);

  await t.step("a bad token is refused while the only git slot is taken", async () => {
    const holder = await unreadPack(port, "/alice/big.git", head);
    try {
      const flipped = alteredToken(token);
      const answer = fetch(`${url}/info/refs?service=git-upload-pack`, {
        headers: { Authorization: `Bearer ${flipped}` },
      });
      assert(await resolvesWithin(answer, ANSWER_LIMIT_MS), "the refusal waited for a git slot");
      const res = await answer;
      assertEquals(res.status, 401);
      assertEquals(typeof (await res.json()).error, "string");
    } finally {
      holder.close();
    }
  });

  await t.step(
    "a HEAD of a v0 advertisement leaves no git behind holding the repository",
    async () => {
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${url}/info/refs?service=git-upload-pack`, { method: "HEAD" });
        assertEquals(res.status, 200);
        assertEquals(await res.text(), "");
      }
      // A delete waits for every transfer holding the repository: it must come back.
      const deleted = fetch(`${server.httpUrl}/api/repos/alice/big`, {
        method: "DELETE",
        headers: { Authorization: `Bearer ${token}` },
      });
      assert(await resolvesWithin(deleted, ANSWER_LIMIT_MS), "the delete waited on a HEAD's git");
      const res = await deleted;
      assertEquals(res.status, 200, await res.clone().text());
      await res.body?.cancel();
    },
  );
});

/** The head of an upload-pack request announcing `length` bytes of body, and its first 1,000. */
function slowUploadPack(path: string, length: number): string {
  return `POST ${path}/git-upload-pack HTTP/1.1\r\nHost: x\r\n` +
    `Content-Type: application/x-git-upload-pack-request\r\n` +
    `Content-Length: ${length}\r\n\r\n${"0".repeat(1000)}`;
}

serverTest("a read with a slow body gives up the name as soon as it is refused", {
  // No cut-off of slow bodies within the test: the old code held the name until the body came.
  env: { SERVICE_HTTP_BODY_TIMEOUT: "600" },
}, async (server, t) => {
  const alice = await createUser(server, "alice");
  const token = await login(server, alice);
  const auth = { Authorization: `Bearer ${token}` };
  const port = Number(new URL(server.httpUrl).port);

  await t.step("a deleted name: 404 before the body, and the name is created again", async () => {
    await createRepo(server, token, "r");
    const deleted = await fetch(`${server.httpUrl}/api/repos/alice/r`, {
      method: "DELETE",
      headers: auth,
    });
    assertEquals(deleted.status, 200);
    await deleted.body?.cancel();
    const slow = await RawHttp.open(port);
    try {
      await slow.send(slowUploadPack("/alice/r.git", 100_000));
      const answer = slow.response(ANSWER_LIMIT_MS);
      assert(await resolvesWithin(answer, ANSWER_LIMIT_MS), "the refusal waited for the body");
      assertEquals((await answer).status, 404);
      // The body never comes, and the name is free.
      const created = fetch(`${server.httpUrl}/api/repos`, {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json" },
        body: JSON.stringify({ name: "r" }),
      });
      assert(await resolvesWithin(created, ANSWER_LIMIT_MS), "the create waited for the body");
      const res = await created;
      assertEquals(res.status, 201, await res.clone().text());
      await res.body?.cancel();
    } finally {
      slow.close();
    }
  });

  await t.step("a body its client abandons is answered 400, with no error logged", async () => {
    const line = /"path":"\/alice\/r\.git\/git-upload-pack","status":(\d+)/g;
    const answered = () => [...server.logs().matchAll(line)].map((m) => m[1]);
    // The log is written after the answer: the previous step's one request must be in it first.
    const before = (await pollUntil(() => Promise.resolve(answered()), (a) => a.length >= 1))
      .length;
    const gone = await RawHttp.open(port);
    await gone.send(slowUploadPack("/alice/r.git", 100_000));
    gone.close();
    const statuses = await pollUntil(() => Promise.resolve(answered()), (a) => a.length > before);
    assertEquals(statuses.slice(before), ["400"], server.logs().slice(-2000));
    assert(!server.logs().includes("unhandled error"), server.logs().slice(-2000));
  });
});
