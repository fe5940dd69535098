/** The embedded UI as HTTP: content types, caching, CSP, and the admin info endpoint. */
import { assert, assertEquals, assertStringIncludes } from "../../helpers/assert.ts";
import { brotliDecompressSync } from "node:zlib";
import { serverTest } from "../../helpers/server.ts";

/** Asks for the body as it is (Deno's fetch asks for gzip unless told otherwise). */
const IDENTITY = { "Accept-Encoding": "identity" };

serverTest(
  "UI pages and assets are served with strict headers and long-lived caching",
  {},
  async (server, t) => {
    let html = "";
    await t.step("the dashboard page is no-cache HTML with a strict CSP", async () => {
      for (
        const path of ["/admin", "/admin/invites", "/admin/users", "/admin/repos", "/admin/user"]
      ) {
        const res = await fetch(`${server.httpUrl}${path}`);
        html = await res.text();
        assertEquals(res.status, 200, path);
        assertEquals(res.headers.get("content-type"), "text/html; charset=utf-8");
        assertEquals(res.headers.get("cache-control"), "no-cache");
        assertEquals(res.headers.get("x-content-type-options"), "nosniff");
        // The dashboard holds an account's token: no opener may keep a handle on its window.
        assertEquals(res.headers.get("cross-origin-opener-policy"), "same-origin", path);
        const csp = res.headers.get("content-security-policy") ?? "";
        assertStringIncludes(csp, "default-src 'none'");
        assertStringIncludes(csp, "script-src 'self'");
        assertStringIncludes(csp, "style-src 'self'");
        assert(!csp.includes("unsafe-inline"), "no inline scripts or styles");
        assert(!csp.includes("http"), "no external origins");
      }
      assert(!/<script>|<style>|style=/.test(html), "no inline script or style in the HTML");
      assert(!/https?:\/\//.test(html), "no external URLs in the HTML");
    });

    await t.step("hashed assets: right type, immutable for a year, ETag and 304", async () => {
      const paths = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
      assertEquals(paths.length, 3, `expected icon, css and js in ${html}`);
      const types: Record<string, string> = {
        js: "text/javascript; charset=utf-8",
        css: "text/css; charset=utf-8",
        svg: "image/svg+xml",
      };
      for (const path of paths) {
        const ext = path.split(".").pop()!;
        assert(/^\/assets\/(admin|icon)-[0-9a-f]{16}\.(js|css|svg)$/.test(path), path);
        const res = await fetch(`${server.httpUrl}${path}`, { headers: IDENTITY });
        const body = await res.text();
        assertEquals(res.status, 200);
        assertEquals(res.headers.get("content-type"), types[ext]);
        assertEquals(res.headers.get("cache-control"), "public, max-age=31536000, immutable");
        assert(body.length > 0);
        const urls = body.match(/https?:\/\/[^"'\s)]+/g) ?? [];
        const external = urls.filter((u) => !u.startsWith("http://www.w3.org/"));
        assertEquals(external, [], `only XML namespace URIs may appear in ${path}`);
        const etag = res.headers.get("etag")!;
        assert(/^"[0-9a-f]{16}"$/.test(etag), etag);
        const again = await fetch(`${server.httpUrl}${path}`, {
          headers: { "If-None-Match": etag, ...IDENTITY },
        });
        await again.body?.cancel();
        assertEquals(again.status, 304);
        if (body.length < 1024) continue;
        // gzip when the client takes it (Deno's fetch asks for it and inflates the body): the same
        // text, a weak ETag, which revalidates too.
        const gz = await fetch(`${server.httpUrl}${path}`);
        assertEquals(await gz.text(), body);
        assertEquals(gz.headers.get("etag"), `W/${etag}`);
        assertEquals(gz.headers.get("vary"), "Accept-Encoding");
        const weak = await fetch(`${server.httpUrl}${path}`, {
          headers: { "If-None-Match": `W/${etag}` },
        });
        await weak.body?.cancel();
        assertEquals(weak.status, 304);
      }
    });

    await t.step("unknown assets are a JSON 404", async () => {
      const res = await fetch(`${server.httpUrl}/assets/admin-0000000000000000.js`);
      assertEquals(res.status, 404);
      assertStringIncludes((await res.json()).error, "no asset");
    });

    await t.step("/ redirects to the public list of repositories", async () => {
      const res = await fetch(`${server.httpUrl}/`, { redirect: "manual" });
      await res.body?.cancel();
      assertEquals(res.status, 302);
      assertEquals(res.headers.get("location"), "/explore");
    });

    await t.step(
      "the registry address serves the registry browser with the same CSP, without opener isolation",
      async () => {
        for (const path of ["/"]) {
          const res = await fetch(`${server.registryUrl}${path}`);
          const page = await res.text();
          assertEquals(res.status, 200, path);
          assertEquals(res.headers.get("content-type"), "text/html; charset=utf-8");
          assertEquals(res.headers.get("cache-control"), "no-cache");
          const csp = res.headers.get("content-security-policy") ?? "";
          assertStringIncludes(csp, "default-src 'none'");
          assert(!csp.includes("unsafe-inline"), "no inline scripts or styles but by hash");
          // The stylesheet is in the page (no request before the first paint), allowed by its hash.
          const style = /<style>([^<]*)<\/style>/.exec(page);
          assert(style, `inline stylesheet in ${page}`);
          const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(style[1]));
          const hash = btoa(String.fromCharCode(...new Uint8Array(digest)));
          assertStringIncludes(csp, `style-src 'self' 'sha256-${hash}'`);
          assert(!/<link rel="stylesheet"/.test(page), "no stylesheet to fetch");
          const js = /src="(\/assets\/registry-[0-9a-f]{16}\.js)"/.exec(page);
          assert(js, `registry bundle in ${page}`);
          const asset = await fetch(`${server.registryUrl}${js[1]}`);
          await asset.body?.cancel();
          assertEquals(asset.headers.get("content-type"), "text/javascript; charset=utf-8");
          assertEquals(asset.headers.get("cache-control"), "public, max-age=31536000, immutable");
          // The app its boot script loads, in Brotli to a browser that takes it (curl: raw bytes).
          const app = /data-app="(\/assets\/registry-app-[0-9a-f]{16}\.js)"/.exec(page);
          assert(app, `registry app in ${page}`);
          const plain = await (await fetch(`${server.registryUrl}${app[1]}`, {
            headers: IDENTITY,
          })).bytes();
          const br = await new Deno.Command("curl", {
            args: [
              "-s",
              "-D",
              "-",
              "-H",
              "Accept-Encoding: gzip, deflate, br",
              "-o",
              "-",
              `${server.registryUrl}${app[1]}`,
            ],
          }).output();
          const raw = br.stdout;
          const split = new TextDecoder("latin1").decode(raw).indexOf("\r\n\r\n") + 4;
          const head = new TextDecoder().decode(raw.subarray(0, split));
          assertStringIncludes(head.toLowerCase(), "content-encoding: br");
          const body = brotliDecompressSync(raw.subarray(split));
          assertEquals(new Uint8Array(body), plain);
          assert(raw.length - split < plain.length / 2, "smaller than half the script");
        }
        const page = await fetch(`${server.registryUrl}/bots/nobody`);
        await page.body?.cancel();
        assertEquals(page.status, 404, "a missing bot's page");
        // Public pages with nothing of the visitor's: no opener isolation (it costs first paint).
        for (const path of ["/", "/bots/nobody", "/no-such-page", "/v1/docs", "/v1/docs/api"]) {
          const res = await fetch(`${server.registryUrl}${path}`, {
            headers: { Accept: "text/html" },
          });
          await res.body?.cancel();
          assertEquals(res.headers.get("content-type"), "text/html; charset=utf-8", path);
          assertStringIncludes(
            res.headers.get("content-security-policy") ?? "",
            "default-src 'none'",
          );
          assertEquals(res.headers.get("x-content-type-options"), "nosniff", path);
          assertEquals(res.headers.get("cross-origin-opener-policy"), null, path);
        }
        const api = await fetch(`${server.registryUrl}/v1/bots/nobody`);
        assertEquals(api.status, 404);
        assertStringIncludes(api.headers.get("content-type") ?? "", "application/json");
        await api.body?.cancel();
      },
    );

    await t.step(
      "GET /api/admin/info needs the admin key and names the public addresses",
      async () => {
        const denied = await fetch(`${server.httpUrl}/api/admin/info`);
        assertEquals(denied.status, 401);
        assertEquals(await denied.json(), { error: "a valid admin key is required" });
        const res = await fetch(`${server.httpUrl}/api/admin/info`, {
          headers: { Authorization: `Bearer ${server.adminKey}` },
        });
        assertEquals(await res.json(), {
          base_url: server.httpUrl,
          ssh: { host: "127.0.0.1", port: server.sshPort },
          registry_url: server.registryUrl,
        });
      },
    );
  },
);
