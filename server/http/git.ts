/**
 * Smart HTTP: the CGI part of `git http-backend` done here (headers, service line, gzip request
 * bodies), the git part by `git upload-pack`/`git receive-pack --stateless-rpc`, streamed both ways.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { UserRow } from "../../db/users.ts";
import type { Signet } from "../context.ts";
import { authorizeGit, type GitService } from "../domain/access.ts";
import { DomainError } from "../../protocol/errors.ts";
import { recordPushLater, repoDir } from "../domain/repos.ts";
import { findAndHoldRepo, holdRepoName } from "../domain/repo_locks.ts";
import { validateRepoName, validateUsername } from "../../protocol/names.ts";
import type { RepoRow } from "../../db/repos.ts";
import { gitProgram, gitServerEnv, gitSlots, isProtocolV2 } from "../domain/git.ts";
import { clientIp } from "./client_address.ts";
import { log } from "../log.ts";
import { recoverBeforePush } from "../domain/stale_locks.ts";
import { userFromAuthorization } from "./auth.ts";
import { gitTransfers } from "../metrics.ts";
import { trackTransfer } from "../transfers.ts";
import { uploadPackV2Advertisement } from "./advertisement.ts";
import { type CloneSource, isCloneRequest } from "../domain/clone_cache.ts";
import { answerClone } from "../domain/clones.ts";
import { BodyPump } from "./body_pump.ts";
import { BodyError, type BodyRate } from "./body_read.ts";
import { gunzip, readWholeBody } from "./whole_body.ts";
import { onError } from "./errors.ts";
import { collectText, minimumReadRate, prepend } from "./streams.ts";

/** Request body bytes held in memory while git catches up; the rest waits in a temp file. */
const BODY_MEMORY_LIMIT = 8 * 1024 * 1024;

/**
 * Largest upload-pack request, as sent and inflated: git's own http-backend buffers an upload-pack
 * request whole before it starts upload-pack and refuses one over 10 MB
 * (GIT_HTTP_MAX_REQUEST_BUFFER), and git's client gzips only requests within its 1 MiB post buffer.
 */
export const MAX_UPLOAD_REQUEST_BYTES = 10 * 1024 * 1024;

/**
 * A push's body bytes read before it takes a git slot (all of a smaller one): git's client sends a
 * body of up to its 1 MiB post buffer in one piece, and streams a larger one on at once.
 */
const PUSH_HEAD_BYTES = 1024 * 1024;

const SERVICES = new Set<GitService>(["git-upload-pack", "git-receive-pack"]);

/** Routes `/<owner>/<repo>[.git]/info/refs` and `/<owner>/<repo>[.git]/git-*-pack`. */
export function gitRoutes(ctx: Signet): Hono {
  const app = new Hono();
  app.get(
    "/:owner/:repo/info/refs",
    answeringGit((c) => {
      const service = c.req.query("service");
      if (!service || !SERVICES.has(service as GitService)) {
        return c.json({
          error:
            "only the smart HTTP protocol is supported (service=git-upload-pack or git-receive-pack)",
        }, 403);
      }
      return serveGit(ctx, c, service as GitService, "info/refs");
    }),
  );
  app.post(
    "/:owner/:repo/git-upload-pack",
    answeringGit((c) => serveGit(ctx, c, "git-upload-pack", "git-upload-pack")),
  );
  app.post(
    "/:owner/:repo/git-receive-pack",
    answeringGit((c) => serveGit(ctx, c, "git-receive-pack", "git-receive-pack")),
  );
  return app;
}

/**
 * `handler`, its refusals answered for git: a missing or bad credential with the Basic challenge
 * git's credential helper answers; and when git asked, the message as one line of text, since git
 * shows the body of a refused request only when it is plain text (as `remote: <line>`, before its
 * own message). Other clients keep the JSON `{"error"}` of every other route.
 */
function answeringGit(
  handler: (c: Context) => Response | Promise<Response>,
): (c: Context) => Promise<Response> {
  return async (c) => {
    let res: Response;
    try {
      res = await handler(c);
    } catch (err) {
      res = err instanceof DomainError && err.kind === "unauthorized"
        ? unauthorized(c, err.message)
        : onError(err instanceof Error ? err : new Error(String(err)), c);
    }
    if (c.req.method === "HEAD") {
      // Hono answers HEAD with the GET route and drops its body unread: cancel it, so that git
      // (which would wait on a full pipe) ends and gives back its slot and the repository.
      await res.body?.cancel().catch(() => {});
      return new Response(null, { status: res.status, headers: res.headers });
    }
    const fromGit = (c.req.header("User-Agent") ?? "").startsWith("git/");
    const json = res.headers.get("Content-Type")?.startsWith("application/json") ?? false;
    if (res.status < 400 || !fromGit || !json) return res;
    const { error } = await res.json() as { error: string };
    const headers = new Headers(res.headers);
    headers.set("Content-Type", "text/plain; charset=utf-8");
    headers.delete("Content-Length");
    return new Response(`${error}\n`, { status: res.status, headers });
  };
}

