/**
 * Hostile paths: traversal and injection attempts over HTTP (fetch and raw sockets) and SSH (the
 * real OpenSSH client). Every attempt must be refused cleanly and create nothing on disk.
 */
import { assert, assertEquals } from "../../helpers/assert.ts";
import { createRepo, createUser, login, postJson } from "../../../testing/accounts.ts";
import { gitEnv, run, runOk } from "../../../testing/run.ts";
import { serverTest, tempHome, type TestServer } from "../../helpers/server.ts";
import { ssh, sshCommand } from "../../helpers/ssh.ts";
import { RawHttp } from "../../helpers/raw_http.ts";

/**
 * Repository paths an attacker might try, each with a marker name ("pwned") to look for on disk;
 * `tmpParent` is the folder that holds the server's data dir.
 */
const hostilePaths = (tmpParent: string) => [
  "alice/../bob/pwned.git",
  "alice/%2e%2e/bob/pwned.git",
  "alice/%2E%2E%2Fpwned.git",
  "../pwned.git",
  "/etc/pwned.git",
  "//tmp/pwned.git",
  `${tmpParent}/pwned.git`,
  "alice/..",
  "alice/.",
  "alice/.git",
  "alice/-pwned.git",
  "alice/--upload-pack=touch pwned",
  "--upload-pack=touch pwned",
  "-alice/pwned.git",
  "alice/pwned\u0000.git",
  "alice/pwned%00.git",
  `alice/${"p".repeat(300)}.git`,
  `${"a".repeat(300)}/pwned.git`,
  "alice/pwn\u0435d.git", // Cyrillic е
  "\u0430lice/pwned.git", // Cyrillic а
  "alice/pwned\u2215x.git", // division slash
  "alice/pwned/x.git",
  "alice\\..\\bob\\pwned.git",
  "alice/pwned.git.git.",
  "pwned.git.git",
  "alice/.pwned.git",
  "alice/pwned;touch x.git",
  "alice/$(touch pwned).git",
  "alice/pwned`id`.git",
  "alice/pwned\n.git",
  "alice/pwned .git",
  "ALICE/pwned.git",
];

/** Hostile repository names for creation (`POST /api/repos`, `repo new`). */
const HOSTILE_NAMES = [
  "..",
  ".",
  "../pwned",
  "pwned/../../x",
  "/pwned",
  "-pwned",
  "--upload-pack=pwned",
  ".pwned",
  "pwned.",
  "pwned..x",
  "pwned\u0000x",
  "p".repeat(101),
  "pwn\u0435d",
  "pwned x",
  "pwned;x",
  "pwned$x",
  "",
  ".git",
];

/** Every path under `dir`, relative to it. */
async function walk(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    const rel = `${prefix}${e.name}`;
    out.push(rel);
    if (e.isDirectory) out.push(...await walk(`${dir}/${e.name}`, `${rel}/`));
  }
  return out;
}

/** Paths new since `before`, ignoring the live repo's own files and SQLite's side files. */
async function newPaths(server: TestServer, before: Set<string>): Promise<string[]> {
  return (await walk(server.dataDir)).filter((p) =>
    !before.has(p) && !p.startsWith("repos/alice/valid.git/") &&
    !/\.db(-wal|-shm|-journal)?$/.test(p)
  );
}

/** Sends one raw HTTP/1.1 request line so no client normalizes the path; returns the status. */
async function rawStatus(
  server: TestServer,
  method: string,
  target: string,
  headers = "",
): Promise<number> {
  const conn = await RawHttp.open(server.httpPort);
  try {
    await conn.send(
      `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${headers}Content-Length: 0\r\n\r\n`,
    );
    return (await conn.response()).status;
  } finally {
    conn.close();
  }
}

