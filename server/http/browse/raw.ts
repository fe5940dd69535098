/**
 * `/<owner>/<repo>/raw/<ref>/<path>`: a file's bytes. Text goes as `text/plain`, the image types
 * of blob_page.ts as themselves (and SVG to an `<img>`, see serveRaw), anything else (binary,
 * `?download=1`) as an attachment: HTML and SVG are never rendered as a page on Signet's origin,
 * and a sandboxing CSP covers the answer anyway.
 */
import { joinPath } from "../../domain/browse/paths.ts";
import type { Resolved } from "../../domain/browse/refs.ts";
import { looksBinary, readBlob, streamBlob } from "../../domain/browse/blob.ts";
import type { PageRequest } from "./context.ts";
import { imageType, isSvg } from "./blob_page.tsx";

/** Files up to this size are read whole (one git call); larger ones are streamed. */
const WHOLE_BYTES = 64 * 1024;

/** Headers of every raw answer (and of archives). */
export const RAW_HEADERS = {
  "Content-Security-Policy": "default-src 'none'; sandbox",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Resource-Policy": "same-origin",
  "Cache-Control": "no-cache",
};

/** An attachment's Content-Disposition, with `filename*=` for any name (RFC 6266 / 8187). */
export function attachment(name: string): string {
  const ascii = name.replace(/[^A-Za-z0-9._-]/g, "_") || "download";
  // RFC 8187's attr-char leaves out ' ( ) *, which encodeURIComponent keeps.
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * The raw answer, or null when the path is no file. `fetchDest` is the request's
 * `Sec-Fetch-Dest`: an SVG file goes as `image/svg+xml` only to an image load (`<img>` never runs
 * an SVG's script; a browser sets the header itself, and page script cannot), as text to anything
 * else, and under the sandboxing CSP either way.
 */
export async function serveRaw(
  req: PageRequest,
  at: Resolved,
  method: string,
  fetchDest: string | null = null,
): Promise<Response | null> {
  if (at.path.length === 0) return null;
  const name = at.path.at(-1)!;
  const head = await readBlob(
    req.ctx,
    req.repo,
    at.commit,
    joinPath(at.path),
    req.client,
    WHOLE_BYTES,
  );
  if (head.kind !== "blob") return null;
  const svg = isSvg(name);
  const image = imageType(name) ?? (svg && fetchDest === "image" ? "image/svg+xml" : null);
  const download = req.query.get("download") === "1";
  // Known from the first bytes: a small file was read whole, a larger one has its first 64 KiB
  // read again below (git is asked for the whole, and the type decided on what it sent first).
  const headers: Record<string, string> = { ...RAW_HEADERS, "Content-Length": String(head.size) };
  if (svg) headers["Vary"] = "Sec-Fetch-Dest";
  const decide = (first: Uint8Array) => {
    if (image && !download) headers["Content-Type"] = image;
    else if (!download && !looksBinary(first)) {
      headers["Content-Type"] = "text/plain; charset=utf-8";
    } else {
      headers["Content-Type"] = "application/octet-stream";
      headers["Content-Disposition"] = attachment(name);
    }
  };
  if (head.bytes) {
    decide(head.bytes);
    return new Response(method === "HEAD" ? null : head.bytes as Uint8Array<ArrayBuffer>, {
      headers,
    });
  }
  const stream = await streamBlob(req.ctx, req.repo, head.oid, req.client);
  const reader = stream.getReader();
  const first = await reader.read();
  decide(first.value ?? new Uint8Array());
  if (method === "HEAD") {
    await reader.cancel();
    return new Response(null, { headers });
  }
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (first.value) controller.enqueue(first.value);
      if (first.done) controller.close();
    },
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel() {
      reader.cancel().catch(() => {});
    },
  });
  return new Response(body, { headers });
}
