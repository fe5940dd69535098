/** One help generator and one usage-error style for every client command and `signet bot`. */
import { match as assertMatch } from "node:assert/strict";
import { assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { runSignet } from "../../helpers/cli.ts";
import { CLIENT_COMMANDS } from "../../../client/cli/index.ts";
import { BOT_USAGE } from "../../../client/bot_cli.ts";
import { parseArgs } from "../../../client/args.ts";
import { UsageError } from "../../../client/errors.ts";

/** `signet <args>` with no server to reach. */
const signet = (args: string[]) =>
  runSignet(args, { SERVICE_HOST: "http://127.0.0.1:9", SSH_AUTH_SOCK: "" });

Deno.test("every command's help is generated in the same layout", () => {
  for (const c of CLIENT_COMMANDS) {
    assertMatch(c.help, new RegExp(`^Usage:( signet ${c.name}|\\n  signet ${c.name} )`));
    assertEquals(c.help.endsWith("\n") && !c.help.endsWith("\n\n"), true, c.name);
  }
  assertMatch(BOT_USAGE, /^Usage: signet bot /);
  assertStringIncludes(BOT_USAGE, "Environment:\n  SERVICE_REGISTRY_URL");
});

Deno.test("the one parser: repeatable flags, last value wins, unknown ones refused", () => {
  const p = parseArgs(
    ["a", "--sign", "x", "--sign=y", "--name", "n1", "--name", "n2"],
    { sign: "strings", name: "string" },
    1,
  );
  assertEquals(p.positionals, ["a"]);
  assertEquals(p.flags.sign, ["x", "y"]);
  assertEquals(p.flags.name, "n2");
  let refused = "";
  try {
    parseArgs(["--nope"], {}, 0);
  } catch (err) {
    if (err instanceof UsageError) refused = err.message;
  }
  assertEquals(refused, "unknown option --nope");
});

Deno.test("signet bot and client commands report usage errors alike, with exit code 2", async () => {
  const bot = await signet(["bot", "get", "x", "--nope"]);
  assertEquals(bot.code, 2);
  assertEquals(bot.stderr, 'signet bot get: unknown option --nope\n(see "signet bot help")\n');
  const whoami = await signet(["whoami", "--nope"]);
  assertEquals(whoami.code, 2);
  assertEquals(whoami.stderr, 'signet whoami: unknown option --nope\n(see "signet help whoami")\n');
});
