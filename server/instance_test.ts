/** The instance claim: one process per instance name, and the embedded SQLite file alone. */
import { assertEquals, assertRejects } from "../tests/helpers/assert.ts";
import { ConfigError } from "./config.ts";
import { claimInstance } from "./instance.ts";

function place(dataDir: string, name: string) {
  return { dataDir, instanceName: name, instanceDir: `${dataDir}/run/${name}` };
}

Deno.test("instance claims: names apart, one SQLite, released claims and stale files free", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "signet-claim-" });
  try {
    // A lock file a killed process left behind holds no lock: it blocks nothing.
    await Deno.mkdir(`${dataDir}/run/a`, { recursive: true });
    await Deno.writeTextFile(`${dataDir}/run/a/lock`, "pid 1 on elsewhere\n");
    const a = await claimInstance(place(dataDir, "a"), "postgres");
    const b = await claimInstance(place(dataDir, "b"), "postgres");
    await assertRejects(
      () => claimInstance(place(dataDir, "a"), "postgres"),
      ConfigError,
      `instance "a" is already running on the data directory ${dataDir} (pid ${Deno.pid}`,
    );
    await assertRejects(
      () => claimInstance(place(dataDir, "c"), "sqlite"),
      ConfigError,
      "the embedded SQLite database belongs to one process",
    );
    assertEquals(Deno.statSync(`${dataDir}/run/a`).mode! & 0o777, 0o700);
    a.release();
    b.release();
    const sqlite = await claimInstance(place(dataDir, "a"), "sqlite");
    await assertRejects(
      () => claimInstance(place(dataDir, "b"), "postgres"),
      ConfigError,
      "a signet serve on the embedded SQLite database is running",
    );
    sqlite.release();
    (await claimInstance(place(dataDir, "b"), "postgres")).release();
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
