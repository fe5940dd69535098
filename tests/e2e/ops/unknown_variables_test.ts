/**
 * A SERVICE_ variable no setting reads (a typo) gets one warning at start naming it and the
 * nearest known name; the server still starts, and the client's variables do not warn.
 */
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { serveProcess, StreamLog } from "../../helpers/server.ts";
import { unknownVariables } from "../../../server/config.ts";

Deno.test("unknownVariables names each unknown SERVICE_ variable and the nearest known one", () => {
  assertEquals(
    unknownVariables({
      SERVICE_HTTP_BNID: "127.0.0.1:8080",
      SERVICE_RATE_LIMIT_LOGIN_IPP: "1/1",
      SERVICE_HTTP_BIND: "127.0.0.1:8080",
      SERVICE_HOST: "http://127.0.0.1:8080",
      SERVICE_SSH_KEY: "/tmp/key",
      SERVICE_USER: "alice",
      SERVICE_REGISTRY_URL: "http://127.0.0.1:8081",
      SERVICE_RATE_LIMIT_LOGIN_IP: "1/1",
      HOME: "/root",
    }),
    [
      { name: "SERVICE_HTTP_BNID", nearest: "SERVICE_HTTP_BIND" },
      { name: "SERVICE_RATE_LIMIT_LOGIN_IPP", nearest: "SERVICE_RATE_LIMIT_LOGIN_IP" },
    ],
  );
});

Deno.test("signet serve warns once about SERVICE_HTTP_BNID and still starts", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "signet-unknown-env-" });
  try {
    const child = serveProcess(dataDir, {
      SERVICE_HTTP_BNID: "127.0.0.1:0",
      SERVICE_HOST: "http://127.0.0.1:1",
      SERVICE_REGISTRY_URL: "http://127.0.0.1:2",
    });
    const stderr = new StreamLog(child.stderr);
    const log = await stderr.readUntil('"signet started"');
    child.kill("SIGTERM");
    await stderr.cancel();
    await child.status;
    assertStringIncludes(log, '"signet started"');
    const warnings = log.split("\n").filter((line) => line.includes("unknown setting"));
    assertEquals(warnings.length, 1, log);
    assertStringIncludes(warnings[0], "SERVICE_HTTP_BNID");
    assertStringIncludes(warnings[0], "did you mean SERVICE_HTTP_BIND?");
    assert(!log.includes("unknown setting SERVICE_HOST"), log);
    assert(!log.includes("unknown setting SERVICE_REGISTRY_URL"), log);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
