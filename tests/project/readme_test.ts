/**
 * The README, as printed: every shell block marked `<!-- readme-test: run -->` (prerequisites,
 * install, backup, the walkthrough over HTTP, SSH and the CLI) runs in README order, each in a
 * fresh `bash -euo pipefail`, from a fresh copy of the checkout, in a temporary HOME, against the
 * server `deno task start` runs there; and the nginx example passes `nginx -t` where nginx is
 * installed. The blocks are read from README.md itself; only the ports are changed, to free ones.
 */
import { pollUntil } from "../helpers/wait.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { freePort } from "../../testing/ports.ts";
import { run, runOk } from "../../testing/run.ts";
import { SERVER_TEST } from "../helpers/server.ts";
import { balancerConfig, firstFile, STREAM_MODULE_PATHS } from "../../testing/nginx.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
/** Terminal colour codes (deno colours its own messages). */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");
const README = await Deno.readTextFile(`${ROOT}README.md`);

/** The shell blocks the README marks to be run, in order. */
function runnableBlocks(): string[] {
  const re = /<!-- readme-test: run -->\n\n```sh\n([\s\S]*?)\n```/g;
  return [...README.matchAll(re)].map((m) => m[1]);
}

/**
 * The README's nginx examples by their marker (`<!-- readme-test: nginx <context> [cluster] -->`
 * before the block): `http` ones go inside nginx.conf's http block, `stream` ones beside it.
 */
