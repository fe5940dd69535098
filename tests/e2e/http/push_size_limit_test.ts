/** Size limits: oversized pushes are refused and leave the repository unchanged. */
import { assert, assertEquals } from "../../helpers/assert.ts";
import { userWithRepo } from "../../../testing/accounts.ts";
import { gitEnv, run, runOk } from "../../../testing/run.ts";
import { serverTest } from "../../helpers/server.ts";

serverTest("a push over SERVICE_MAX_PUSH_BYTES is refused over HTTP", {
  env: { SERVICE_MAX_PUSH_BYTES: "200k" },
}, async (server) => {
  const { token } = await userWithRepo(server, "alice", "big");
  const home = await Deno.makeTempDir();
  const env = gitEnv(home);
  const url = `http://alice:${token}@127.0.0.1:${server.httpPort}/alice/big.git`;
  await runOk("git", ["init", "-q", "-b", "main", `${home}/w`], { env });
  await runOk("git", ["commit", "-q", "--allow-empty", "-m", "small"], { cwd: `${home}/w`, env });
  assertEquals(
    (await run("git", ["push", "-q", url, "main"], { cwd: `${home}/w`, env })).code,
    0,
  );
  const small = (await runOk("git", ["rev-parse", "HEAD"], { cwd: `${home}/w`, env })).trim();
  await Deno.writeFile(`${home}/w/blob`, crypto.getRandomValues(new Uint8Array(60_000)));
  await Deno.writeFile(`${home}/w/blob2`, crypto.getRandomValues(new Uint8Array(60_000)));
  await Deno.writeFile(`${home}/w/blob3`, crypto.getRandomValues(new Uint8Array(60_000)));
  await Deno.writeFile(`${home}/w/blob4`, crypto.getRandomValues(new Uint8Array(60_000)));
  await runOk("git", ["add", "."], { cwd: `${home}/w`, env });
  await runOk("git", ["commit", "-q", "-m", "big"], { cwd: `${home}/w`, env });
  const r = await run("git", ["push", url, "main"], { cwd: `${home}/w`, env });
  assert(r.code !== 0, "oversized push must fail");
  const head = (await runOk("git", [
    "--git-dir",
    `${server.dataDir}/repos/alice/big.git`,
    "rev-parse",
    "main",
  ], {
    env,
  })).trim();
  assertEquals(head, small);
});
