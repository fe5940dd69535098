/** `git-upload-pack`, `git-upload-archive`, `git-receive-pack`: git over SSH, streamed both ways. */
import type { ServerChannel } from "../ssh2.ts";
import { authorizeGit, type GitService, isPush } from "../../domain/access.ts";
import { gitServerEnv, gitSlots } from "../../domain/git.ts";
import { AdvertisementEnd, SessionSlot } from "../git_slot.ts";
import { parseRepoPath } from "../../../protocol/names.ts";
import { recordPushLater, repoDir } from "../../domain/repos.ts";
import { recoverBeforePush } from "../../domain/stale_locks.ts";
import { findAndHoldRepo } from "../../domain/repo_locks.ts";
import { log } from "../../log.ts";
import { gitTransfers } from "../../metrics.ts";
import { trackTransfer } from "../../transfers.ts";
import type { ChannelIO } from "../io.ts";
import type { RepoRow } from "../../../db/repos.ts";
import { isCloneRequest } from "../../domain/clone_cache.ts";
import { answerClone } from "../../domain/clones.ts";
import { isProtocolV2 } from "../../domain/git.ts";
import { type RequestPiece, RequestSplitter } from "../v2_requests.ts";
import { expectArgs, type HeldRepo, type Invocation, type SshCommand } from "./types.ts";

