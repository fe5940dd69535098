/** A listener that cannot bind stops the start with a message naming its variable, not a trace. */
import { assertEquals, assertStringIncludes } from "./helpers/assert.ts";
import { freePort } from "./helpers/ports.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

for (const variable of ["SERVICE_HTTP_BIND", "SERVICE_SSH_BIND", "SERVICE_REGISTRY_BIND"]) {
  Deno.test(`an address in use for ${variable} is a configuration error naming it`, async () => {
    const taken = Deno.listen({ hostname: "127.0.0.1", port: freePort() });
    const dataDir = await Deno.makeTempDir({ prefix: "signet-bind-" });
    try {
      const env: Record<string, string> = {
        NO_COLOR: "1",
        SERVICE_DATA_DIR: dataDir,
        SERVICE_ADMIN_KEY: "test-admin-key-0123456789abcdef",
        SERVICE_HTTP_BIND: "127.0.0.1:0",
        SERVICE_SSH_BIND: "127.0.0.1:0",
        SERVICE_REGISTRY_BIND: "127.0.0.1:0",
      };
      env[variable] = `127.0.0.1:${(taken.addr as Deno.NetAddr).port}`;
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", MAIN, "serve"],
        env,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      assertEquals(out.code, 2, stderr);
      assertStringIncludes(stderr, `${variable}=${env[variable]}: the address is already in use`);
      assertEquals(stderr.includes("    at "), false, `a stack trace:\n${stderr}`);
    } finally {
      taken.close();
      await Deno.remove(dataDir, { recursive: true });
    }
  });
}
