/**
 * `deno task start`: runs `signet serve` from source with non-root defaults for unset env vars.
 * The data directory is main.ts's from-source default, `data/` in the checkout, the same one
 * `deno task signet backup|restore` use.
 */
import { main } from "../main.ts";

const DEV_DEFAULTS: Record<string, string> = {
  SERVICE_HTTP_BIND: "127.0.0.1:8080",
  SERVICE_SSH_BIND: "127.0.0.1:2222",
  SERVICE_REGISTRY_BIND: "127.0.0.1:8081",
};
for (const [name, value] of Object.entries(DEV_DEFAULTS)) {
  if (!Deno.env.get(name)) Deno.env.set(name, value);
}
Deno.exit(await main(["serve", ...Deno.args]));
