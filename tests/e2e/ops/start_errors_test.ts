/**
 * A bad setting or a listener that cannot bind stops the start with a message naming its variable,
 * not a trace, and starts nothing.
 */
import { assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { freePort } from "../../../testing/ports.ts";
import { serveProcess } from "../../helpers/server.ts";

for (const variable of ["SERVICE_HTTP_BIND", "SERVICE_SSH_BIND", "SERVICE_REGISTRY_BIND"]) {
  Deno.test(`an address in use for ${variable} is a configuration error naming it`, async () => {
    const taken = Deno.listen({ hostname: "127.0.0.1", port: freePort() });
    const dataDir = await Deno.makeTempDir({ prefix: "signet-bind-" });
    try {
      const address = `127.0.0.1:${(taken.addr as Deno.NetAddr).port}`;
      const out = await serveProcess(dataDir, { [variable]: address }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      assertEquals(out.code, 2, stderr);
      assertStringIncludes(stderr, `${variable}=${address}: the address is already in use`);
      assertEquals(stderr.includes("    at "), false, `a stack trace:\n${stderr}`);
    } finally {
      taken.close();
      await Deno.remove(dataDir, { recursive: true });
    }
  });
}

for (const variable of ["SERVICE_HTTP_BIND", "SERVICE_SSH_BIND", "SERVICE_REGISTRY_BIND"]) {
  Deno.test(`an address of no interface here for ${variable} is a configuration error naming it`, async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "signet-bind-" });
    try {
      // TEST-NET-1 (RFC 5737): documentation only, never a machine's own address.
      const address = `192.0.2.1:${freePort()}`;
      const out = await serveProcess(dataDir, { [variable]: address }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      assertEquals(out.code, 2, stderr);
      assertStringIncludes(stderr, `${variable}=${address}: no network interface of this machine`);
      assertEquals(stderr.includes("    at "), false, `a stack trace:\n${stderr}`);
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  });
}

Deno.test("a data directory that is a file is a configuration error naming SERVICE_DATA_DIR", async () => {
  const dir = await Deno.makeTempDir({ prefix: "signet-datadir-" });
  try {
    const file = `${dir}/not-a-directory`;
    await Deno.writeTextFile(file, "");
    const out = await serveProcess(file).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assertEquals(out.code, 2, stderr);
    assertStringIncludes(stderr, `SERVICE_DATA_DIR=${file}: cannot be used as the data directory`);
    assertEquals(stderr.includes("    at "), false, `a stack trace:\n${stderr}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a host key path in a missing directory is a configuration error; nothing is made there", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "signet-hostkey-" });
  try {
    const path = `${dataDir}/typo/ssh_host_ed25519_key`;
    const out = await serveProcess(dataDir, { SERVICE_SSH_HOST_KEY: path }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assertEquals(out.code, 2, stderr);
    assertStringIncludes(
      stderr,
      `SERVICE_SSH_HOST_KEY=${path}: the directory ${dataDir}/typo for the host key does not exist`,
    );
    assertEquals(stderr.includes("    at "), false, `a stack trace:\n${stderr}`);
    assertEquals(await Deno.stat(`${dataDir}/typo`).then(() => true, () => false), false);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("a bad setting: signet serve exits with the message and starts nothing", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "signet-config-" });
  try {
    const out = await serveProcess(dataDir, { SERVICE_SHUTDOWN_TIMEOUT: "soon" }).output();
    assertEquals(out.code === 0, false);
    assertStringIncludes(new TextDecoder().decode(out.stderr), "SERVICE_SHUTDOWN_TIMEOUT");
    assertEquals([...Deno.readDirSync(dataDir)], []);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
