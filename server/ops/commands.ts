/** The `signet backup` and `signet restore` commands. */
import { ConfigError, loadServerConfig } from "../config.ts";
import { backup, restore } from "./backup.ts";

/** `signet backup <dir>` / `signet restore <dir>`; returns the exit code. */
export async function backupCommand(kind: "backup" | "restore", args: string[]): Promise<number> {
  if (args.length !== 1 || args[0].startsWith("-")) {
    console.error(`usage: signet ${kind} <dir>   (the data dir comes from SERVICE_DATA_DIR)`);
    return 2;
  }
  try {
    const config = loadServerConfig();
    const repos = kind === "backup"
      ? await backup(config, args[0])
      : await restore(config, args[0]);
    const verb = kind === "backup" ? "Backed up" : "Restored";
    console.log(
      `${verb} the database and ${repos.length} ${
        repos.length === 1 ? "repository" : "repositories"
      } ${kind === "backup" ? "to" : "from"} ${args[0]}`,
    );
    return 0;
  } catch (err) {
    console.error(
      `signet ${kind}: ${err instanceof ConfigError ? err.message : (err as Error).message}`,
    );
    return 1;
  }
}
