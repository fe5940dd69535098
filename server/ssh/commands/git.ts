/** `git-upload-pack`, `git-upload-archive`, `git-receive-pack`: git over SSH, streamed both ways. */
import type { ServerChannel } from "../ssh2.ts";
import { authorizeGit, type GitService, isPush } from "../../domain/access.ts";
import { gitServerEnv, gitSlots } from "../../domain/git.ts";
import { parseRepoPath } from "../../domain/names.ts";
import { getRepo, recordPush, repoDir } from "../../domain/repos.ts";
import { recoverBeforePush } from "../../domain/stale_locks.ts";
import { log } from "../../log.ts";
import { gitTransfers } from "../../metrics.ts";
import { trackTransfer } from "../../transfers.ts";
import type { ChannelIO } from "../io.ts";
import type { RepoRow } from "../../../db/repos.ts";
import { isCloneRequest } from "../../domain/clone_cache.ts";
import { answerClone } from "../../domain/clones.ts";
import { isProtocolV2 } from "../../domain/git.ts";
import { type RequestPiece, RequestSplitter } from "../v2_requests.ts";
import { expectArgs, type Invocation, type SshCommand } from "./types.ts";

/** The SSH command that runs `service` on the repository named by its one argument. */
export function gitCommand(service: GitService): SshCommand {
  const command: SshCommand = {
    usage: `${service} '<owner>/<repo>.git'`,
    summary: isPush(service) ? "push (owner only)" : "clone, fetch or archive",
    readsInput: true,
    async run(inv) {
      expectArgs(inv, command, 1, 1);
      const path = parseRepoPath(inv.args[0]);
      const repo = getRepo(inv.ctx, path.owner, path.name);
      authorizeGit("ssh", service, repo, inv.user);
      if (isPush(service)) await recoverBeforePush(repoDir(inv.ctx, repo.owner, repo.name));
      const started = performance.now();
      const done = runGit(inv, service, repo);
      trackTransfer(done);
      const code = await done;
      const outcome = code === 0 ? "ok" : "failed";
      if (isPush(service)) recordPush(inv.ctx, repo, code === 0);
      gitTransfers.inc({ transport: "ssh", service, outcome });
      log("info", "git transfer", {
        transport: "ssh",
        service,
        repo: `${repo.owner}/${repo.name}`,
        user: inv.user.username,
        outcome,
        exit: code,
        ms: Math.round(performance.now() - started),
      });
      return code;
    },
  };
  return command;
}

/** Spawns `git <service> <dir>` and pipes the channel through it; resolves to git's exit code. */
async function runGit(inv: Invocation, service: GitService, repo: RepoRow): Promise<number> {
  // One pool of git processes for every transport (see server/domain/git.ts).
  const release = await gitSlots.acquire();
  try {
    return await runGitProcess(inv, service, repo);
  } finally {
    release();
  }
}

async function runGitProcess(
  inv: Invocation,
  service: GitService,
  repo: RepoRow,
): Promise<number> {
  const child = new Deno.Command("git", {
    args: [service.slice("git-".length), repoDir(inv.ctx, repo.owner, repo.name)],
    env: gitServerEnv(inv.ctx, inv.env.GIT_PROTOCOL),
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let exited = false;
  const kill = () => {
    if (exited) return;
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
  };
  inv.io.closed.then(kill);
  if (service === "git-upload-pack" && isProtocolV2(inv.env.GIT_PROTOCOL)) {
    pumpV2Requests(inv, repo, child.stdin);
  } else pumpInput(inv.io.channel, child.stdin);
  const [outOk, errOk] = await Promise.all([
    pumpOutput(child.stdout, inv.io, "stdout"),
    pumpOutput(child.stderr, inv.io, "stderr"),
  ]);
  if (!outOk || !errOk) kill();
  const status = await child.status;
  exited = true;
  return status.code;
}

/** Feeds what the client sends into git's stdin, pausing the channel while git is behind. */
function pumpInput(channel: ServerChannel, stdin: WritableStream<Uint8Array>): void {
  const writer = stdin.getWriter();
  let broken = false;
  const drop = () => {
    broken = true;
    channel.resume();
  };
  channel.on("data", (chunk: Uint8Array) => {
    if (broken) return;
    writer.write(chunk).catch(drop);
    if (writer.desiredSize !== null && writer.desiredSize <= 0) {
      channel.pause();
      writer.ready.then(() => channel.resume(), drop);
    }
  });
  channel.on("end", () => {
    if (!broken) writer.close().catch(() => {});
  });
}

/**
 * Feeds a v2 session's requests to git's stdin, one at a time, except clone requests: those are
 * answered by answerClone (the clone cache) straight to the channel, while git waits for the next.
 */
function pumpV2Requests(inv: Invocation, repo: RepoRow, stdin: WritableStream<Uint8Array>): void {
  const { channel } = inv.io;
  const writer = stdin.getWriter();
  const splitter = new RequestSplitter();
  let queue = Promise.resolve();
  let broken = false;
  const handle = async (piece: RequestPiece) => {
    if (broken) return;
    if (piece.whole && isCloneRequest(piece.bytes)) {
      // This session's upload-pack holds a git slot and idles meanwhile: git runs in that slot.
      const answer = await answerClone(inv.ctx, repo, piece.bytes, inv.env.GIT_PROTOCOL, true);
      trackTransfer(answer.done);
      if (!await pumpOutput(answer.stream, inv.io, "stdout")) return void (broken = true);
      log("info", "git clone answered", {
        transport: "ssh",
        repo: `${repo.owner}/${repo.name}`,
        user: inv.user.username,
        clone: answer.source,
      });
      return;
    }
    await writer.write(piece.bytes);
  };
  const enqueue = (pieces: RequestPiece[]) => {
    if (pieces.length === 0) return;
    channel.pause();
    for (const piece of pieces) queue = queue.then(() => handle(piece));
    queue = queue.catch(() => {
      broken = true;
      channel.destroy();
    });
    queue.then(() => channel.resume());
  };
  channel.on("data", (chunk: Uint8Array) => enqueue(splitter.push(chunk)));
  channel.on("end", () => {
    enqueue(splitter.end());
    queue.then(() => writer.close()).catch(() => {});
  });
}

/** Copies one of git's output streams to the channel; false when the client went away. */
async function pumpOutput(
  stream: ReadableStream<Uint8Array>,
  io: ChannelIO,
  target: "stdout" | "stderr",
): Promise<boolean> {
  for await (const chunk of stream) {
    if (!await io.write(chunk, target)) return false;
  }
  return true;
}
