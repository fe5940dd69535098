/** The `git` system account the OpenSSH and nginx baselines run as (shell: git-shell). */
import { cmd, cmdOk } from "../util.ts";

/** uid/gid of the baseline account. */
export interface Account {
  name: string;
  uid: number;
  gid: number;
}

const HOME = "/var/lib/signet-bench-git";

async function lookup(name: string): Promise<string[] | null> {
  const r = await cmd("getent", ["passwd", name]);
  return r.code === 0 ? r.stdout.trim().split(":") : null;
}

/**
 * Returns the `git` account, creating it when missing with `git-shell` as its shell and the
 * password field `*` (sshd with `UsePAM no` refuses accounts whose password is locked with `!`).
 * An existing `git` account with another shell is left alone and reported.
 */
export async function ensureGitAccount(): Promise<Account> {
  const shell = (await cmdOk("sh", ["-c", "command -v git-shell"])).stdout.trim();
  let entry = await lookup("git");
  if (!entry) {
    await cmdOk("useradd", ["--system", "--home-dir", HOME, "--shell", shell, "git"]);
    entry = await lookup("git");
    if (!entry) throw new Error("useradd git did not create the account");
  } else if (entry[6] !== shell) {
    throw new Error(
      `a 'git' account exists with shell ${entry[6]}; the bench needs one whose shell is ${shell}`,
    );
  }
  await cmdOk("usermod", ["-p", "*", "git"]);
  const [uid, gid] = [Number(entry[2]), Number(entry[3])];
  await Deno.mkdir(entry[5], { recursive: true });
  await Deno.chown(entry[5], uid, gid);
  return { name: "git", uid, gid };
}

/** Recursively gives `path` to `account` (the baselines write into their repositories). */
export async function chownTree(path: string, account: Account): Promise<void> {
  await cmdOk("chown", ["-R", `${account.uid}:${account.gid}`, path]);
}
