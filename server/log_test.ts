/** Logging: info lines are batched, yet every line reaches stderr, in order, before exit. */
import { assertEquals } from "../tests/helpers/assert.ts";

const ROOT = new URL("../", import.meta.url).pathname;

Deno.test("buffered log lines are all written, in order, including right before exit", async () => {
  const script = `
    import { log } from "${ROOT}server/log.ts";
    for (let i = 0; i < 2000; i++) log("info", "line", { i });
    log("warn", "warning", { i: 2000 });
    log("info", "last", { i: 2001 });
    Deno.exit(0);
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(out.code, 0);
  const lines = new TextDecoder().decode(out.stderr).trim().split("\n").map((l) => JSON.parse(l));
  assertEquals(lines.length, 2002);
  assertEquals(lines.map((l) => l.i), Array.from({ length: 2002 }, (_, i) => i));
  assertEquals(lines[2000].level, "warn");
  assertEquals(lines[2001].msg, "last");
});

Deno.test("once the instance is named, every line carries it", async () => {
  const script = `
    import { log, setLogInstance } from "${ROOT}server/log.ts";
    log("info", "before");
    setLogInstance("web-2");
    log("info", "after", { n: 1 });
    log("error", "failed");
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const lines = new TextDecoder().decode(out.stderr).trim().split("\n").map((l) => JSON.parse(l));
  assertEquals(lines.map((l) => [l.msg, l.instance]), [
    ["before", undefined],
    ["after", "web-2"],
    ["failed", "web-2"],
  ]);
  assertEquals(lines[1].n, 1);
});
