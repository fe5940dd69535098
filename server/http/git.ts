/** Smart HTTP: git transfers handed to `git http-backend` as CGI, streamed both ways. */
import { Hono } from "hono";
import type { Context } from "hono";
import type { UserRow } from "../../db/users.ts";
import type { Signet } from "../context.ts";
import { authorizeGit, type GitService } from "../domain/access.ts";
import { DomainError } from "../domain/errors.ts";
import { getRepo, recordPush } from "../domain/repos.ts";
import { gitProgram, gitServerEnv } from "../domain/git.ts";
import { clientIp } from "./errors.ts";
import { log } from "../log.ts";
import { userFromAuthorization } from "./auth.ts";
import { gitTransfers } from "../metrics.ts";
import { trackTransfer } from "../transfers.ts";

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
  const env: Record<string, string> = {
    ...gitServerEnv(ctx, c.req.header("Git-Protocol")),
    GIT_PROJECT_ROOT: ctx.config.reposDir,
    GIT_HTTP_EXPORT_ALL: "1",
    PATH_INFO: `/${repo.owner}/${repo.name}.git/${rest}`,
    REQUEST_METHOD: c.req.method,
    QUERY_STRING: new URL(c.req.url).search.slice(1),
    CONTENT_TYPE: c.req.header("Content-Type") ?? "",
    REMOTE_ADDR: clientIp(c),
  };
  const length = c.req.header("Content-Length");
  if (length && /^\d+$/.test(length)) env.CONTENT_LENGTH = length;
  const encoding = c.req.header("Content-Encoding");
  if (encoding) env.HTTP_CONTENT_ENCODING = encoding;
  // REMOTE_USER enables receive-pack in http-backend: set only after the owner check above.
  if (user && service === "git-receive-pack") env.REMOTE_USER = user.username;

  const program = gitProgram("git-http-backend");
  const child = new Deno.Command(program, {
    args: program === "git" ? ["http-backend"] : [],
    env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();

  const body = c.req.raw.body;
  if (body) body.pipeTo(child.stdin).catch(() => {});
  else child.stdin.close();

  const stderr = new Response(child.stderr).text();
  const started = performance.now();
  trackTransfer(child.status.then(async (status) => {
    const ms = Math.round(performance.now() - started);
    const outcome = status.success ? "ok" : "failed";
    if (rest !== "info/refs") {
      gitTransfers.inc({ transport: "http", service, outcome });
      log("info", "git transfer", {
        transport: "http",
        service,
        repo: `${repo.owner}/${repo.name}`,
        user: user?.username ?? null,
        outcome,
        ms,
      });
    }
    const errText = (await stderr).trim();
    if (errText) {
      log("warn", "git http-backend stderr", {
        repo: `${repo.owner}/${repo.name}`,
        stderr: errText.slice(0, 500),
      });
    }
    if (status.success && service === "git-receive-pack" && rest === "git-receive-pack") {
      recordPush(ctx, repo);
    }
  }));

  return await cgiResponse(child.stdout);
}

/** Reads CGI headers from `stdout` and returns a Response streaming the rest of it. */
async function cgiResponse(stdout: ReadableStream<Uint8Array>): Promise<Response> {
  const reader = stdout.getReader();
  let buf = new Uint8Array(0);
  let headerEnd = -1;
  let sepLen = 0;
  while (headerEnd < 0) {
    const { value, done } = await reader.read();
    if (done) break;
    const next = new Uint8Array(buf.length + value.length);
    next.set(buf);
    next.set(value, buf.length);
    buf = next;
    [headerEnd, sepLen] = findHeaderEnd(buf);
  }
  if (headerEnd < 0) {
    return Response.json({ error: "git http-backend produced no response" }, { status: 500 });
  }
  const headers = new Headers();
  let status = 200;
  for (const line of new TextDecoder().decode(buf.subarray(0, headerEnd)).split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === "status") status = parseInt(value, 10) || 200;
    else headers.append(name, value);
  }
  const leftover = buf.subarray(headerEnd + sepLen);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      if (leftover.length) controller.enqueue(leftover);
    },
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel() {
      reader.cancel().catch(() => {});
    },
  });
  const noBody = status === 204 || status === 304;
  return new Response(noBody ? null : stream, { status, headers });
}

function findHeaderEnd(buf: Uint8Array): [number, number] {
  for (let i = 0; i < buf.length - 1; i++) {
    if (buf[i] === 10 && buf[i + 1] === 10) return [i, 2];
    if (buf[i] === 13 && buf[i + 1] === 10 && buf[i + 2] === 13 && buf[i + 3] === 10) return [i, 4];
  }
  return [-1, 0];
}
