/** Lower bound: git over a `file://` URL (no network, no server process of ours). */
import type { RepoName, Transport } from "../transport.ts";

/** The `file://` transport for repositories under `reposDir`. */
export function fileTransport(reposDir: string): Transport {
  return {
    id: "file",
    label: "git over file:// (lower bound)",
    kind: "file",
    url: (repo: RepoName) => `file://${reposDir}/${repo}.git`,
    env: {},
    gitArgs: [],
    server: null,
  };
}
