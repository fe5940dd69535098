/** The host key: made once, even by several processes starting at once on one data dir. */
import { assertEquals } from "../../tests/helpers/assert.ts";
import { fingerprint, parsePublicKeyLine } from "../../protocol/ssh/sshkey.ts";
import { loadOrCreateHostKey } from "./hostkey.ts";

Deno.test("host keys created at once on one path end as one key, with nothing left over", async () => {
  const dir = await Deno.makeTempDir({ prefix: "signet-hostkey-" });
  try {
    const path = `${dir}/ssh_host_ed25519_key`;
    const keys = await Promise.all(Array.from({ length: 6 }, () => loadOrCreateHostKey(path)));
    assertEquals(new Set(keys.map((k) => k.fingerprint)).size, 1);
    assertEquals(keys.filter((k) => k.generated).length, 1);
    assertEquals([...Deno.readDirSync(dir)].map((e) => e.name).sort(), [
      "ssh_host_ed25519_key",
      "ssh_host_ed25519_key.pub",
    ]);
    assertEquals(Deno.statSync(path).mode! & 0o777, 0o600);
    const again = await loadOrCreateHostKey(path);
    assertEquals([again.fingerprint, again.generated], [keys[0].fingerprint, false]);
    // The .pub beside it is the published key's.
    const pub = parsePublicKeyLine((await Deno.readTextFile(`${path}.pub`)).trim());
    assertEquals(await fingerprint(pub.blob), again.fingerprint);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a host key path in a directory that does not exist is refused, and nothing is made", async () => {
  const dir = await Deno.makeTempDir({ prefix: "signet-hostkey-" });
  try {
    const err = await loadOrCreateHostKey(`${dir}/typo/ssh_host_ed25519_key`).then(
      () => null,
      (e: Error) => e,
    );
    assertEquals(err?.message, `the directory ${dir}/typo for the host key does not exist`);
    assertEquals([...Deno.readDirSync(dir)], []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
