/** How git re-runs signet: the helper command line survives the shell, odd paths included. */
import assert from "node:assert/strict";
import { credentialHelperValue, selfCommand, shellQuote } from "./self.ts";
import { runOk } from "../testing/run.ts";

Deno.test("shellQuote round-trips arbitrary arguments through sh", async () => {
  const args = ["plain", "with space", "it's", "$HOME", "`id`", 'a"b', "back\\slash", "", "*"];
  const out = await runOk("sh", ["-c", `printf '%s\\n' ${args.map(shellQuote).join(" ")}`]);
  assert.deepEqual(out.split("\n").slice(0, -1), args);
});

Deno.test("from source, the helper runs this deno on this main.ts without a config", () => {
  const argv = selfCommand();
  assert.equal(argv[0], Deno.execPath());
  assert.deepEqual(argv.slice(1, 5), ["run", "-A", "--quiet", "--no-config"]);
  assert.equal(argv.at(-1), new URL("../main.ts", import.meta.url).pathname);
  assert.equal(credentialHelperValue(), "!" + [...argv, "credential"].map(shellQuote).join(" "));
});