async function serveGit(
  ctx: Signet,
  c: Context,
  service: GitService,
  rest: string,
): Promise<Response> {
  const arrived = performance.now();
  if (service === "git-receive-pack" && !c.req.header("Authorization")) {
    // git's first push request carries no credentials: it is answered without a look-up, as
    // whether the repository exists is told only to a caller who could push to it.
    validateUsername(c.req.param("owner")!);
    validateRepoName(c.req.param("repo")!);
    return unauthorized(c, "pushing requires credentials");
  }
  if (service === "git-upload-pack" || rest === "info/refs") {
    // Anyone may read any repository over HTTP, and a push's advertisement only lists its refs,
    // so neither waits for its look-ups: with the name held, git starts (or the advertisement is
    // read) while the row and the caller are looked up, and is stopped, its output unsent, when
    // either refuses (docs/decisions/git-hosting.md).
    const owner = validateUsername(c.req.param("owner")!);
    const name = validateRepoName(c.req.param("repo")!);
    const held = await holdRepoName(ctx, owner, name);
    if (held) {
      const ready = lookUp(service, held.find(), ctx, c);
      ready.catch(() => {}); // awaited below; a refusal is answered from there
      const transfer = { owner, name, ready, release: held.release };
      return await serveHolding(ctx, c, service, rest, transfer, arrived);
    }
  }
  // The repository is found and held while the caller is looked up (on a database server, one
  // round trip of wait instead of three). The repository stays while git runs: a delete (on any
  // instance) waits, or refused us.
  const holding = findAndHoldRepo(ctx, c.req.param("owner")!, c.req.param("repo")!);
  const ready = lookUp(service, holding.then((h) => h.repo), ctx, c);
  try {
    await ready;
  } catch (err) {
    holding.then((h) => h.release(), () => {});
    throw err;
  }
  const { repo, release } = await holding;
  const transfer = { owner: repo.owner, name: repo.name, ready, release };
  return await serveHolding(ctx, c, service, rest, transfer, arrived);
}

/** What a git request's look-ups found: its repository's row and the caller, allowed. */
interface Allowed {
  repo: RepoRow;
  user: UserRow | undefined;
}

/**
 * The repository `row` (being read) and the caller (looked up beside it), once allowed: a missing
 * repository is refused first, then bad credentials, then a caller who may not.
 */
async function lookUp(
  service: GitService,
  row: Promise<RepoRow>,
  ctx: Signet,
  c: Context,
): Promise<Allowed> {
  const [found, caller] = await Promise.allSettled([
    row,
    userFromAuthorization(ctx, c.req.header("Authorization")),
  ]);
  if (found.status === "rejected") throw found.reason;
  if (caller.status === "rejected") throw caller.reason;
  authorizeGit("http", service, found.value, caller.value);
  return { repo: found.value, user: caller.value };
}

/**
 * A git request's repository, held: its name, what its look-ups found (still under way for a
 * read), and the end of the hold.
 */
interface HeldTransfer {
  owner: string;
  name: string;
  ready: Promise<Allowed>;
  release: () => void;
}

/** Serves a held request; the hold ends with the response, or once git is done when it streams. */
async function serveHolding(
  ctx: Signet,
  c: Context,
  service: GitService,
  rest: string,
  transfer: HeldTransfer,
  arrived: number,
): Promise<Response> {
  let kept = false;
  const keepUntil = (ended: Promise<unknown>) => {
    kept = true;
    ended.finally(transfer.release);
  };
  try {
    const marks = { arrived, held: performance.now() };
    return await serveHeld(ctx, c, service, rest, transfer, keepUntil, marks);
  } finally {
    if (!kept) transfer.release();
  }
}

/**
 * The rest of serveGit, holding the repository: `keepUntil` keeps holding it until the given
 * promise settles (a response git is still streaming); otherwise the hold ends on return. Every
 * answer waits for the row, so a missing repository is answered as such whatever else is wrong.
 */