serverTest("hostile paths", {}, async (server, t) => {
  const home = await tempHome();
  const tmpParent = server.dataDir.slice(0, server.dataDir.lastIndexOf("/"));
  const HOSTILE_PATHS = hostilePaths(tmpParent);
  const alice = await createUser(server, "alice");
  await createUser(server, "bob");
  const token = await login(server, alice);
  await createRepo(server, token, "valid");
  const auth = { Authorization: `Basic ${btoa(`alice:${token}`)}` };
  const before = new Set(await walk(server.dataDir));

  await t.step("smart HTTP refuses every hostile path with 4xx (fetch)", async () => {
    for (const p of HOSTILE_PATHS) {
      const enc = p.split("/").map((s) => s === "" ? s : encodeURIComponent(s)).join("/");
      for (
        const [method, suffix] of [
          ["GET", "/info/refs?service=git-upload-pack"],
          ["GET", "/info/refs?service=git-receive-pack"],
          ["POST", "/git-receive-pack"],
          ["POST", "/git-upload-pack"],
        ]
      ) {
        const url = `${server.httpUrl}/${enc.replace(/^\/+/, "")}${suffix}`;
        const res = await fetch(url, {
          method,
          headers: auth,
          body: method === "POST" ? "0000" : undefined,
        });
        await res.body?.cancel();
        assert(res.status >= 400 && res.status < 500, `${method} ${url} -> ${res.status}`);
      }
    }
  });

  await t.step("smart HTTP refuses traversal sent as raw request targets", async () => {
    const h = `Authorization: ${auth.Authorization}\r\n`;
    for (
      const target of [
        "/alice/../bob/pwned.git/info/refs?service=git-upload-pack",
        "/alice/valid.git/../../../etc/passwd",
        "/alice/%2e%2e/%2e%2e/pwned.git/info/refs?service=git-receive-pack",
        "/../../pwned.git/info/refs?service=git-upload-pack",
        "/alice/valid.git/../../bob/pwned.git/git-receive-pack",
        "//alice/valid.git/info/refs?service=git-upload-pack&x=/../../",
        "/alice/valid.git/info/refs?service=--upload-pack=touch%20pwned",
        "/alice/valid.git/info/refs?service=git-upload-pack%00",
        "/alice%00/valid.git/info/refs?service=git-upload-pack",
        "/api/repos/alice/..%2fbob",
        "/api/repos/../admin/invites",
      ]
    ) {
      for (const method of ["GET", "POST", "DELETE"]) {
        const status = await rawStatus(server, method, target, h);
        assert(status >= 400 && status < 500, `${method} ${target} -> ${status}`);
      }
    }
  });

  await t.step("POST /api/repos and DELETE refuse hostile names with 400/404", async () => {
    for (const name of HOSTILE_NAMES) {
      const r = await postJson(`${server.httpUrl}/api/repos`, { name }, {
        Authorization: `Bearer ${token}`,
      });
      assertEquals(r.status, 400, `create ${JSON.stringify(name)}: ${JSON.stringify(r.body)}`);
      assert(typeof r.body.error === "string" && r.body.error.length > 0);
      const del = await fetch(
        `${server.httpUrl}/api/repos/alice/${encodeURIComponent(name)}`,
        { method: "DELETE", headers: { Authorization: `Bearer ${token}` } },
      );
      await del.body?.cancel();
      assert(
        del.status >= 400 && del.status < 500,
        `delete ${JSON.stringify(name)}: ${del.status}`,
      );
    }
  });

  await t.step("SSH git commands refuse hostile paths with a clean one-line error", async () => {
    for (const p of HOSTILE_PATHS) {
      if (p.includes("\u0000") || p.includes("\n")) continue; // argv cannot carry these
      const quoted = `'${p.replaceAll("'", "'\\''")}'`;
      for (const cmd of ["git-upload-pack", "git-receive-pack", "git-upload-archive"]) {
        const r = await ssh(server.sshPort, alice.key, `${cmd} ${quoted}`, { stdin: "" });
        assert(r.code !== 0, `${cmd} ${p} exited 0`);
        const lines = r.stderr.trim().split("\n").filter((l) => l.trim() !== "");
        assertEquals(lines.length, 1, `${cmd} ${p}: ${r.stderr}`);
        assert(!/internal|stack|Error:|at /.test(lines[0]), `${cmd} ${p}: ${lines[0]}`);
      }
    }
    // Unquoted option injection and shell metacharacters in the command line itself.
    for (
      const line of [
        "git-upload-pack --upload-pack=touch alice/valid.git",
        "git-upload-pack alice/valid.git; touch pwned",
        "git-upload-pack alice/valid.git && touch pwned",
        "git-upload-pack $(touch pwned)",
        "git-upload-pack `touch pwned`",
        "git-upload-pack 'alice/valid.git' extra args",
        "touch pwned",
        "sh -c 'touch pwned'",
        "git-upload-pack 'unterminated",
        `git-upload-pack '${"x".repeat(5000)}'`,
      ]
    ) {
      const r = await ssh(server.sshPort, alice.key, line, { stdin: "" });
      assert(r.code !== 0, `${line.slice(0, 60)} exited 0`);
      assert(r.stderr.trim().length > 0, `${line.slice(0, 60)}: no error message`);
    }
  });

  await t.step("SSH `repo new` refuses hostile names", async () => {
    for (const name of HOSTILE_NAMES) {
      if (name.includes("\u0000")) continue;
      const quoted = `'${name.replaceAll("'", "'\\''")}'`;
      const r = await ssh(server.sshPort, alice.key, `repo new ${quoted}`, { stdin: "" });
      assert(r.code !== 0, `repo new ${JSON.stringify(name)} exited 0: ${r.stdout}`);
      assert(r.stderr.trim().length > 0, `repo new ${JSON.stringify(name)}: no error`);
    }
  });

  await t.step("SSH env requests other than a valid GIT_PROTOCOL are ignored", async () => {
    const traceFile = `${home}/trace-pwned.txt`;
    const env = {
      ...gitEnv(home),
      GIT_SSH_COMMAND:
        `${sshCommand(server.sshPort, alice.key)} -o SendEnv=GIT_* -o SendEnv=LD_PRELOAD` +
        ` -o SetEnv="GIT_TRACE=${traceFile} GIT_TRACE_PACKET=${traceFile} LD_PRELOAD=/nonexistent.so GIT_DIR=/etc GIT_CONFIG_PARAMETERS=core.hooksPath=/tmp"`,
    };
    // The listing still works: LD_PRELOAD/GIT_DIR were not applied, GIT_TRACE never reached git.
    const r = await runOk("git", [
      "ls-remote",
      `ssh://git@127.0.0.1:${server.sshPort}/alice/valid.git`,
    ], {
      env,
    });
    assertEquals(r.trim(), "");
    let traced = true;
    try {
      await Deno.stat(traceFile);
    } catch {
      traced = false;
    }
    assert(!traced, "GIT_TRACE from an SSH env request reached git");
    // A malformed GIT_PROTOCOL is dropped: the server answers protocol v0 (no "version 2").
    const bad = await run("git", [
      "-c",
      "protocol.version=0",
      "ls-remote",
      `ssh://git@127.0.0.1:${server.sshPort}/alice/valid.git`,
    ], {
      env: {
        ...env,
        GIT_SSH_COMMAND: `${
          sshCommand(server.sshPort, alice.key)
        } -o 'SetEnv=GIT_PROTOCOL=version=2;x'`,
        GIT_TRACE_PACKET: `${home}/client-trace.txt`,
      },
    });
    assertEquals(bad.code, 0, bad.stderr);
    const clientTrace = await Deno.readTextFile(`${home}/client-trace.txt`);
    assert(!clientTrace.includes("version 2"), "malformed GIT_PROTOCOL reached git");
  });

  await t.step("nothing was created anywhere", async () => {
    assertEquals(await newPaths(server, before), []);
    const outside: string[] = [];
    for await (const e of Deno.readDir(tmpParent)) if (/pwned/.test(e.name)) outside.push(e.name);
    assertEquals(outside, []);
    for (const p of ["/etc/pwned.git", "/tmp/pwned.git", "/pwned.git"]) {
      let exists = true;
      try {
        await Deno.stat(p);
      } catch {
        exists = false;
      }
      assert(!exists, `${p} exists`);
    }
  });
});
