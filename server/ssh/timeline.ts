/**
 * When an SSH connection and its commands reached each step, for the `ssh session` log line's
 * `phase_*` fields (milliseconds between steps): where a transfer's fixed cost goes (bench/RESULTS.md,
 * "Where a git operation's time goes"). Times are `performance.now()` values; 0 = not reached.
 */

/** One connection's steps. */
export interface ConnectionTimeline {
  /** TCP accepted. */
  accepted: number;
  /** The client's identification line arrived (ssh2 reports the connection). */
  identified: number;
  /** Key exchange and authentication done (ssh2's `ready`). */
  authenticated: number;
  /** Time spent in Signet's own authentication code (key checks, look-ups), ms. */
  authMs: number;
  /** Whether a command of this connection already reported the connection's steps. */
  reported: boolean;
}

/** One command's steps. */
export interface CommandMarks {
  /** The exec request arrived. */
  exec: number;
  /** The user behind the key was looked up. */
  user?: number;
  /** The repository was found and held (git commands; begun beside the user's look-up). */
  held?: number;
  /** git was spawned. */
  spawned?: number;
  /** git exited. */
  exited?: number;
}

/** A new connection's timeline, accepted now. */
export function newTimeline(): ConnectionTimeline {
  return {
    accepted: performance.now(),
    identified: 0,
    authenticated: 0,
    authMs: 0,
    reported: false,
  };
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/**
 * The phases of one command (ms), as `phase_<name>` fields: the connection's (ident, handshake,
 * auth, to_exec) on its first command only, then exec to user look-up, to the repository held, to
 * git spawned, git's run, and git's exit to now (the exit status goes out next).
 */
export function phasesOf(
  connection: ConnectionTimeline,
  marks: CommandMarks,
  now = performance.now(),
): Record<string, number> {
  const out: Record<string, number> = {};
  if (!connection.reported && connection.authenticated) {
    connection.reported = true;
    if (connection.identified) {
      out.phase_ident = round(connection.identified - connection.accepted);
      out.phase_handshake = round(connection.authenticated - connection.identified);
    }
    out.phase_auth = round(connection.authMs);
    out.phase_to_exec = round(marks.exec - connection.authenticated);
  }
  let at = marks.exec;
  const step = (name: string, mark: number | undefined) => {
    if (mark === undefined) return;
    out[`phase_${name}`] = round(mark - at);
    at = mark;
  };
  step("user", marks.user);
  step("repo", marks.held);
  step("spawn", marks.spawned);
  step("git", marks.exited);
  out.phase_finish = round(now - at);
  return out;
}
