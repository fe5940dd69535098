/**
 * Smart HTTP: the CGI part of `git http-backend` done here (headers, service line, gzip request
 * bodies), the git part by `git upload-pack`/`git receive-pack --stateless-rpc`, streamed both ways.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { UserRow } from "../../db/users.ts";
import type { Signet } from "../context.ts";
import { authorizeGit, type GitService } from "../domain/access.ts";
import { DomainError } from "../domain/errors.ts";
import { getRepo, recordPush, repoDir } from "../domain/repos.ts";
import { gitProgram, gitServerEnv, gitSlots, isProtocolV2 } from "../domain/git.ts";
import { clientIp } from "./errors.ts";
import { log } from "../log.ts";
import { recoverBeforePush } from "../domain/stale_locks.ts";
import { userFromAuthorization } from "./auth.ts";
import { gitTransfers } from "../metrics.ts";
import { trackTransfer } from "../transfers.ts";
import { uploadPackV2Advertisement } from "./advertisement.ts";
import {
  type CloneSource,
  isCloneRequest,
  MAX_CLONE_REQUEST_BYTES,
} from "../domain/clone_cache.ts";
import { answerClone } from "../domain/clones.ts";
import { pumpBody } from "./body_pump.ts";
import { collectText, prepend, readAtMost } from "./streams.ts";

/** Request body bytes held in memory while git catches up; the rest waits in a temp file. */
const BODY_MEMORY_LIMIT = 8 * 1024 * 1024;

const SERVICES = new Set<GitService>(["git-upload-pack", "git-receive-pack"]);

/** Routes `/<owner>/<repo>[.git]/info/refs` and `/<owner>/<repo>[.git]/git-*-pack`. */
export function gitRoutes(ctx: Signet): Hono {
  const app = new Hono();
  app.get("/:owner/:repo/info/refs", (c) => {
    const service = c.req.query("service");
    if (!service || !SERVICES.has(service as GitService)) {
      return c.json({
        error:
          "only the smart HTTP protocol is supported (service=git-upload-pack or git-receive-pack)",
      }, 403);
    }
    return serveGit(ctx, c, service as GitService, "info/refs");
  });
  app.post(
    "/:owner/:repo/git-upload-pack",
    (c) => serveGit(ctx, c, "git-upload-pack", "git-upload-pack"),
  );
  app.post(
    "/:owner/:repo/git-receive-pack",
    (c) => serveGit(ctx, c, "git-receive-pack", "git-receive-pack"),
  );
  return app;
}

async function serveGit(
  ctx: Signet,
  c: Context,
  service: GitService,
  rest: string,
): Promise<Response> {
  const repo = getRepo(ctx, c.req.param("owner")!, c.req.param("repo")!);
  let user: UserRow | undefined;
  try {
    user = await userFromAuthorization(ctx, c.req.header("Authorization"));
    authorizeGit("http", service, repo, user);
  } catch (err) {
    if (err instanceof DomainError && err.kind === "unauthorized") {
      return c.json({ error: err.message }, 401, { "WWW-Authenticate": 'Basic realm="service"' });
    }
    throw err;
  }
  if (service === "git-receive-pack" && rest !== "info/refs") {
    await recoverBeforePush(repoDir(ctx, repo.owner, repo.name));
  }
  const gitProtocol = c.req.header("Git-Protocol");
  const env: Record<string, string> = gitServerEnv(ctx, gitProtocol);
  if (user && service === "git-receive-pack") {
    // What http-backend would set: reflog entries name the pushing user.
    env.GIT_COMMITTER_NAME = user.username;
    env.GIT_COMMITTER_EMAIL = `${user.username}@http.${clientIp(c)}`;
  }
  const dir = repoDir(ctx, repo.owner, repo.name);
  const advertise = rest === "info/refs";
  let input: ReadableStream<Uint8Array> | null = null;
  if (!advertise) {
    const expected = `application/x-git-${service.slice(4)}-request`;
    if (c.req.header("Content-Type") !== expected) {
      return c.json({ error: `Content-Type must be ${expected}` }, 415);
    }
    const encoding = (c.req.header("Content-Encoding") ?? "").toLowerCase();
    if (encoding !== "" && encoding !== "gzip" && encoding !== "x-gzip") {
      return c.json({ error: `unsupported Content-Encoding ${encoding}` }, 415);
    }
    input = c.req.raw.body;
    if (input && encoding) {
      input = input.pipeThrough(
        new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>,
      );
    }
  }

  const headers = {
    "Content-Type": `application/x-git-${service.slice(4)}-${
      advertise ? "advertisement" : "result"
    }`,
    "Cache-Control": "no-cache, max-age=0, must-revalidate",
    "Expires": "Fri, 01 Jan 1980 00:00:00 GMT",
    "Pragma": "no-cache",
  };
  const v2 = isProtocolV2(gitProtocol);
  /** The transfer's metric and log line, once it ended. */
  const transferEnded = (ok: boolean, ms: number, clone?: CloneSource) => {
    const outcome = ok ? "ok" : "failed";
    gitTransfers.inc({ transport: "http", service, outcome });
    log("info", "git transfer", {
      transport: "http",
      service,
      repo: `${repo.owner}/${repo.name}`,
      user: user?.username ?? null,
      outcome,
      ...(clone ? { clone } : {}),
      ms,
    });
  };
  if (advertise && service === "git-upload-pack" && v2) {
    const bytes = await uploadPackV2Advertisement(ctx, dir, env);
    if (bytes) return new Response(bytes as BodyInit, { status: 200, headers });
  }
  if (input && service === "git-upload-pack" && v2) {
    // A clone request is answered whole (and maybe from the clone cache); the rest stream on.
    const head = await readAtMost(input, MAX_CLONE_REQUEST_BYTES);
    if (head.all && isCloneRequest(head.all)) {
      const answer = await answerClone(ctx, repo, head.all, gitProtocol);
      const started = performance.now();
      trackTransfer(answer.done.then((ok) => {
        transferEnded(ok, Math.round(performance.now() - started), answer.source);
      }));
      return new Response(answer.stream, { status: 200, headers });
    }
    input = head.replay;
  }

  // The same processes http-backend would start, minus http-backend itself.
  const release = await gitSlots.acquire();
  const child = new Deno.Command(gitProgram(service), {
    args: ["--stateless-rpc", ...(advertise ? ["--advertise-refs"] : []), dir],
    env,
    clearEnv: true,
    stdin: input ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (input) {
    pumpBody(input, child.stdin, {
      memoryLimit: BODY_MEMORY_LIMIT,
      spillDir: `${ctx.config.dataDir}/tmp`,
    }).catch(() => {});
  }

  const stderr = collectText(child.stderr, 4096);
  const started = performance.now();
  child.status.finally(release);
  trackTransfer(child.status.then(async (status) => {
    if (!advertise) transferEnded(status.success, Math.round(performance.now() - started));
    const errText = (await stderr).trim();
    if (errText) {
      log("warn", "git stderr", {
        repo: `${repo.owner}/${repo.name}`,
        service,
        stderr: errText.slice(0, 500),
      });
    }
    if (service === "git-receive-pack" && !advertise) recordPush(ctx, repo, status.success);
  }));

  // Protocol v0/v1 advertisements start with a service line; v2 has none (as in http-backend).
  const body = advertise && !v2
    ? prepend(new TextEncoder().encode(pktLine(`# service=${service}\n`) + "0000"), child.stdout)
    : child.stdout;
  return new Response(body, { status: 200, headers });
}

function pktLine(text: string): string {
  return (text.length + 4).toString(16).padStart(4, "0") + text;
}
