/** `signet bot …` against a real server: a person managing a bot from the shell. */
import { deepStrictEqual as assertEquals, match as assertMatch } from "node:assert/strict";
import { run } from "../../../testing/run.ts";
import { serverTest } from "../../helpers/server.ts";
import { freePort } from "../../../testing/ports.ts";

const MAIN = new URL("../../../main.ts", import.meta.url).pathname;

serverTest(
  "signet bot: keygen, create, get, update, add-key, rotate, remove-key, attest, search, revoke",
  {},
  async (server) => {
    const dir = await Deno.makeTempDir({ prefix: "signet-bot-cli-" });
    const bot = async (...args: string[]) => {
      const r = await run(Deno.execPath(), [
        "run",
        "-A",
        MAIN,
        "bot",
        ...args,
        "--registry",
        server.registryUrl,
      ], { cwd: dir });
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(r.stdout);
      } catch { /* not JSON */ }
      return { ...r, json };
    };
    try {
      for (const k of ["k1", "k2", "k3"]) assertEquals((await bot("keygen", k)).code, 0);
      assertEquals((await Deno.stat(`${dir}/k1.key.json`)).mode! & 0o777, 0o600);
      const again = await bot("keygen", "k1");
      assertEquals(again.code, 2);
      assertMatch(again.stderr, /already exists/);

      const created = await bot(
        "create",
        "cli-bot",
        "--key",
        "k1.key.json",
        "--key",
        "k2.key.json",
        "--name",
        "CLI Bot",
        "--capability",
        "shell",
        "--endpoint",
        "webhook=https://cli.example/hook",
      );
      assertEquals(created.code, 0, created.stderr);
      assertEquals((created.json.keys as unknown[]).length, 2);

      const updated = await bot(
        "update",
        "cli-bot",
        "--sign",
        "k2.key.json",
        "--description",
        "from the shell",
      );
      assertEquals(updated.code, 0, updated.stderr);
      assertEquals([updated.json.description, updated.json.version], ["from the shell", 2]);

      assertEquals(
        (await bot("add-key", "cli-bot", "--key", "k3.key.json", "--sign", "k1.key.json")).code,
        0,
      );
      assertEquals((await bot("keygen", "k4")).code, 0);
      const rotated = await bot(
        "rotate",
        "cli-bot",
        "k3",
        "--key",
        "k4.key.json",
        "--sign",
        "k1.key.json",
        "--sign",
        "k2.key.json",
      );
      assertEquals(rotated.code, 0, rotated.stderr);
      const removed = await bot(
        "remove-key",
        "cli-bot",
        "k2",
        "--sign",
        "k1.key.json",
        "--reason",
        "retired",
      );
      assertEquals(removed.code, 0, removed.stderr);
      const missing = await bot("remove-key", "cli-bot", "nope", "--sign", "k1.key.json");
      assertEquals(missing.code, 1);
      assertMatch(missing.stderr, /404: key nope not found/);

      const attested = await bot(
        "attest",
        "cli-bot",
        "cli-bot",
        "self-check",
        "--sign",
        "k1.key.json",
        "--evidence",
        "note=ok",
      );
      assertEquals(attested.code, 0, attested.stderr);
      assertEquals(attested.json.claim, "self-check");

      const found = await bot("search", "CLI", "--capability", "shell");
      assertEquals((found.json.results as { bot_id: string }[]).map((b) => b.bot_id), ["cli-bot"]);

      const got = await bot("get", "cli-bot");
      const keys = got.json.keys as { key_id: string; status: string }[];
      assertEquals(keys.map((k) => `${k.key_id}:${k.status}`), [
        "k1:active",
        "k2:revoked",
        "k3:revoked",
        "k4:active",
      ]);

      const revoked = await bot("revoke", "cli-bot", "--sign", "k4.key.json", "--reason", "done");
      assertEquals([revoked.code, revoked.json.status], [0, "revoked"]);
      assertEquals((await bot("frobnicate")).code, 2);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test("signet bot: a bad registry address is a usage error; an unreachable one is named", async () => {
  const bot = (registry: string) =>
    run(Deno.execPath(), ["run", "-A", MAIN, "bot", "get", "some-bot", "--registry", registry]);
  const ftp = await bot("ftp://registry.example");
  assertEquals(ftp.code, 2, ftp.stderr);
  assertMatch(ftp.stderr, /registry must be an http:\/\/ or https:\/\/ URL, got "ftp:\/\/registry/);
  const closed = `http://127.0.0.1:${freePort()}`;
  const down = await bot(closed);
  assertEquals(down.code, 1, down.stderr);
  assertMatch(down.stderr, new RegExp(`cannot reach the registry at ${closed}: `));
  for (const r of [ftp, down]) assertEquals(r.stderr.includes("    at "), false, r.stderr);
});
