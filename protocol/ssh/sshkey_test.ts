/** Key fingerprints are what ssh-keygen prints. */
import { assertEquals } from "../../tests/helpers/assert.ts";
import { fingerprint, parsePublicKeyLine } from "./sshkey.ts";
import { makeKey } from "../../testing/accounts.ts";
import { runOk } from "../../testing/run.ts";

Deno.test("fingerprint: what ssh-keygen -lf prints", async () => {
  const key = await makeKey("fp");
  const out = await runOk("ssh-keygen", ["-lf", `${key.privatePath}.pub`]);
  assertEquals(await fingerprint(parsePublicKeyLine(key.publicLine).blob), out.split(" ")[1]);
});
