/** Where users reach this Signet: the facts the dashboard needs to print signup and clone commands. */
import type { Signet } from "../context.ts";
import { baseUrl, publicHost } from "./repos.ts";

/** Public addresses of the hosting service, its SSH server and the registry. */
export interface ServiceInfo {
  base_url: string;
  ssh: { host: string; port: number } | null;
  registry_url: string | null;
}

/**
 * The addresses users should use. SSH and the registry share the public host name of the base
 * URL; each is null when its listener is off.
 */
export function serviceInfo(ctx: Signet): ServiceInfo {
  const host = publicHost(ctx);
  const registry = ctx.config.registryBind;
  const scheme = new URL(baseUrl(ctx)).protocol;
  return {
    base_url: baseUrl(ctx),
    ssh: ctx.sshPort === null ? null : { host, port: ctx.sshPort },
    registry_url: registry === null ? null : `${scheme}//${hostForUrl(host)}:${registry.port}`,
  };
}

function hostForUrl(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}
