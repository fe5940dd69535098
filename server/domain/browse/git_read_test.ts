import { assertEquals, assertRejects } from "../../../tests/helpers/assert.ts";
import type { Signet } from "../../context.ts";
import { checkObjects, gitRead, ReadTimeout } from "./git_read.ts";

/** Just what a read needs of the server: where git is, and a home. */
async function readContext(): Promise<{ ctx: Signet; dir: string }> {
  const dir = await Deno.makeTempDir({ prefix: "signet-gitread-" });
  const init = await new Deno.Command("git", { args: ["init", "-q", "--bare", dir] }).output();
  assertEquals(init.success, true);
  const ctx = {
    config: { gitPath: Deno.env.get("PATH") ?? "", dataDir: dir },
  } as unknown as Signet;
  return { ctx, dir };
}

// A git command that writes a line at once, then outlives the read's timeout (1 s) by far.
const SLOW = ["-c", "alias.slow=!echo partial; sleep 3", "slow"];

Deno.test("a read past its timeout fails, or gives what it read when asked to", async () => {
  const { ctx, dir } = await readContext();
  try {
    await assertRejects(
      () => gitRead(ctx, dir, SLOW, { maxBytes: 1024, timeoutMs: 1000 }),
      ReadTimeout,
    );
    const out = await gitRead(ctx, dir, SLOW, {
      maxBytes: 1024,
      timeoutMs: 1000,
      partialOnTimeout: true,
    });
    assertEquals(out.timedOut, true);
    assertEquals(new TextDecoder().decode(out.stdout), "partial\n");
    const quick = await gitRead(ctx, dir, ["rev-parse", "--is-bare-repository"], {
      maxBytes: 1024,
      partialOnTimeout: true,
    });
    assertEquals(quick.timedOut, false);
    assertEquals(new TextDecoder().decode(quick.stdout), "true\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("objects checked in one run: found, missing, unaskable, in the order asked", async () => {
  const { ctx, dir } = await readContext();
  try {
    const hash = await new Deno.Command("git", {
      args: ["--git-dir", dir, "hash-object", "-w", "--stdin"],
      stdin: "piped",
      stdout: "piped",
    }).spawn();
    const w = hash.stdin.getWriter();
    await w.write(new TextEncoder().encode("hello\n"));
    await w.close();
    const blob = new TextDecoder().decode((await hash.output()).stdout).trim();
    const infos = await checkObjects(ctx, dir, ["0".repeat(40), "a\nb", blob, "HEAD:x y"], {
      maxBytes: 4096,
    });
    assertEquals(infos, ["missing", "missing", { id: blob, type: "blob", size: 6 }, "missing"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
