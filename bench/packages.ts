/** Installs the Debian packages the baselines need, only when a program is missing. */
import { cmd, haveProgram, progress } from "./util.ts";

/** Program -> Debian package that provides it. */
const NEEDED: [program: string, pkg: string][] = [
  ["/usr/sbin/sshd", "openssh-server"],
  ["ssh", "openssh-client"],
  ["ssh-keygen", "openssh-client"],
  ["/usr/sbin/nginx", "nginx-light"],
  ["/usr/sbin/fcgiwrap", "fcgiwrap"],
  ["wrk", "wrk"],
  ["git", "git"],
  ["git-shell", "git"],
];

/** Makes sure every baseline program exists, running `apt-get install` for the missing ones. */
export async function ensurePackages(): Promise<void> {
  const missing = new Set<string>();
  for (const [program, pkg] of NEEDED) {
    if (!(await haveProgram(program))) missing.add(pkg);
  }
  if (missing.size === 0) return;
  const list = [...missing];
  if (Deno.uid() !== 0) {
    throw new Error(
      `missing programs; install as root: apt-get install -y ${list.join(" ")}`,
    );
  }
  progress(`installing ${list.join(" ")} with apt-get`);
  const env = { ...Deno.env.toObject(), DEBIAN_FRONTEND: "noninteractive" };
  const update = await cmd("apt-get", ["update", "-qq"], { env });
  if (update.code !== 0) throw new Error(`apt-get update failed:\n${update.stderr}`);
  const install = await cmd(
    "apt-get",
    ["install", "-y", "-qq", "--no-install-recommends", ...list],
    { env },
  );
  if (install.code !== 0) throw new Error(`apt-get install failed:\n${install.stderr}`);
  // Debian starts services from postinst where it can; the bench runs its own instances, so stop
  // the system ones it has just brought up (never one that was installed before).
  const services: Record<string, string> = {
    "openssh-server": "ssh",
    "nginx-light": "nginx",
    fcgiwrap: "fcgiwrap",
  };
  for (const pkg of list) {
    const svc = services[pkg];
    if (svc) await cmd("sh", ["-c", `command -v service >/dev/null && service ${svc} stop`]);
  }
}
