/**
 * The thinnest git server Signet's stack allows, as a limit to measure Signet against: ssh2 for
 * SSH (loaded as Signet loads it, with Signet's algorithms and socket handling) and `Deno.serve`
 * for smart HTTP, each running git the way Signet does (the same commands, a cleared environment
 * with the same server-side git configuration, and over HTTP the same cache of protocol v2
 * advertisements, which saves a git process per clone, fetch and ls-remote) and nothing else: no
 * accounts or database, no look-ups, no limits, no logging, no connection guard. One key is
 * accepted over SSH (its signature checked); HTTP is anonymous, pushes included. Repositories are
 * paths under the root directory it is given.
 *
 * `deno run -A bench/baselines/thin_server.ts <root dir> <host key file> <authorized public key line>`
 * prints one line `ssh=<port> http=<port>` once both listen on 127.0.0.1. Bench only.
 */
import { spawn } from "node:child_process";
import { Buffer } from "node:buffer";
import { coalesceWrites } from "../../server/ssh/write_coalescer.ts";
import { listenTcp } from "../../server/ssh/tcp_socket.ts";
import { holdKexInitUntilPeerSpeaks } from "../../server/ssh/kexinit_hold.ts";
import { ALGORITHMS } from "../../server/ssh/algorithms.ts";
import { uploadPackV2Advertisement } from "../../server/http/advertisement.ts";
import { serverGitConfig } from "../../server/domain/git.ts";
import {
  type AuthContext,
  type Connection,
  loadSsh2,
  type ServerChannel,
  type Session,
} from "../../server/ssh/ssh2.ts";

const ssh2 = await loadSsh2();

const [root, hostKeyPath, authorizedLine] = Deno.args;
const authorizedBlob = Buffer.from(authorizedLine.trim().split(/\s+/)[1], "base64");
const authorizedKey = ssh2.utils.parseKey(authorizedBlob);
if (authorizedKey instanceof Error) throw authorizedKey;

const execPath = new TextDecoder().decode(
  new Deno.Command("git", { args: ["--exec-path"], stdout: "piped" }).outputSync().stdout,
).trim();

/** The server-side git configuration Signet gives every git it runs (server/domain/git.ts). */
function gitEnv(protocol: string | null): Record<string, string> {
  const env: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: root,
    GIT_CONFIG_NOSYSTEM: "1",
    ...serverGitConfig(2 ** 31),
  };
  if (protocol) env.GIT_PROTOCOL = protocol;
  return env;
}

/** `git-upload-pack` or `git-receive-pack` and a repository path inside the root, or null. */
function parseGitCommand(
  service: string,
  path: string,
): { service: string; program: string; dir: string } | null {
  if (service !== "git-upload-pack" && service !== "git-receive-pack") return null;
  if (path.includes("..")) return null;
  return { service, program: `${execPath}/${service}`, dir: `${root}/${path.replace(/^\/+/, "")}` };
}

// --- SSH ---

const sshServer = new ssh2.Server({
  hostKeys: [Deno.readTextFileSync(hostKeyPath)],
  algorithms: ALGORITHMS,
  ident: "Thin",
}) as unknown as { injectSocket(s: unknown): void; on(e: string, f: unknown): void };

sshServer.on("connection", (client: Connection) => {
  client.on("error", () => {});
  client.on("authentication", (ctx: AuthContext) => {
    const key = ctx.key;
    if (ctx.method !== "publickey" || !key || !authorizedBlob.equals(key.data)) {
      return ctx.reject(["publickey"]);
    }
    if (!ctx.signature) return ctx.accept();
    const pk = authorizedKey as { verify(d: Uint8Array, s: Uint8Array, h?: string): unknown };
    if (pk.verify(ctx.blob!, ctx.signature, ctx.hashAlgo) === true) ctx.accept();
    else ctx.reject(["publickey"]);
  });
  client.on("session", (accept: () => Session) => {
    let protocol: string | null = null;
    const session = accept();
    session.on("env", (ok, _no, info) => {
      if (info.key === "GIT_PROTOCOL") protocol = info.val;
      ok?.();
    });
    session.on("exec", (acceptExec, reject, info) => {
      const m = /^(git-[a-z-]+) '([^']+)'$/.exec(info.command);
      const target = m && parseGitCommand(m[1], m[2]);
      if (!target) return reject?.();
      const channel: ServerChannel = acceptExec();
      // As Signet runs it over SSH: `git <service> <dir>`, the environment replaced.
      const child = spawn("git", [target.service.slice("git-".length), target.dir], {
        env: gitEnv(protocol),
      });
      for (const stream of [child, child.stdin, child.stdout, child.stderr, channel]) {
        stream.on("error", () => {});
      }
      channel.pipe(child.stdin);
      child.stdout.pipe(channel, { end: false });
      child.stderr.pipe(channel.stderr, { end: false });
      child.on("close", (code: number | null) => {
        channel.exit(code ?? 1);
        channel.end();
      });
    });
  });
});

const tcp = listenTcp({ hostname: "127.0.0.1", port: 0 }, (socket) => {
  socket.setNoDelay(true);
  socket.on("error", () => {});
  coalesceWrites(socket);
  holdKexInitUntilPeerSpeaks(socket);
  sshServer.injectSocket(socket);
});
const sshPort = tcp.port;

// --- smart HTTP ---

const pktLine = (text: string) => (text.length + 4).toString(16).padStart(4, "0") + text;

const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
  const url = new URL(req.url);
  const protocol = req.headers.get("git-protocol");
  const advert = /^(.+\.git)\/info\/refs$/.exec(url.pathname);
  const post = /^(.+\.git)\/(git-upload-pack|git-receive-pack)$/.exec(url.pathname);
  const service = advert ? url.searchParams.get("service") ?? "" : post?.[2] ?? "";
  const target = parseGitCommand(service, (advert ?? post)?.[1] ?? "");
  if (!target || (!advert && req.method !== "POST")) return new Response("no", { status: 404 });
  const args = advert ? ["--stateless-rpc", "--advertise-refs", target.dir] : [
    "--stateless-rpc",
    target.dir,
  ];
  const v2 = /version=2/.test(protocol ?? "");
  const kind = advert ? "advertisement" : "result";
  const headers = {
    "content-type": `application/x-${service}-${kind}`,
    "cache-control": "no-cache",
  };
  if (advert && v2 && service === "git-upload-pack") {
    // Signet's own cache of them (server/http/advertisement.ts); git runs only when it fails.
    const bytes = await uploadPackV2Advertisement(target.dir, gitEnv(protocol));
    if (bytes) return new Response(bytes as BodyInit, { headers });
  }
  const child = new Deno.Command(target.program, {
    args,
    env: gitEnv(protocol),
    clearEnv: true,
    stdin: advert ? "null" : "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  if (!advert) {
    let body = req.body!;
    if (req.headers.get("content-encoding") === "gzip") {
      body = body.pipeThrough(new DecompressionStream("gzip"));
    }
    body.pipeTo(child.stdin).catch(() => {});
  }
  child.status.catch(() => {});
  if (advert && !v2) {
    const head = new TextEncoder().encode(pktLine(`# service=${service}\n`) + "0000");
    const rest = child.stdout;
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(head);
        for await (const chunk of rest) controller.enqueue(chunk);
        controller.close();
      },
    });
    return new Response(stream, { headers });
  }
  return new Response(child.stdout, { headers });
});

console.log(`ssh=${sshPort} http=${http.addr.port}`);
