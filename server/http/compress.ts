/**
 * gzip for what browsers and API clients read: UI pages, the UI's assets and JSON answers to GET,
 * when the client's Accept-Encoding allows it and the body is at least 1 KiB; Brotli instead for
 * the UI's immutable assets when the client takes it (compressed once, at its best ratio: the
 * registry's app is 21.7 KB in gzip, 19.4 in Brotli). Never for git transport (the hosting app
 * skips its paths; their content types are not compressible anyway), nor an answer whose ETag is a
 * version for If-Match. Immutable assets are compressed once per coding, by ETag, and kept.
 */
import type { MiddlewareHandler } from "hono";

/** Smaller bodies go as they are: gzip's framing would outweigh what it saves. */
export const MIN_COMPRESS_BYTES = 1024;

const COMPRESSIBLE = /^(text\/|application\/(json|javascript|xml)|image\/svg\+xml)/i;

/** A content coding Signet sends. */
export type Coding = "gzip" | "br";

/**
 * Immutable assets compressed, by coding and ETag: a handful of files that never change. The
 * promise is kept, so requests that come while an asset is being compressed wait for that one.
 */
const compressedAssets = new Map<string, Promise<Uint8Array>>();

/** Whether an Accept-Encoding header allows `coding` (named, or `*`, with a q above 0). */
export function acceptsCoding(header: string | undefined | null, coding: Coding): boolean {
  if (!header) return false;
  let star = false;
  for (const part of header.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const allowed = q === undefined || Number(q.slice(2)) > 0;
    if (name.trim() === coding) return allowed;
    if (name.trim() === "*") star = allowed;
  }
  return star;
}

/** Whether an Accept-Encoding header allows gzip. */
export function acceptsGzip(header: string | undefined | null): boolean {
  return acceptsCoding(header, "gzip");
}

async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new CompressionStream("gzip"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

// Brotli at its best ratio (quality 11: ~0.1 s for the largest asset, once). node:zlib is loaded
// on the first asset a client takes in Brotli, not at start.
async function brotli(bytes: Uint8Array): Promise<Uint8Array> {
  const { brotliCompress, constants } = await import("node:zlib");
  return await new Promise((resolve, reject) =>
    brotliCompress(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }, (err, out) => err ? reject(err) : resolve(new Uint8Array(out)))
  );
}

/**
 * Middleware: compresses GET answers as described above; `skip(path)` leaves a path alone (git
 * transport). A compressed answer says `Content-Encoding: gzip` and `Vary: Accept-Encoding`, and
 * its ETag turns weak. An answer left as it is keeps its headers exactly (so the registry's hot
 * reads, answered ahead of the router, stay byte for byte the router's): a cache may keep it for
 * anyone, as every client reads it.
 */
export function compressResponses(
  skip: (path: string) => boolean = () => false,
): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (c.req.method !== "GET" || skip(c.req.path)) return;
    const res = c.res;
    // Not `res.body` yet: reading it turns a text body into a stream, sent chunked, not sized.
    if (res.status === 206 || res.status === 204 || res.status === 304) return;
    if (res.headers.has("Content-Encoding")) return;
    if (!COMPRESSIBLE.test(res.headers.get("Content-Type") ?? "")) return;
    const etag = res.headers.get("ETag");
    const immutable = /\bimmutable\b/.test(res.headers.get("Cache-Control") ?? "");
    // An ETag that is a version (a registry record's, sent back in If-Match, which compares
    // strongly) must stay strong: such answers go as they are. An asset's turns weak.
    if (etag && !immutable) return;
    const accept = c.req.header("Accept-Encoding");
    const coding: Coding | null = immutable && etag && acceptsCoding(accept, "br")
      ? "br"
      : acceptsGzip(accept)
      ? "gzip"
      : null;
    if (!coding) return;
    const declared = res.headers.get("Content-Length");
    if (declared !== null && Number(declared) < MIN_COMPRESS_BYTES) return;
    if (!res.body) return;
    const cacheKey = immutable && etag ? `${coding} ${etag}` : null;
    let body: Uint8Array;
    const pending = cacheKey ? compressedAssets.get(cacheKey) : undefined;
    if (pending) {
      await res.body.cancel();
      body = await pending;
    } else {
      const bytes = new Uint8Array(await res.arrayBuffer());
      if (bytes.length < MIN_COMPRESS_BYTES) {
        // As it was, sized (assigning over c.res would rewrap the bytes as a chunked stream).
        c.res = undefined;
        c.res = new Response(bytes, {
          status: res.status,
          statusText: res.statusText,
          headers: res.headers,
        });
        return;
      }
      const compressing = coding === "br" ? brotli(bytes) : gzip(bytes);
      if (cacheKey) {
        compressedAssets.set(cacheKey, compressing);
        // A failure is not kept: the next request tries again.
        compressing.catch(() => compressedAssets.delete(cacheKey));
      }
      body = await compressing;
    }
    const headers = new Headers(res.headers);
    headers.set("Content-Encoding", coding);
    const vary = headers.get("Vary");
    if (!vary) headers.set("Vary", "Accept-Encoding");
    else if (!/accept-encoding|\*/i.test(vary)) headers.set("Vary", `${vary}, Accept-Encoding`);
    headers.delete("Content-Length");
    if (etag && !etag.startsWith("W/")) headers.set("ETag", `W/${etag}`);
    // Replaces the answer outright (assigning c.res would copy the old headers back over these).
    c.res = undefined;
    c.res = new Response(body as Uint8Array<ArrayBuffer>, {
      status: res.status,
      statusText: res.statusText,
      headers,
    });
  };
}
