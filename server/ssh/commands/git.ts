/** `git-upload-pack`, `git-upload-archive`, `git-receive-pack`: git over SSH, streamed both ways. */
import type { ServerChannel } from "../ssh2.ts";
import { authorizeGit, type GitService, isPush } from "../../domain/access.ts";
import { gitServerEnv, gitSlots } from "../../domain/git.ts";
import { parseRepoPath } from "../../domain/names.ts";
import { getRepo, recordPush, repoDir } from "../../domain/repos.ts";
import { log } from "../../log.ts";
import { gitTransfers } from "../../metrics.ts";
import { trackTransfer } from "../../transfers.ts";
import type { ChannelIO } from "../io.ts";
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
      const started = performance.now();
      const done = runGit(inv, service, repoDir(inv.ctx, repo.owner, repo.name));
      trackTransfer(done);
      const code = await done;
      const outcome = code === 0 ? "ok" : "failed";
      if (code === 0 && isPush(service)) recordPush(inv.ctx, repo);
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
async function runGit(inv: Invocation, service: GitService, dir: string): Promise<number> {
  // One pool of git processes for every transport (see server/domain/git.ts).
  const release = await gitSlots.acquire();
  try {
    return await runGitProcess(inv, service, dir);
  } finally {
    release();
  }
}

async function runGitProcess(inv: Invocation, service: GitService, dir: string): Promise<number> {
  const child = new Deno.Command("git", {
    args: [service.slice("git-".length), dir],
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
  pumpInput(inv.io.channel, child.stdin);
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
