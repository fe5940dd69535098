/** How git re-runs signet: the helper command line survives the shell, odd paths included. */
import assert from "node:assert/strict";
import { CLIENT_BUNDLE_PATH, credentialHelperValue, selfCommand, shellQuote } from "./self.ts";
import { run, runOk } from "../testing/run.ts";

Deno.test("shellQuote round-trips arbitrary arguments through sh", async () => {
  const args = ["plain", "with space", "it's", "$HOME", "`id`", 'a"b', "back\\slash", "", "*"];
  const out = await runOk("sh", ["-c", `printf '%s\\n' ${args.map(shellQuote).join(" ")}`]);
  assert.deepEqual(out.split("\n").slice(0, -1), args);
});

Deno.test("from source, the helper runs this deno on the client bundle without a config", () => {
  const argv = selfCommand();
  assert.equal(argv[0], Deno.execPath());
  assert.deepEqual(argv.slice(1, 5), ["run", "-A", "--quiet", "--no-config"]);
  assert.equal(argv.at(-1), new URL(`../${CLIENT_BUNDLE_PATH}`, import.meta.url).pathname);
  assert.equal(credentialHelperValue(), "!" + [...argv, "credential"].map(shellQuote).join(" "));
});

Deno.test("the client bundle runs the client commands, and refuses the others", async () => {
  const [program, ...args] = selfCommand();
  const help = await run(program, [...args, "whoami", "--help"]);
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /signet whoami/);
  const serve = await run(program, [...args, "serve"]);
  assert.equal(serve.code, 2);
  assert.match(serve.stderr, /unknown client command "serve"/);
});