/** The SSH command that runs `service` on the repository named by its one argument. */
export function gitCommand(service: GitService): SshCommand {
  const command: SshCommand = {
    usage: `${service} '<owner>/<repo>.git'`,
    summary: isPush(service) ? "push (owner only)" : "clone, fetch or archive",
    readsInput: true,
    repoToHold: (args) => args.length === 1 ? parseRepoPath(args[0]) : null,
    async run(inv) {
      // The repository stays while git runs: a delete (on any instance) waits, or refused us.
      const { repo, release } = await (inv.held ?? holdNamedRepo(inv, command));
      inv.marks.held = performance.now();
      let code: number;
      const started = performance.now();
      try {
        authorizeGit("ssh", service, repo, inv.user);
        if (isPush(service)) await recoverBeforePush(repoDir(inv.ctx, repo.owner, repo.name));
        const done = runGit(inv, service, repo);
        trackTransfer(done);
        code = await done;
      } finally {
        release();
      }
      const outcome = code === 0 ? "ok" : "failed";
      // The client gets its exit status at once; the push's bookkeeping follows.
      if (isPush(service)) recordPushLater(inv.ctx, repo, code === 0);
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

/** Checks the one argument, then finds and holds the repository it names. */
function holdNamedRepo(inv: Invocation, command: SshCommand): Promise<HeldRepo> {
  expectArgs(inv, command, 1, 1);
  const path = parseRepoPath(inv.args[0]);
  return findAndHoldRepo(inv.ctx, path.owner, path.name);
}

/**
 * Spawns `git <service> <dir>` and pipes the channel through it; resolves to git's exit code. The
 * session holds a git slot only while git has work (see SessionSlot): to start git and send its
 * advertisement, and from the client's next bytes until the session falls silent again.
 */
async function runGit(inv: Invocation, service: GitService, repo: RepoRow): Promise<number> {
  const idleMs = inv.ctx.config.sshGitIdleTimeoutMs;
  let idle = false;
  let kill = () => {};
  // One pool of git processes for every transport (see server/domain/git.ts); one user holds at
  // most its share.
  const slot = new SessionSlot(gitSlots(inv.ctx), [`user:${inv.user.id}`], {
    idleTimeoutMs: idleMs,
    onIdle: () => {
      idle = true;
      log("info", "ssh git idle timeout", { user: inv.user.username, service });
      inv.io.err(`error: the git session was idle for ${idleMs / 1000} s; closing it\n`);
      kill();
      // A client that stopped reading never takes the rest of git's output: close under it.
      setTimeout(() => {
        if (!inv.io.isClosed) inv.io.channel.destroy();
      }, 5_000);
    },
  });
  try {
    await slot.take();
    if (inv.io.isClosed) return 1;
    const code = await runGitProcess(inv, service, repo, slot, (k) => (kill = k));
    return idle ? 1 : code;
  } finally {
    slot.stop();
  }
}

async function runGitProcess(
  inv: Invocation,
  service: GitService,
  repo: RepoRow,
  slot: SessionSlot,
  onKill: (kill: () => void) => void,
): Promise<number> {
  const child = new Deno.Command("git", {
    args: [service.slice("git-".length), repoDir(inv.ctx, repo.owner, repo.name)],
    env: gitServerEnv(inv.ctx, inv.env.GIT_PROTOCOL),
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  inv.marks.spawned = performance.now();
  let exited = false;
  const kill = () => {
    if (exited) return;
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
  };
  onKill(kill);
  inv.io.closed.then(kill);
  // Until the client's first bytes, git's only work is its advertisement (upload-archive has
  // none): once that is out, git waits for the client and the slot is given back.
  let clientSpoke = false;
  const advertisement = new AdvertisementEnd();
  let advertised = service === "git-upload-archive";
  if (advertised) slot.park();
  const watchStdout = (chunk: Uint8Array) => {
    if (!advertised && advertisement.push(chunk)) {
      advertised = true;
      if (!clientSpoke) slot.park();
    }
  };
  const spoke = () => (clientSpoke = true);
  if (service === "git-upload-pack" && isProtocolV2(inv.env.GIT_PROTOCOL)) {
    pumpV2Requests(inv, repo, child.stdin, slot, spoke);
  } else pumpInput(inv.io.channel, child.stdin, slot, spoke);
  const [outOk, errOk] = await Promise.all([
    pumpOutput(child.stdout, inv.io, "stdout", slot, watchStdout),
    pumpOutput(child.stderr, inv.io, "stderr", slot),
  ]);
  if (!outOk || !errOk) kill();
  const status = await child.status;
  exited = true;
  inv.marks.exited = performance.now();
  return status.code;
}

/**
 * Feeds what the client sends into git's stdin, pausing the channel while git is behind, and while
 * the session takes a git slot again before bytes after a silence reach git.
 */
function pumpInput(
  channel: ServerChannel,
  stdin: WritableStream<Uint8Array>,
  slot: SessionSlot,
  spoke: () => void,
): void {
  const writer = stdin.getWriter();
  let broken = false;
  const drop = () => {
    broken = true;
    channel.resume();
  };
  /** Chunks held back while a slot is being taken (null: none is). */
  let held: Uint8Array[] | null = null;
  let ended = false;
  const forward = (chunk: Uint8Array) => {
    if (broken) return;
    writer.write(chunk).catch(drop);
  };
  const resume = () => {
    if (writer.desiredSize !== null && writer.desiredSize <= 0) {
      channel.pause();
      writer.ready.then(() => channel.resume(), drop);
    } else channel.resume();
  };
  channel.on("data", (chunk: Uint8Array) => {
    if (broken) return;
    spoke();
    slot.activity();
    if (held) return void held.push(chunk);
    if (!slot.held) {
      held = [chunk];
      channel.pause();
      slot.take().then(() => {
        for (const c of held!) forward(c);
        held = null;
        if (ended) writer.close().catch(() => {});
        else resume();
      });
      return;
    }
    forward(chunk);
    if (writer.desiredSize !== null && writer.desiredSize <= 0) {
      channel.pause();
      writer.ready.then(() => channel.resume(), drop);
    }
  });
  channel.on("end", () => {
    ended = true;
    if (!broken && !held) writer.close().catch(() => {});
  });
}

/**
 * Feeds a v2 session's requests to git's stdin, one at a time, except clone requests: those are
 * answered by answerClone (the clone cache) straight to the channel, while git waits for the next.
 * Each request is handled in the session's git slot, taken again if the session had given it back.
 */
function pumpV2Requests(
  inv: Invocation,
  repo: RepoRow,
  stdin: WritableStream<Uint8Array>,
  slot: SessionSlot,
  spoke: () => void,
): void {
  const { channel } = inv.io;
  const writer = stdin.getWriter();
  const splitter = new RequestSplitter();
  let queue = Promise.resolve();
  let broken = false;
  const handle = async (piece: RequestPiece) => {
    if (broken) return;
    await slot.take();
    if (piece.whole && isCloneRequest(piece.bytes)) {
      // git for it runs in this session's slot, which the session holds now.
      const answer = await answerClone(inv.ctx, repo, piece.bytes, inv.env.GIT_PROTOCOL, true);
      trackTransfer(answer.done);
      if (!await pumpOutput(answer.stream, inv.io, "stdout", slot)) return void (broken = true);
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
  channel.on("data", (chunk: Uint8Array) => {
    spoke();
    slot.activity();
    enqueue(splitter.push(chunk));
  });
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
  slot: SessionSlot,
  watch?: (chunk: Uint8Array) => void,
): Promise<boolean> {
  for await (const chunk of stream) {
    watch?.(chunk);
    slot.activity();
    if (!await io.write(chunk, target)) return false;
    slot.activity();
  }
  return true;
}
