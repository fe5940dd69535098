/**
 * Ctrl-C under `deno task start` reaches the server twice (the terminal's and the one deno task
 * forwards): the repeat is one request, so the server still drains and stops cleanly.
 */
import { assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { serveProcess } from "../../helpers/server.ts";

Deno.test("two SIGINTs back to back still shut down cleanly", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "signet-signal-" });
  try {
    const child = serveProcess(dataDir);
    let log = "";
    const decoder = new TextDecoder();
    const reader = child.stderr.getReader();
    const deadline = Date.now() + 60_000;
    while (!log.includes('"signet started"') && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      log += decoder.decode(value, { stream: true });
    }
    assertStringIncludes(log, '"signet started"');
    // Back to back, as the terminal and deno task deliver them.
    child.kill("SIGINT");
    child.kill("SIGINT");
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      log += decoder.decode(value, { stream: true });
    }
    const status = await child.status;
    assertEquals(status.code, 0, log);
    assertStringIncludes(log, '"msg":"stopped"');
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