function nginxExamples(): { context: "http" | "stream"; cluster: boolean; text: string }[] {
  const all = [...README.matchAll(/```nginx\n/g)].length;
  const marked = [
    ...README.matchAll(
      /<!-- readme-test: nginx (http|stream)( cluster)? -->\n\n```nginx\n([\s\S]*?)\n```/g,
    ),
  ].map((m) => ({ context: m[1] as "http" | "stream", cluster: !!m[2], text: m[3] }));
  assertEquals(marked.length, all, "every nginx example in the README is marked to be checked");
  return marked;
}

/** Copies the checkout's files (not .git, data or build output) into `to`. */
async function copyCheckout(from: string, to: string): Promise<void> {
  const skip = new Set([".git", "data", "dist", "node_modules", "signet", ".artifacts", ".work"]);
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    if (skip.has(e.name)) continue;
    if (e.isDirectory) await copyCheckout(`${from}/${e.name}`, `${to}/${e.name}`);
    else if (e.isFile) await Deno.copyFile(`${from}/${e.name}`, `${to}/${e.name}`);
  }
}

/** Deno's cache directory of this run, so the copy needs no download. */
async function denoDir(): Promise<string> {
  const out = await runOk(Deno.execPath(), ["info", "--json"]);
  return JSON.parse(out).denoDir;
}

Deno.test({
  name: "README: every marked block runs in order and succeeds against deno task start",
  ...SERVER_TEST,
  async fn() {
    const work = await Deno.makeTempDir({ prefix: "signet-readme-" });
    const checkout = `${work}/signet`;
    const home = `${work}/home`;
    await Deno.mkdir(home);
    await copyCheckout(ROOT.replace(/\/$/, ""), checkout);
    // OpenSSH reads ~/.ssh from the password database, not $HOME: this ssh, first on PATH, makes
    // it use the temporary HOME's known_hosts, as a new user's ssh would use theirs.
    await Deno.mkdir(`${work}/bin`);
    const ssh = (await runOk("sh", ["-c", "command -v ssh"])).trim();
    await Deno.writeTextFile(
      `${work}/bin/ssh`,
      `#!/bin/sh\nexec ${ssh} -o UserKnownHostsFile="$HOME/.ssh/known_hosts" "$@"\n`,
      { mode: 0o755 },
    );
    const ports = { http: freePort(), ssh: freePort(), registry: freePort() };
    // A clean environment, as a new user's: no SERVICE_*, git or XDG settings of this run.
    const env: Record<string, string> = {
      HOME: home,
      PATH: `${home}/.deno/bin:${work}/bin:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
      DENO_DIR: await denoDir(),
      LANG: "C.UTF-8",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_TERMINAL_PROMPT: "0",
    };

    // `deno task start`, on free ports: the task's own command, run where the task would run it.
    const task = JSON.parse(await Deno.readTextFile(`${checkout}/deno.json`)).tasks.start;
    assertEquals(task, "deno run -A scripts/start.ts");
    const server = new Deno.Command(Deno.execPath(), {
      args: task.split(" ").slice(1),
      cwd: checkout,
      clearEnv: true,
      env: {
        ...env,
        SERVICE_HTTP_BIND: `127.0.0.1:${ports.http}`,
        SERVICE_SSH_BIND: `127.0.0.1:${ports.ssh}`,
        SERVICE_REGISTRY_BIND: `127.0.0.1:${ports.registry}`,
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let output = "";
    const decoder = new TextDecoder();
    const drain = async (s: ReadableStream<Uint8Array>) => {
      for await (const chunk of s) output += decoder.decode(chunk, { stream: true });
    };
    const drained = Promise.all([drain(server.stdout), drain(server.stderr)]);
    try {
      const started = performance.now();
      const deadline = Date.now() + 60_000;
      while (!output.includes('"msg":"signet started"')) {
        assert(Date.now() < deadline, `the server did not start:\n${output}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      console.log(`deno task start: started in ${(performance.now() - started).toFixed(0)} ms`);

      // The first start prints Signet's own summary and nothing else (deno's "Download" lines
      // appear only while its cache is being filled, never again).
      const startLines = output.slice(0, output.indexOf('"msg":"signet started"'))
        .split("\n").map((l) => l.replace(ANSI, "")).filter((l) =>
          l !== "" && !l.startsWith("Download ")
        );
      for (const line of startLines.slice(0, -1)) {
        assert(
          line.startsWith('{"time":') || line.startsWith("A new admin key was generated"),
          `not Signet's start summary: ${JSON.stringify(line)}\n${output}`,
        );
      }

      // Answering ssh's first-connection question as the README says: the fingerprint ssh shows
      // is the one Signet printed and the one of data/ssh_host_ed25519_key.pub.
      const printed = /"ssh_host_key":"(SHA256:[^"]+)"/.exec(output)?.[1];
      const scanned = await runOk("ssh-keyscan", [
        "-t",
        "ed25519",
        "-p",
        `${ports.ssh}`,
        "127.0.0.1",
      ]);
      const scanFile = `${work}/scanned`;
      await Deno.writeTextFile(scanFile, scanned);
      assertEquals((await runOk("ssh-keygen", ["-lf", scanFile])).split(" ")[1], printed);
      const fromFile = await runOk("ssh-keygen", [
        "-lf",
        `${checkout}/data/ssh_host_ed25519_key.pub`,
      ]);
      assertEquals(fromFile.split(" ")[1], printed);
      await Deno.mkdir(`${home}/.ssh`, { mode: 0o700 });
      await Deno.writeTextFile(`${home}/.ssh/known_hosts`, scanned);

      const blocks = runnableBlocks();
      assert(blocks.length >= 6, `found ${blocks.length} marked blocks`);
      for (const [i, block] of blocks.entries()) {
        const script = block
          .replaceAll("127.0.0.1:8080", `127.0.0.1:${ports.http}`)
          .replaceAll("127.0.0.1:8081", `127.0.0.1:${ports.registry}`)
          .replaceAll("127.0.0.1:2222", `127.0.0.1:${ports.ssh}`)
          .replaceAll("-p 2222 ", `-p ${ports.ssh} `);
        assert(!/\b(8080|8081|2222)\b/.test(script), `block ${i + 1} names a port another way`);
        const r = await run("bash", ["-euo", "pipefail", "-c", script], { cwd: checkout, env });
        assert(
          r.code === 0,
          `README block ${i + 1} failed (${r.code}):\n${block}\n--- stdout\n${r.stdout}\n` +
            `--- stderr\n${r.stderr}\n--- server\n${output.slice(-4000)}`,
        );
        // The piped signup asks for no terminal: ssh has no pseudo-terminal warning to print.
        assert(!r.stderr.includes("Pseudo-terminal"), `README block ${i + 1}:\n${r.stderr}`);
      }

      // What the blocks claim to have done.
      const log = (dir: string) =>
        runOk("git", ["-C", `${checkout}/${dir}`, "log", "--format=%s"], { env });
      assertEquals(await log("hello-copy"), "first\n");
      assertEquals(await log("hello-ssh"), "first\n");
      // A push is recorded once its client was answered: wait for it (bounded).
      let status = 0;
      const body = await pollUntil(async () => {
        const demo = await fetch(`http://127.0.0.1:${ports.http}/api/repos/carol/demo`);
        status = demo.status;
        return await demo.json();
      }, (b) => Boolean(b.repo?.pushed_at ?? b.pushed_at));
      assertEquals(status, 200, JSON.stringify(body));
      assert(
        body.repo?.pushed_at ?? body.pushed_at,
        `carol/demo was never pushed: ${JSON.stringify(body)}`,
      );
      const notes = await fetch(`http://127.0.0.1:${ports.http}/api/repos/bob/notes`);
      await notes.body?.cancel();
      assertEquals(notes.status, 200);
      const backups = [...Deno.readDirSync(`${home}/signet-backups`)];
      assertEquals(backups.length, 1);
      assert(
        Deno.statSync(`${home}/signet-backups/${backups[0].name}/signet.db`).isFile,
        "the backup holds the database",
      );

      // No runtime warnings at any point: npm build scripts, Deno.serve's legacy abort, __proto__.
      for (const noise of ["Warning", "Ignored build scripts", "Deno.serve:", "__proto__"]) {
        assert(!output.includes(noise), `server printed ${JSON.stringify(noise)}:\n${output}`);
      }
    } finally {
      try {
        server.kill("SIGTERM");
      } catch { /* already gone */ }
      await server.status;
      await drained;
      await Deno.remove(work, { recursive: true }).catch(() => {});
    }
  },
});

