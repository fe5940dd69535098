/** `deno task start`: runs `signet serve` from source with non-root defaults for unset env vars. */
import { main } from "../main.ts";

const DEV_DEFAULTS: Record<string, string> = {
  SERVICE_DATA_DIR: "./data",
  SERVICE_HTTP_BIND: "127.0.0.1:8080",
  SERVICE_SSH_BIND: "127.0.0.1:2222",
  SERVICE_REGISTRY_BIND: "127.0.0.1:8081",
};
for (const [name, value] of Object.entries(DEV_DEFAULTS)) {
  if (!Deno.env.get(name)) Deno.env.set(name, value);
}
Deno.exit(await main(["serve", ...Deno.args]));
