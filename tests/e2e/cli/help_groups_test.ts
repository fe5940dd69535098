/**
 * `signet help` lists every client variable from the one client env table; `signet <group> help`
 * prints the group's help; a bad `signet bot search --status` is a usage error (exit 2).
 */
import { assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { runSignet } from "../../helpers/cli.ts";
import { CLIENT_ENV_DOCS } from "../../../client/env.ts";
import { CLIENT_COMMANDS } from "../../../client/cli/index.ts";
import { CLIENT_SERVICE_VARIABLES } from "../../../protocol/client_env.ts";

/** `signet <args>` with no server to reach. */
const signet = (args: string[]) =>
  runSignet(args, {
    SERVICE_HOST: "http://127.0.0.1:9",
    SERVICE_REGISTRY_URL: "http://127.0.0.1:9",
  });

Deno.test("signet help lists every client variable, as the client env table words it", async () => {
  const help = await signet(["help"]);
  assertEquals(help.code, 0);
  const section = help.stdout.split("Client environment:\n")[1].split("\n\n")[0];
  const listed = section.split("\n").map((line) => line.trim().split(/\s{2,}/));
  assertEquals(listed, Object.entries(CLIENT_ENV_DOCS));
  assertEquals(Object.keys(CLIENT_ENV_DOCS), [...CLIENT_SERVICE_VARIABLES]);
  assertStringIncludes(section, "SERVICE_REGISTRY_URL");
});

Deno.test("signet <group> help prints the group's help, like --help and signet help <group>", async () => {
  const groups = CLIENT_COMMANDS.filter((c) => c.group).map((c) => c.name);
  assertEquals(groups, ["token", "repo"]);
  for (const group of groups) {
    const help = await signet([group, "help"]);
    assertEquals(help.code, 0, help.stderr);
    assertEquals(help.stdout, (await signet([group, "--help"])).stdout);
    assertEquals(help.stdout, (await signet(["help", group])).stdout);
    assertStringIncludes(help.stdout, `signet ${group} `);
  }
  const bot = await signet(["help", "bot"]);
  assertEquals(bot.code, 0, bot.stderr);
  assertEquals(bot.stdout, (await signet(["bot", "help"])).stdout);
});

Deno.test("signet bot search with a bad --status or --limit is a usage error: exit 2", async () => {
  const status = await signet(["bot", "search", "--status", "bogus"]);
  assertEquals(status.code, 2);
  assertStringIncludes(status.stderr, "--status must be active or revoked, got bogus");
  const limit = await signet(["bot", "search", "--limit", "ten"]);
  assertEquals(limit.code, 2);
  assertStringIncludes(limit.stderr, "--limit must be a positive integer");
  // A valid --status passes the check and reaches the (unreachable) registry: exit 1, not 2.
  const valid = await signet(["bot", "search", "--status", "revoked"]);
  assertEquals(valid.code, 1, valid.stderr);
});