/** The first of `paths` that is a file (an installed program), if any. */
function installed(...paths: string[]): string | undefined {
  return paths.find((p) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  });
}

const NGINX = installed("/usr/sbin/nginx", "/usr/bin/nginx");
const STREAM_MODULE = firstFile(STREAM_MODULE_PATHS);

/**
 * Writes `conf` with certbot's certificate paths replaced by self-signed certificates made in
 * `dir` (nginx -t loads them, so they must exist); returns it.
 */
async function withCertificates(dir: string, conf: string): Promise<string> {
  const certs = [...conf.matchAll(/\/etc\/letsencrypt\/live\/([^/]+)\/fullchain\.pem/g)]
    .map((m) => m[1]);
  assert(certs.length >= 1, "the example configures TLS certificates");
  for (const name of new Set(certs)) {
    await runOk("openssl", [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "1",
      "-subj",
      `/CN=${name}`,
      "-keyout",
      `${dir}/${name}.key`,
      "-out",
      `${dir}/${name}.pem`,
    ]);
    conf = conf
      .replaceAll(`/etc/letsencrypt/live/${name}/fullchain.pem`, `${dir}/${name}.pem`)
      .replaceAll(`/etc/letsencrypt/live/${name}/privkey.pem`, `${dir}/${name}.key`);
  }
  assert(!conf.includes("/etc/letsencrypt"), "every certificate path was replaced");
  return conf;
}

/**
 * `nginx -t` on an nginx.conf made of `http` (inside its http block, as a file in conf.d/ is) and
 * `main` (at its top level, as an included stream file is), in a fresh prefix directory.
 */
async function nginxTest(http: string, main = ""): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "signet-nginx-" });
  const conf = await withCertificates(dir, http);
  // Debian loads the stream module from modules-enabled/ (libnginx-mod-stream).
  const module = main && STREAM_MODULE ? `load_module ${STREAM_MODULE};\n` : "";
  await Deno.writeTextFile(
    `${dir}/nginx.conf`,
    `${module}pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {}\n` +
      `http {\n${conf}\n}\n${main}\n`,
  );
  const r = await run(NGINX!, [
    "-t",
    "-p",
    dir,
    "-e",
    `${dir}/error.log`,
    "-c",
    `${dir}/nginx.conf`,
  ]);
  assertEquals(r.code, 0, `nginx -t failed:\n${r.stderr}\n${conf}\n${main}`);
  assert(r.stderr.includes("test is successful"), r.stderr);
  await Deno.remove(dir, { recursive: true });
}

Deno.test({
  name: "README: the single-machine nginx example passes nginx -t",
  ignore: NGINX === undefined,
  async fn() {
    const single = nginxExamples().filter((e) => !e.cluster);
    assertEquals(single.map((e) => e.context), ["http"]);
    await nginxTest(single[0].text);
  },
});

