import { Hono } from "hono";
import { assertEquals } from "../../tests/helpers/assert.ts";
import { brotliDecompressSync } from "node:zlib";
import { acceptsCoding, acceptsGzip, compressResponses, MIN_COMPRESS_BYTES } from "./compress.ts";
import { isGitTransport } from "./app.ts";

Deno.test("acceptsGzip reads Accept-Encoding: named, wildcard, q=0", () => {
  assertEquals(acceptsGzip("gzip, deflate, br"), true);
  assertEquals(acceptsGzip("br;q=1.0, gzip;q=0.8"), true);
  assertEquals(acceptsGzip("*"), true);
  assertEquals(acceptsGzip("gzip;q=0, *"), false);
  assertEquals(acceptsGzip("br"), false);
  assertEquals(acceptsGzip("identity"), false);
  assertEquals(acceptsGzip(undefined), false);
});

Deno.test("acceptsCoding reads Brotli the same way", () => {
  assertEquals(acceptsCoding("gzip, deflate, br, zstd", "br"), true);
  assertEquals(acceptsCoding("gzip", "br"), false);
  assertEquals(acceptsCoding("br;q=0, gzip", "br"), false);
  assertEquals(acceptsCoding("*", "br"), true);
});

function app(): Hono {
  const big = JSON.stringify({ items: "x".repeat(5000) });
  const a = new Hono();
  a.use("*", compressResponses((path) => path.endsWith("/info/refs")));
  a.get("/big", (c) => c.body(big, 200, { "Content-Type": "application/json" }));
  a.get("/small", (c) => c.json({ ok: true }));
  a.get("/asset", (c) =>
    c.body("a".repeat(4000), 200, {
      "Content-Type": "text/javascript",
      "Cache-Control": "public, max-age=31536000, immutable",
      ETag: '"abc"',
    }));
  a.get(
    "/o/r/info/refs",
    (c) => c.body("y".repeat(4000), 200, { "Content-Type": "text/plain" }),
  );
  a.get("/record", (c) => c.body(big, 200, { "Content-Type": "application/json", ETag: '"7"' }));
  a.post("/big", (c) => c.body(big, 200, { "Content-Type": "application/json" }));
  return a;
}

const GZIP = { "Accept-Encoding": "gzip" };

async function gunzip(res: Response): Promise<string> {
  return await new Response(res.body!.pipeThrough(new DecompressionStream("gzip"))).text();
}

Deno.test("compressResponses gzips large GET answers when the client accepts it", async () => {
  const res = await app().request("/big", { headers: GZIP });
  assertEquals(res.headers.get("content-encoding"), "gzip");
  assertEquals(res.headers.get("vary"), "Accept-Encoding");
  assertEquals(res.headers.get("content-type"), "application/json");
  assertEquals(JSON.parse(await gunzip(res)).items.length, 5000);
});

Deno.test("compressResponses leaves small bodies, other clients, POSTs, versioned records, skipped paths", async () => {
  const a = app();
  const small = await a.request("/small", { headers: GZIP });
  assertEquals(small.headers.get("content-encoding"), null);
  assertEquals(await small.json(), { ok: true });
  assertEquals(JSON.stringify({ ok: true }).length < MIN_COMPRESS_BYTES, true);
  const plain = await a.request("/big");
  assertEquals(plain.headers.get("content-encoding"), null);
  assertEquals(plain.headers.get("vary"), null, "an answer as it is keeps its headers");
  await plain.body?.cancel();
  const post = await a.request("/big", { method: "POST", headers: GZIP });
  assertEquals(post.headers.get("content-encoding"), null);
  await post.body?.cancel();
  const record = await a.request("/record", { headers: GZIP });
  assertEquals(record.headers.get("content-encoding"), null);
  assertEquals(record.headers.get("etag"), '"7"', "a version ETag stays strong");
  await record.body?.cancel();
  const git = await a.request("/o/r/info/refs", { headers: GZIP });
  assertEquals(git.headers.get("content-encoding"), null);
  assertEquals((await git.text()).length, 4000);
});

Deno.test("compressResponses keeps an immutable asset's gzip and weakens its ETag", async () => {
  const a = app();
  const first = await a.request("/asset", { headers: GZIP });
  const second = await a.request("/asset", { headers: GZIP });
  assertEquals(first.headers.get("etag"), 'W/"abc"');
  assertEquals(second.headers.get("content-encoding"), "gzip");
  assertEquals(await gunzip(first), "a".repeat(4000));
  assertEquals(await gunzip(second), "a".repeat(4000));
});

Deno.test("compressResponses sends an immutable asset in Brotli to a client that takes it", async () => {
  const a = app();
  const chromium = { "Accept-Encoding": "gzip, deflate, br, zstd" };
  // Two at once (one compression, both wait for it), then one more from the kept result.
  const [first, second] = await Promise.all([
    a.request("/asset", { headers: chromium }),
    a.request("/asset", { headers: chromium }),
  ]);
  const third = await a.request("/asset", { headers: chromium });
  for (const res of [first, second, third]) {
    assertEquals(res.headers.get("content-encoding"), "br");
    assertEquals(res.headers.get("vary"), "Accept-Encoding");
    assertEquals(res.headers.get("etag"), 'W/"abc"');
    const bytes = new Uint8Array(await res.arrayBuffer());
    assertEquals(bytes.length < 100, true, `${bytes.length} bytes`);
    assertEquals(new TextDecoder().decode(brotliDecompressSync(bytes)), "a".repeat(4000));
  }
  // A client that takes only gzip still gets gzip; pages and JSON stay gzip whatever the client.
  assertEquals(await gunzip(await a.request("/asset", { headers: GZIP })), "a".repeat(4000));
  const page = await a.request("/big", { headers: chromium });
  assertEquals(page.headers.get("content-encoding"), "gzip");
  await page.body?.cancel();
});

Deno.test("the hosting app never compresses git's smart HTTP paths", () => {
  for (
    const path of [
      "/alice/r.git/info/refs",
      "/alice/r/git-upload-pack",
      "/a/r.git/git-receive-pack",
    ]
  ) {
    assertEquals(isGitTransport(path), true, path);
  }
  for (const path of ["/api/repos", "/admin/repos", "/assets/admin-0.js", "/alice/r.git"]) {
    assertEquals(isGitTransport(path), false, path);
  }
});