async function serveHeld(
  ctx: Signet,
  c: Context,
  service: GitService,
  rest: string,
  transfer: HeldTransfer,
  keepUntil: (ended: Promise<unknown>) => void,
  marks: { arrived: number; held: number; spawned?: number },
): Promise<Response> {
  const { owner, name } = transfer;
  const refuse = async (response: Response) => {
    await transfer.ready;
    return response;
  };
  // A push was allowed before it came here; a read's (and an advertisement's) caller is known
  // once git runs.
  const pushing = service === "git-receive-pack" && rest !== "info/refs";
  let user = pushing ? (await transfer.ready).user : undefined;
  if (pushing) await recoverBeforePush(repoDir(ctx, owner, name));
  const gitProtocol = c.req.header("Git-Protocol");
  const env: Record<string, string> = gitServerEnv(ctx, gitProtocol);
  if (user && pushing) {
    // What http-backend would set: reflog entries name the pushing user.
    env.GIT_COMMITTER_NAME = user.username;
    env.GIT_COMMITTER_EMAIL = `${user.username}@http.${clientIp(c)}`;
  }
  const dir = repoDir(ctx, owner, name);
  const advertise = rest === "info/refs";
  let gzip = false;
  if (!advertise) {
    const expected = `application/x-git-${service.slice(4)}-request`;
    if (c.req.header("Content-Type") !== expected) {
      return await refuse(c.json({ error: `Content-Type must be ${expected}` }, 415));
    }
    const encoding = (c.req.header("Content-Encoding") ?? "").toLowerCase();
    if (encoding !== "" && encoding !== "gzip" && encoding !== "x-gzip") {
      return await refuse(c.json({ error: `unsupported Content-Encoding ${encoding}` }, 415));
    }
    gzip = encoding !== "";
  }
  const rate: BodyRate = {
    bytesPerSecond: ctx.config.httpBodyMinRate,
    windowMs: ctx.config.httpBodyTimeoutMs,
  };
  // One client holds at most its share of git slots: by address, and a pusher by account too (a
  // read's credentials allow nothing that an anonymous read does not, so reads and advertisements
  // count by address).
  const slotKeys = [`ip:${clientIp(c)}`, ...(user ? [`user:${user.id}`] : [])];

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
    const ended = performance.now();
    const round = (x: number) => Math.round(x * 100) / 100;
    // Where the request's time went (ms): looking up and holding the repository, reading the body
    // and waiting for a git slot, spawning git, git's run (bench/RESULTS.md's breakdown).
    const phases = {
      phase_lookup: round(marks.held - marks.arrived),
      ...(marks.spawned === undefined ? {} : {
        phase_start: round(marks.spawned - marks.held),
        phase_git: round(ended - marks.spawned),
      }),
    };
    gitTransfers.inc({ transport: "http", service, outcome });
    log("info", "git transfer", {
      transport: "http",
      service,
      repo: `${owner}/${name}`,
      user: user?.username ?? null,
      outcome,
      ...(clone ? { clone } : {}),
      ms,
      ...phases,
    });
  };
  if (advertise && service === "git-upload-pack" && v2) {
    // Both settle before the answer: the hold ends only once git (on a cache miss) is done.
    const [read, allowed] = await Promise.allSettled([
      uploadPackV2Advertisement(dir, env),
      transfer.ready,
    ]);
    if (allowed.status === "rejected") throw allowed.reason;
    if (read.status === "rejected") throw read.reason;
    if (read.value) return new Response(read.value as BodyInit, { status: 200, headers });
  }
  // A git slot is taken only once git has work: an upload-pack request is read whole first (a
  // few KB; git's http-backend does the same), a push's body once its first megabyte arrived.
  let request: Uint8Array | null = null;
  let pump: BodyPump | null = null;
  const body = c.req.raw.body;
  if (!advertise && service === "git-upload-pack") {
    const length = Number(c.req.header("Content-Length") ?? 0);
    if (length > MAX_UPLOAD_REQUEST_BYTES) {
      await body?.cancel().catch(() => {});
      return await refuse(bodyRefused(c, 413, bodyTooLarge()));
    }
    // A refusal stops the read: the name stays held only while the body is read, and a request
    // for a name being deleted or created must not hold it for as long as its client dawdles.
    const refused = new AbortController();
    transfer.ready.catch(() => refused.abort());
    try {
      request = body
        ? await readWholeBody(body, {
          maxBytes: MAX_UPLOAD_REQUEST_BYTES,
          gzip,
          rate,
          signal: refused.signal,
        })
        : new Uint8Array(0);
    } catch (err) {
      if (err instanceof BodyError) return await refuse(bodyRefused(c, err.status, err.message));
      throw err;
    }
    if (v2 && isCloneRequest(request)) {
      // A clone request is answered whole (and maybe from the clone cache).
      const allowed = await transfer.ready;
      user = allowed.user;
      const answer = await answerClone(ctx, allowed.repo, request, gitProtocol);
      keepUntil(answer.done);
      const started = performance.now();
      trackTransfer(answer.done.then((ok) => {
        transferEnded(ok, Math.round(performance.now() - started), answer.source);
      }));
      return new Response(answer.stream, { status: 200, headers });
    }
  } else if (!advertise && body) {
    pump = new BodyPump(
      gzip ? gunzip(body) : body,
      {
        memoryLimit: BODY_MEMORY_LIMIT,
        spillDir: `${ctx.config.instanceDir}/tmp`,
        // The pack (git enforces SERVICE_MAX_PUSH_BYTES on it) and its ref update commands.
        maxBytes: ctx.config.maxPushBytes + MAX_UPLOAD_REQUEST_BYTES,
        rate,
      },
    );
    try {
      await pump.waitFor(PUSH_HEAD_BYTES);
    } catch (err) {
      await pump.cancel();
      if (err instanceof BodyError) return bodyRefused(c, err.status, err.message);
      return bodyRefused(c, 400, "request body could not be read");
    }
  }

  // The same processes http-backend would start, minus http-backend itself. A refusal that comes
  // while the slot is awaited is answered at once.
  const release = await slotUnlessRefused(gitSlots(ctx).acquire(slotKeys), transfer.ready);
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(gitProgram(service), {
      args: ["--stateless-rpc", ...(advertise ? ["--advertise-refs"] : []), dir],
      env,
      clearEnv: true,
      stdin: advertise ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    marks.spawned = performance.now();
  } catch (err) {
    release();
    await pump?.cancel();
    throw err;
  }
  child.status.finally(release);
  if (pump) pump.drain(child.stdin).catch(() => {});
  else if (request) {
    const writer = child.stdin.getWriter();
    writer.write(request).then(() => writer.close()).catch(() => {});
  }
  let repo: RepoRow;
  try {
    ({ repo, user } = await transfer.ready);
  } catch (err) {
    // Refused after all (no such repository, bad credentials): git's work goes unsent.
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
    await Promise.allSettled([child.stdout.cancel(), child.stderr.cancel(), pump?.cancel()]);
    throw err;
  }

  keepUntil(child.status);
  const stderr = collectText(child.stderr, 4096);
  const started = performance.now();
  trackTransfer(child.status.then(async (status) => {
    if (!advertise) transferEnded(status.success, Math.round(performance.now() - started));
    const errText = (await stderr).trim();
    if (errText) {
      log("warn", "git stderr", {
        repo: `${owner}/${name}`,
        service,
        stderr: errText.slice(0, 500),
      });
    }
    if (service === "git-receive-pack" && !advertise) recordPushLater(ctx, repo, status.success);
  }));

  // Protocol v0/v1 advertisements start with a service line; v2 has none (as in http-backend).
  const stdout = advertise && !v2
    ? prepend(new TextEncoder().encode(pktLine(`# service=${service}\n`) + "0000"), child.stdout)
    : child.stdout;
  // git waits for a client that reads its response slowly, in its slot: such a client is cut off.
  const output = minimumReadRate(stdout, rate, () => {
    log("info", "git response read too slowly", {
      repo: `${owner}/${name}`,
      service,
      remote_addr: clientIp(c),
    });
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
  });
  return new Response(output, { status: 200, headers });
}

/**
 * The git slot `acquiring` grants, unless `ready` (the request's look-ups) refuses first: then its
 * refusal is thrown, and the slot, once granted, is given back at once.
 */
async function slotUnlessRefused(
  acquiring: Promise<() => void>,
  ready: Promise<unknown>,
): Promise<() => void> {
  const refused = ready.then(() => new Promise<never>(() => {}));
  try {
    return await Promise.race([acquiring, refused]);
  } catch (err) {
    acquiring.then((release) => release());
    throw err;
  }
}

/** 401 with the challenge git answers with credentials. */
function unauthorized(c: Context, error: string): Response {
  return c.json({ error }, 401, { "WWW-Authenticate": 'Basic realm="service"' });
}

/** A refused request body's JSON error; the connection closes (the rest of the body is unread). */
function bodyRefused(c: Context, status: 400 | 408 | 413, error: string): Response {
  return c.json({ error }, status, { Connection: "close" });
}

function bodyTooLarge(): string {
  return `request body over the limit of ${MAX_UPLOAD_REQUEST_BYTES} bytes`;
}

function pktLine(text: string): string {
  return (text.length + 4).toString(16).padStart(4, "0") + text;
}