Deno.test({
  name: "README: the balancer's nginx configuration (http and stream) passes nginx -t",
  ignore: NGINX === undefined || STREAM_MODULE === undefined,
  async fn() {
    const cluster = nginxExamples().filter((e) => e.cluster);
    assertEquals(cluster.map((e) => e.context).sort(), ["http", "stream"]);
    const part = (context: string) => cluster.find((e) => e.context === context)!.text;
    await nginxTest(part("http"), part("stream"));
  },
});

/** Each `location` block of an nginx configuration, whitespace collapsed, upstream names as `U`. */
function locations(conf: string): string[] {
  return [...conf.matchAll(/\blocation [^{]+\{(?:[^{}]|\{[^{}]*\})*\}/g)]
    .map((m) => m[0].replace(/\s+/g, " ").replace(/http:\/\/signet_\w+/g, "http://U"));
}

Deno.test("README: the balancer retries requests as the cluster tests' nginx does", () => {
  const readme = nginxExamples().find((e) => e.cluster && e.context === "http")!.text;
  const tested = balancerConfig({
    dir: "/x",
    streamModule: "/x.so",
    http: { listen: 1, upstreams: [2, 3] },
    registry: { listen: 4, upstreams: [5, 6] },
    ssh: { listen: 7, upstreams: [8, 9] },
  });
  // testing/nginx.ts (tests/e2e/cluster/balancer_retries_test.ts proves its rules) and the
  // README give hosting and the registry the same locations.
  assertEquals(locations(readme), locations(tested));
  assertEquals(locations(readme).length, 4);
  const directives = (conf: string) =>
    ["proxy_http_version 1.1;", 'proxy_set_header Connection "";', "keepalive 32;"]
      .map((d) => conf.split(d).length - 1);
  assertEquals(directives(readme), directives(tested));
});

const SYSTEMD_ANALYZE = installed("/usr/bin/systemd-analyze", "/bin/systemd-analyze");

Deno.test({
  name: "README: the systemd unit passes systemd-analyze verify without a warning",
  ignore: SYSTEMD_ANALYZE === undefined,
  async fn() {
    const m = /`\/etc\/systemd\/system\/signet\.service`:\n\n```ini\n([\s\S]*?)\n```/.exec(README);
    assert(m, "the README has the signet.service unit");
    // The unit runs the installed executable, which this machine need not have: any program in
    // its place lets verify check the rest (it refuses a missing ExecStart program).
    const unit = m[1].replaceAll("/usr/local/bin/signet", "/bin/true");
    assert(unit !== m[1], "ExecStart names /usr/local/bin/signet");
    const dir = await Deno.makeTempDir({ prefix: "signet-unit-" });
    await Deno.writeTextFile(`${dir}/signet.service`, unit + "\n");
    const r = await run(SYSTEMD_ANALYZE!, ["verify", `${dir}/signet.service`]);
    assertEquals(r.code, 0, r.stderr);
    assertEquals((r.stdout + r.stderr).trim(), "", "systemd-analyze verify warned");
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name: "README: the cluster drop-in passes systemd-analyze verify with the unit",
  ignore: SYSTEMD_ANALYZE === undefined,
  async fn() {
    const unit = /`\/etc\/systemd\/system\/signet\.service`:\n\n```ini\n([\s\S]*?)\n```/.exec(
      README,
    );
    const dropIn =
      /`\/etc\/systemd\/system\/signet\.service\.d\/cluster\.conf`[^\n]*:\n\n```ini\n([\s\S]*?)\n```/
        .exec(README);
    assert(unit && dropIn, "the README has the unit and the cluster drop-in");
    const dir = await Deno.makeTempDir({ prefix: "signet-unit-" });
    await Deno.writeTextFile(
      `${dir}/signet.service`,
      unit[1].replaceAll("/usr/local/bin/signet", "/bin/true") + "\n",
    );
    await Deno.mkdir(`${dir}/signet.service.d`);
    await Deno.writeTextFile(`${dir}/signet.service.d/cluster.conf`, dropIn[1] + "\n");
    const r = await run(SYSTEMD_ANALYZE!, ["verify", `${dir}/signet.service`]);
    assertEquals(r.code, 0, r.stderr);
    assertEquals((r.stdout + r.stderr).trim(), "", "systemd-analyze verify warned");
    await Deno.remove(dir, { recursive: true });
  },
});
