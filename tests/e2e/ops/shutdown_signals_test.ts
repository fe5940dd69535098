/**
 * Ctrl-C under `deno task start` reaches the server twice (the terminal's and the one deno task
 * forwards): the repeat is one request, so the server still drains and stops cleanly.
 */
import { assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { serveProcess, StreamLog } from "../../helpers/server.ts";

Deno.test("two SIGINTs back to back still shut down cleanly", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "signet-signal-" });
  try {
    const child = serveProcess(dataDir);
    const stderr = new StreamLog(child.stderr);
    assertStringIncludes(await stderr.readUntil('"signet started"'), '"signet started"');
    // Back to back, as the terminal and deno task deliver them.
    child.kill("SIGINT");
    child.kill("SIGINT");
    const log = await stderr.readUntil();
    const status = await child.status;
    assertEquals(status.code, 0, log);
    assertStringIncludes(log, '"msg":"stopped"');
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
