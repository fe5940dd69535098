/** One SSH session channel: env and pty requests, then an exec (command) or a shell. */
import type { Signet } from "../context.ts";
import { type Ed25519PublicKey, fingerprint } from "../../protocol/ssh/sshkey.ts";
import { findUserBySshKey } from "../domain/accounts.ts";
import { DomainError } from "../../protocol/errors.ts";
import { gitProtocolEnv } from "../domain/git.ts";
import { log } from "../log.ts";
import { sshSessionsActive } from "../metrics.ts";
import type { ActivityTimer } from "./activity.ts";
import { resolveCommand, type ResolvedCommand, UnknownCommandError } from "./commands/index.ts";
import { splitCommandLine } from "./commands/parse.ts";
import { type HeldRepo, type Invocation, UsageError } from "./commands/types.ts";
import { findAndHoldRepo } from "../domain/repo_locks.ts";
import type { RepoPath } from "../../protocol/names.ts";
import { ChannelIO } from "./io.ts";
import { greeting, unregisteredRefusal } from "./messages.ts";
import { runSignup } from "./signup.ts";
import type { ServerChannel, Session } from "./ssh2.ts";
import { type CommandMarks, type ConnectionTimeline, phasesOf } from "./timeline.ts";

/** Most commands one connection may run at the same time. */
export const MAX_COMMANDS_PER_CONNECTION = 10;

/** An authenticated connection, as its sessions see it. */
export interface Peer {
  ctx: Signet;
  key: Ed25519PublicKey;
  remote: string;
  activity: ActivityTimer;
  /** Resolves when the connection is gone. */
  closed: Promise<void>;
  /** When the connection reached each step (for the log's phases). */
  timeline: ConnectionTimeline;
}

/** Serves one session channel of `peer`. */
export function handleSession(peer: Peer, accept: () => Session): void {
  const session = accept();
  // The client sends its first request (env, pty, exec) once our confirmation arrived: the time
  // until then is one round trip, which paces the output (ChannelIO).
  const confirmedAt = performance.now();
  let rttMs: number | null = null;
  const sampleRtt = () => (rttMs ??= performance.now() - confirmedAt);
  let pty = false;
  const env: Record<string, string> = {};
  session.on("pty", (accept, _reject) => {
    sampleRtt();
    pty = true;
    accept?.();
  });
  session.on("window-change", (accept) => accept?.());
  session.on("env", (accept, reject, info) => {
    sampleRtt();
    // Only a well-formed GIT_PROTOCOL is forwarded (to git); everything else is refused.
    const value = info.key === "GIT_PROTOCOL" ? gitProtocolEnv(info.val).GIT_PROTOCOL : undefined;
    if (value === undefined) return reject?.();
    env.GIT_PROTOCOL = value;
    accept?.();
  });
  session.on("exec", (accept, _reject, info) => {
    const io = open(accept(), pty, peer, sampleRtt());
    runExec(peer, io, info.command, env).catch((err) => internalError(io, err));
  });
  session.on("shell", (accept) => {
    const io = open(accept(), pty, peer, sampleRtt());
    runShell(peer, io).catch((err) => internalError(io, err));
  });
}

function open(channel: ServerChannel, pty: boolean, peer: Peer, rttMs: number): ChannelIO {
  const io = new ChannelIO(channel, pty, peer.closed, rttMs);
  sshSessionsActive.inc();
  io.closed.then(() => sshSessionsActive.dec());
  return io;
}

async function runExec(
  peer: Peer,
  io: ChannelIO,
  commandLine: string,
  env: Record<string, string>,
): Promise<void> {
  peer.activity.touch();
  const marks: CommandMarks = { exec: performance.now() };
  const resolved = resolveLine(commandLine);
  const held = holdAhead(peer.ctx, resolved);
  let user;
  try {
    user = await findUserBySshKey(peer.ctx, peer.key.line);
  } catch (err) {
    letGo(held); // e.g. the database is unreachable: the command will not run
    throw err;
  }
  marks.user = performance.now();
  if (!user) {
    letGo(held);
    io.discardInput();
    log("info", "ssh command refused: key not registered", { remote_addr: peer.remote });
    await io.err(unregisteredRefusal(peer.ctx, await fingerprint(peer.key.blob)));
    return io.finish(1);
  }
  if (peer.activity.busy >= MAX_COMMANDS_PER_CONNECTION) {
    letGo(held);
    io.discardInput();
    await io.err("error: too many commands running on this connection\n");
    return io.finish(1);
  }
  const release = peer.activity.hold();
  const started = performance.now();
  try {
    const status = await runCommand({ ctx: peer.ctx, user, io, env, marks, held }, resolved);
    logSession(peer, user.username, commandLine, status, started, marks);
    io.finish(status);
  } finally {
    release();
  }
}

