/** The cached protocol v2 advertisement of smart HTTP follows git's configuration. */
import { assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { userWithRepo } from "../../../testing/accounts.ts";
import { gitEnv, runOk } from "../../../testing/run.ts";
import { serverTest } from "../../helpers/server.ts";

serverTest(
  "smart HTTP v2 advertisement: served from cache, refreshed when the repo config changes",
  {},
  async (server) => {
    await userWithRepo(server, "alice", "cfg");
    const url = `${server.httpUrl}/alice/cfg.git/info/refs?service=git-upload-pack`;
    const advert = async () => {
      const res = await fetch(url, { headers: { "Git-Protocol": "version=2" } });
      assertEquals(res.status, 200);
      assertEquals(
        res.headers.get("Content-Type"),
        "application/x-git-upload-pack-advertisement",
      );
      return await res.text();
    };
    const first = await advert();
    assertStringIncludes(first, "version 2");
    assertEquals(await advert(), first);
    assertEquals(first.includes("filter"), false, first);

    // Git's own answer changes with the repository config; so must the served one.
    const home = await Deno.makeTempDir();
    const dir = `${server.dataDir}/repos/alice/cfg.git`;
    await runOk("git", ["--git-dir", dir, "config", "uploadpack.allowFilter", "true"], {
      env: gitEnv(home),
    });
    const after = await advert();
    assertStringIncludes(after, "filter");
    const direct = await runOk(
      "git",
      ["upload-pack", "--stateless-rpc", "--advertise-refs", dir],
      {
        env: { ...gitEnv(home), GIT_PROTOCOL: "version=2" },
      },
    );
    assertEquals(after, direct);

    // Protocol v0 still gets the service line and the refs, never the cached v2 bytes.
    const v0 = await (await fetch(url)).text();
    assertStringIncludes(v0, "# service=git-upload-pack");
  },
);
