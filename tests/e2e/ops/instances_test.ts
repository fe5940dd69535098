/**
 * Several instances on one data dir: each keeps its private files (the connection guard's
 * sockets, spills, clone cache) in `<data dir>/run/<instance name>/`; a second process with a
 * running instance's name is refused, a killed instance restarts under its name, and the
 * embedded SQLite database never gets a second process.
 */
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { clusterTest } from "../../helpers/cluster.ts";
import { serveProcess, SERVER_TEST, startTestServer } from "../../helpers/server.ts";

/** Runs `signet serve` on `dataDir` with `env` until it exits; its exit code and stderr. */
async function refusedStart(
  dataDir: string,
  env: Record<string, string>,
): Promise<{ code: number; stderr: string }> {
  const out = await serveProcess(dataDir, env).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

clusterTest(
  "two instances on one data dir keep their sockets apart; a taken name is refused; a killed one restarts",
  { names: ["a", "b"] },
  async (cluster, t) => {
    const [a, b] = cluster.instances;
    await t.step("each instance has its own sockets under run/<name>/", () => {
      for (const name of ["a", "b"]) {
        const files = [...Deno.readDirSync(`${cluster.dataDir}/run/${name}`)].map((e) => e.name)
          .sort();
        for (const file of ["http.sock", "lock", "registry.sock"]) {
          assert(files.includes(file), `run/${name}: ${files}`);
        }
      }
    });

    await t.step("health, the registry's health, metrics and logs name the instance", async () => {
      for (const s of [a, b]) {
        const res = await fetch(`${s.httpUrl}/api/health`);
        assertEquals(res.status, 200);
        assertEquals(res.headers.get("signet-instance"), s.instanceName);
        const body = await res.json();
        assertEquals([body.status, body.instance], ["ok", s.instanceName]);
        const registry = await fetch(`${s.registryUrl}/health`);
        assertEquals(registry.headers.get("signet-instance"), s.instanceName);
        assertEquals(await registry.json(), { status: "ok" });
        const metrics = await (await fetch(`${s.httpUrl}/metrics`, {
          headers: { authorization: `Bearer ${s.adminKey}` },
        })).text();
        assertStringIncludes(metrics, `signet_instance_info{instance_name="${s.instanceName}",`);
        const started = s.logs().split("\n").find((l) => l.includes('"msg":"signet started"'));
        assertEquals(JSON.parse(started!).instance, s.instanceName);
      }
    });

    await t.step("a second process named like a running instance is refused", async () => {
      const { code, stderr } = await refusedStart(cluster.dataDir, {
        SERVICE_INSTANCE_NAME: "a",
        SERVICE_DATABASE_URL: cluster.databaseUrl,
      });
      assertEquals(code, 2, stderr);
      assertStringIncludes(stderr, `instance "a" is already running on the data directory`);
      assertStringIncludes(stderr, `pid ${a.pid}`);
      assertStringIncludes(stderr, "SERVICE_INSTANCE_NAME");
      // The running one's sockets are still its own.
      const res = await fetch(`${a.httpUrl}/api/health`);
      assertEquals(res.status, 200);
      await res.body?.cancel();
    });

    await t.step("an instance killed with SIGKILL starts again under its name", async () => {
      await a.kill();
      const again = await cluster.launch("a");
      const res = await fetch(`${again.httpUrl}/api/health`);
      assertEquals(res.status, 200);
      await res.body?.cancel();
    });

    await t.step("a SQLite instance is refused beside them", async () => {
      const { code, stderr } = await refusedStart(cluster.dataDir, {
        SERVICE_INSTANCE_NAME: "c",
      });
      assertEquals(code, 2, stderr);
      assertStringIncludes(stderr, "the embedded SQLite database belongs to one process");
      assertStringIncludes(stderr, "SERVICE_DATABASE_URL");
    });
  },
);

Deno.test({
  name: "the embedded SQLite database: a second instance on its data dir is refused",
  ...SERVER_TEST,
  async fn() {
    const server = await startTestServer({ env: { SERVICE_INSTANCE_NAME: "one" } });
    try {
      for (const name of ["one", "two"]) {
        const { code, stderr } = await refusedStart(server.dataDir, {
          SERVICE_INSTANCE_NAME: name,
          // The suite's PostgreSQL run gives the server a database; this one stays on SQLite.
          SERVICE_DATABASE_URL: "",
        });
        assertEquals(code, 2, stderr);
        assertStringIncludes(stderr, "another signet serve is running on the data directory");
        assertStringIncludes(stderr, "one PostgreSQL database (SERVICE_DATABASE_URL)");
      }
      const res = await fetch(`${server.httpUrl}/api/health`);
      assertEquals(res.status, 200);
      await res.body?.cancel();
    } finally {
      await server.stop();
      await Deno.remove(server.dataDir, { recursive: true });
    }
  },
});