/** A command line's command and arguments, or why it names none (reported by runCommand). */
function resolveLine(commandLine: string): ResolvedCommand | UsageError | UnknownCommandError {
  try {
    return resolveCommand(splitCommandLine(commandLine));
  } catch (err) {
    if (err instanceof UsageError || err instanceof UnknownCommandError) return err;
    throw err;
  }
}

/**
 * Starts finding and holding the repository the command names, before its caller is known: the
 * user's look-up and the repository's then take one database round trip between them, not two.
 * A failure (no such repository, a malformed name) is left for the command to report, and only
 * once the caller is known to be registered.
 */
function holdAhead(
  ctx: Signet,
  resolved: ReturnType<typeof resolveLine>,
): Promise<HeldRepo> | undefined {
  if (resolved instanceof Error) return undefined;
  let path: RepoPath | null | undefined;
  try {
    path = resolved.command.repoToHold?.(resolved.args);
  } catch {
    return undefined; // the command's own check reports it
  }
  if (!path) return undefined;
  const held = findAndHoldRepo(ctx, path.owner, path.name);
  held.catch(() => {}); // awaited (and reported) by the command, or dropped by letGo
  return held;
}

/** Releases a repository held ahead for a command that will not run. */
function letGo(held: Promise<HeldRepo> | undefined): void {
  held?.then((h) => h.release(), () => {});
}

/** Runs one command for `inv.user`; reports failures as one `error:` line on stderr. */
async function runCommand(
  inv: Omit<Invocation, "args">,
  resolved: ReturnType<typeof resolveLine>,
): Promise<number> {
  const { io } = inv;
  let status: number;
  let message: string;
  try {
    if (resolved instanceof Error) throw resolved;
    const { command, args } = resolved;
    if (!command.readsInput) io.discardInput();
    return await command.run({ ...inv, args });
  } catch (err) {
    io.discardInput();
    if (err instanceof UsageError) {
      [status, message] = [2, `usage: ${err.message}`];
    } else if (err instanceof UnknownCommandError) {
      [status, message] = [127, `unknown command "${err.message}"; run help for the list`];
    } else if (err instanceof DomainError) {
      [status, message] = [1, err.message];
    } else {
      throw err;
    }
  }
  await io.err(`error: ${message}\n`);
  return status;
}

async function runShell(peer: Peer, io: ChannelIO): Promise<void> {
  peer.activity.touch();
  const marks: CommandMarks = { exec: performance.now() };
  const user = await findUserBySshKey(peer.ctx, peer.key.line);
  marks.user = performance.now();
  const started = performance.now();
  if (user) {
    io.discardInput();
    await io.out(greeting(peer.ctx, user));
    logSession(peer, user.username, "(shell)", 0, started);
    return io.finish(0);
  }
  const status = await runSignup(peer, io, () => peer.activity.touch());
  logSession(peer, null, "(signup)", status, started);
  io.finish(status);
}

/** One log line per SSH session: who, what (the command line, never input), outcome, duration. */
function logSession(
  peer: Peer,
  user: string | null,
  command: string,
  status: number,
  started: number,
  marks?: CommandMarks,
): void {
  log("info", "ssh session", {
    remote_addr: peer.remote,
    user,
    command: command.replace(/[^\x20-\x7e]/g, "?").slice(0, 120),
    exit_status: status,
    ms: Math.round(performance.now() - started),
    ...(marks ? phasesOf(peer.timeline, marks) : {}),
  });
}

async function internalError(io: ChannelIO, err: unknown): Promise<void> {
  log("error", "ssh command failed", { error: String((err as Error)?.stack ?? err) });
  io.discardInput();
  await io.err("error: internal server error\n");
  io.finish(1);
}
