/**
 * One SSH host key and one admin key for a cluster: instances starting at the same moment on a
 * fresh shared data dir end with the same keys (a client never sees the host key change when the
 * balancer switches instances); SERVICE_SSH_HOST_KEY still wins.
 */
import { assertEquals } from "../../helpers/assert.ts";
import { clusterTest } from "../../helpers/cluster.ts";
import { scanHostKeyFingerprint } from "../../helpers/ssh.ts";
import { run } from "../../../testing/run.ts";

clusterTest(
  "three instances started at once on a fresh data dir share one host key and one admin key",
  { names: ["a", "b", "c"], adminKey: null },
  async (cluster, t) => {
    const [a, b, c] = cluster.instances;
    await t.step("ssh-keyscan sees one host key on every instance", async () => {
      const prints = await Promise.all([a, b, c].map((s) => scanHostKeyFingerprint(s.sshPort)));
      assertEquals(new Set(prints).size, 1, prints.join(" "));
      const onDisk = await run("ssh-keygen", [
        "-l",
        "-f",
        `${cluster.dataDir}/ssh_host_ed25519_key.pub`,
      ]);
      assertEquals(onDisk.stdout.includes(prints[0]), true, onDisk.stdout);
    });

    await t.step("one admin key, accepted by every instance", async () => {
      const key = (await Deno.readTextFile(`${cluster.dataDir}/admin_key`)).trim();
      for (const s of [a, b, c]) {
        assertEquals(s.adminKey, key);
        const res = await fetch(`${s.httpUrl}/metrics`, {
          headers: { authorization: `Bearer ${key}` },
        });
        assertEquals(res.status, 200, s.instanceName);
        await res.body?.cancel();
      }
      const generated = [a, b, c].filter((s) => s.logs().includes("A new admin key was generated"));
      assertEquals(generated.length, 1);
    });

    await t.step("no candidate key file is left in the data dir", () => {
      const left = [...Deno.readDirSync(cluster.dataDir)].map((e) => e.name)
        .filter((n) => n.endsWith(".tmp"));
      assertEquals(left, []);
    });

    await t.step("SERVICE_SSH_HOST_KEY still wins over the shared file", async () => {
      const own = `${await Deno.makeTempDir({ prefix: "signet-ownkey-" })}/host_key`;
      await run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", own]);
      const d = await cluster.launch("d", { SERVICE_SSH_HOST_KEY: own });
      const expected = await run("ssh-keygen", ["-l", "-f", `${own}.pub`]);
      const seen = await scanHostKeyFingerprint(d.sshPort);
      assertEquals(expected.stdout.includes(seen), true, `${seen} vs ${expected.stdout}`);
      assertEquals(seen === await scanHostKeyFingerprint(a.sshPort), false);
    });
  },
);
