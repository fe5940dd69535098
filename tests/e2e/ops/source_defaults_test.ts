/** From source, `serve`, `backup` and `restore` share one default data dir: data/ in the checkout. */
import { assert } from "../../helpers/assert.ts";
import { run } from "../../../testing/run.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;

Deno.test("from source, backup without SERVICE_DATA_DIR reads data/ in the checkout, from any cwd", async () => {
  const cwd = await Deno.makeTempDir({ prefix: "signet-cwd-" });
  const target = `${cwd}/snapshot`;
  const r = await run(Deno.execPath(), ["run", "-A", `${ROOT}main.ts`, "backup", target], {
    cwd,
    env: { SERVICE_DATA_DIR: "" },
  });
  const hasData = await Deno.stat(`${ROOT}data/signet.db`).then(() => true, () => false);
  if (hasData) {
    // A developer's checkout that has served: the backup is of that database.
    assert(r.code === 0, r.stderr);
  } else {
    assert(r.code === 1, r.stderr);
    assert(r.stderr.includes(`no database at ${ROOT}data/signet.db`), r.stderr);
  }
  await Deno.remove(cwd, { recursive: true });
});
