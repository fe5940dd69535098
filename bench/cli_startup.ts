/**
 * CLI start-up: wall time of `signet credential get` (what every `git push` through `signet clone`
 * runs) and `signet whoami`, from source exactly as git runs the helper (client/self.ts), each
 * with one API call to a running Signet, against `deno run` of an empty file in the same rounds.
 *
 * Part of `deno task bench`; runs alone too, with a server of its own:
 * `deno run -A bench/cli_startup.ts [--runs N]` prints the table and the goal.
 */
import { parseArgs } from "node:util";
import { createUser, login } from "../testing/accounts.ts";
import type { LaunchedServer } from "../testing/launch.ts";
import { selfCommand } from "../client/self.ts";
import { cmd, fmt, fmtRatio, median } from "./util.ts";

/** What one command's runs took, in ms, in run order. */
export interface StartupSample {
  name: string;
  command: string;
  samples: number[];
}

/** The CLI start-up measurements of one run. */
export interface CliStartup {
  rounds: number;
  /** `deno run` of an empty file, then the Signet commands. */
  empty: StartupSample;
  /** `deno run` of a file that makes one `fetch` to the server: any client's floor here. */
  oneFetch?: StartupSample;
  commands: StartupSample[];
}

/** The goal for each Signet command's median, in ms (issue 23, on the 2-core bench machine). */
export const CLI_STARTUP_GOAL_MS = 40;

/**
 * Runs `rounds` rounds of: an empty `deno run`, `signet credential get` for a repository of a
 * user whose valid token is stored, `signet whoami`; after 2 untimed rounds (compile caches).
 */
export async function measureCliStartup(
  server: LaunchedServer,
  rounds: number,
): Promise<CliStartup> {
  const work = await Deno.makeTempDir({ prefix: "signet-cli-startup-" });
  try {
    const user = await createUser(server, `startup${Date.now() % 1_000_000}`);
    const token = await login(server, user);
    const configDir = `${work}/home/.config/signet`;
    await Deno.mkdir(configDir, { recursive: true, mode: 0o700 });
    await Deno.writeTextFile(
      `${configDir}/config.json`,
      JSON.stringify({ host: server.httpUrl, username: user.username, token }),
      { mode: 0o600 },
    );
    const emptyFile = `${work}/empty.ts`;
    await Deno.writeTextFile(emptyFile, "");
    const fetchFile = `${work}/one_fetch.ts`;
    await Deno.writeTextFile(
      fetchFile,
      `console.log(await (await fetch(${JSON.stringify(`${server.httpUrl}/api/health`)})).text());`,
    );
    const env = { HOME: `${work}/home`, PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" };
    const [program, ...selfArgs] = selfCommand();
    const host = new URL(server.httpUrl).host;
    const runs = [
      {
        name: "deno run of an empty file",
        command: "deno run -A --quiet --no-config empty.ts",
        args: ["run", "-A", "--quiet", "--no-config", emptyFile],
        stdin: undefined,
        expect: "",
      },
      {
        name: "deno run of one fetch",
        command: "deno run -A --quiet --no-config one_fetch.ts (GET /api/health)",
        args: ["run", "-A", "--quiet", "--no-config", fetchFile],
        stdin: undefined,
        expect: "ok",
      },
      {
        name: "signet credential get",
        command: "signet credential get (stored token, checked with GET /api/user)",
        args: [...selfArgs, "credential", "get"],
        stdin: `protocol=http\nhost=${host}\npath=${user.username}/x.git\n\n`,
        expect: `password=${token}`,
      },
      {
        name: "signet whoami",
        command: "signet whoami (GET /api/user)",
        args: [...selfArgs, "whoami"],
        stdin: undefined,
        expect: user.username,
      },
    ];
    const samples = runs.map(() => [] as number[]);
    for (let round = -2; round < rounds; round++) {
      for (const [i, r] of runs.entries()) {
        const out = await cmd(program, r.args, { env, stdin: r.stdin });
        if (out.code !== 0 || !out.stdout.includes(r.expect)) {
          throw new Error(`${r.command} failed (${out.code}): ${out.stderr}`);
        }
        if (round >= 0) samples[i].push(out.ms);
      }
    }
    const [empty, oneFetch, ...commands] = runs.map((r, i) => ({
      name: r.name,
      command: r.command,
      samples: samples[i],
    }));
    return { rounds, empty, oneFetch, commands };
  } finally {
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

/** The goal row: each command's median against CLI_STARTUP_GOAL_MS. */
export function cliStartupGoal(r: CliStartup): { goal: string; measured: string; ok: boolean } {
  const emptyMs = median(r.empty.samples);
  return {
    goal: `CLI: credential helper and whoami start-up <= ${CLI_STARTUP_GOAL_MS} ms`,
    measured: r.commands.map((c) => {
      const ms = median(c.samples);
      return `${c.name} ${fmt(ms)} ms (${fmtRatio(ms / emptyMs)} an empty deno run)`;
    }).join(", ") + `; empty deno run ${fmt(emptyMs)} ms` +
      (r.oneFetch ? `, one fetch ${fmt(median(r.oneFetch.samples))} ms` : ""),
    ok: r.commands.every((c) => median(c.samples) <= CLI_STARTUP_GOAL_MS),
  };
}

/** The report section. */
export function renderCliStartup(r: CliStartup): string[] {
  const emptyMs = median(r.empty.samples);
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [
    "## CLI start-up",
    "",
    `Wall time from spawn to exit, ${r.rounds} rounds after 2 untimed ones, the commands ` +
    "one after another in each round. Signet runs from source exactly as git runs the credential " +
    "helper (`deno run -A --quiet --no-config client/generated/signet_client.js …`, the client " +
    "commands bundled into one file by `deno task build:cli`); each command makes one API call " +
    "to the bench's server. An empty `deno run` is the floor no Deno program starts under; one " +
    "`fetch` is the floor of any Deno program that makes an HTTP call (Deno loads its fetch " +
    "machinery on first use).",
    "",
    line(["command", "median ms", "min ms", "vs empty deno run"]),
    line(["---", "---", "---", "---"]),
    ...[r.empty, ...(r.oneFetch ? [r.oneFetch] : []), ...r.commands].map((c) =>
      line([
        c.command,
        fmt(median(c.samples)),
        fmt(Math.min(...c.samples)),
        fmtRatio(median(c.samples) / emptyMs),
      ])
    ),
  ];
}

if (import.meta.main) {
  const { values } = parseArgs({ args: Deno.args, options: { runs: { type: "string" } } });
  const { startSignet } = await import("./signet.ts");
  const dataDir = await Deno.makeTempDir({ prefix: "signet-cli-startup-data-" });
  const server = await startSignet(dataDir);
  try {
    const r = await measureCliStartup(server, Number(values.runs ?? 21));
    console.log(renderCliStartup(r).join("\n"));
    const g = cliStartupGoal(r);
    console.log(`\n${g.ok ? "ok  " : "MISS"} ${g.goal}: ${g.measured}`);
  } finally {
    await server.stop();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    await Deno.remove(server.logFile).catch(() => {});
  }
}
