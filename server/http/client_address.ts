/**
 * The client's address behind trusted reverse proxies (SERVICE_TRUSTED_PROXIES): when the TCP peer
 * is one of them, the client is the rightmost `X-Forwarded-For` entry that is not a trusted proxy
 * itself (each proxy appends the address it received the request from, so only the entries right
 * of the first untrusted one can be believed). From any other peer the header is ignored.
 */
import type { Context } from "hono";
import type { HttpHandler } from "./connection_guard.ts";
import { normalizeIp } from "../ip.ts";

/**
 * The client address for a request from `peer` carrying `forwardedFor` (the X-Forwarded-For value,
 * or null): `peer` unless it is trusted; else the rightmost entry that is not trusted, or the
 * leftmost entry when all are. A malformed entry ends the walk: the address right of it is used
 * (the proxy's own when it is the last one), since nothing left of it can be believed.
 */
export function forwardedClient(
  peer: string,
  forwardedFor: string | null,
  trusted: ReadonlySet<string>,
): string {
  let client = normalizeIp(peer) ?? peer;
  if (!trusted.has(client) || !forwardedFor) return client;
  const hops = forwardedFor.split(",");
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalizeIp(hops[i]);
    if (hop === null) return client;
    client = hop;
    if (!trusted.has(hop)) return hop;
  }
  return client;
}

/** Wraps `handler` so `info.remoteAddr` is the client behind trusted proxies (none: unchanged). */
export function withForwardedClients(
  handler: HttpHandler,
  trusted: ReadonlySet<string>,
): HttpHandler {
  if (trusted.size === 0) return handler;
  return (req, info) => {
    const peer = info.remoteAddr.hostname;
    const client = forwardedClient(peer, req.headers.get("x-forwarded-for"), trusted);
    if (client === peer) return handler(req, info);
    return handler(req, {
      remoteAddr: { transport: "tcp", hostname: client, port: 0 },
      completed: info.completed,
    });
  };
}

/**
 * The client's IP address as seen by this server (the socket peer, or the client named by a
 * trusted proxy), normalized as SSH normalizes its peers, so one address has one rate bucket on
 * both transports.
 */
export function clientIp(c: Context): string {
  const info = c.env as Deno.ServeHandlerInfo | undefined;
  const addr = info?.remoteAddr as Deno.NetAddr | undefined;
  if (!addr?.hostname) return "unknown";
  return normalizeIp(addr.hostname) ?? addr.hostname;
}
