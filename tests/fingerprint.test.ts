/** Key fingerprints are what ssh-keygen prints. */
import { assertEquals } from "./helpers/assert.ts";
import { fingerprint, parsePublicKeyLine } from "../protocol/ssh/sshkey.ts";
import { makeKey } from "./helpers/accounts.ts";
import { runOk } from "./helpers/run.ts";

Deno.test("fingerprint: what ssh-keygen -lf prints", async () => {
  const key = await makeKey("fp");
  const out = await runOk("ssh-keygen", ["-lf", `${key.privatePath}.pub`]);
  assertEquals(fingerprint(parsePublicKeyLine(key.publicLine).blob), out.split(" ")[1]);
});
