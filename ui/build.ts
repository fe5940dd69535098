/**
 * `deno task build:ui`: bundles the UI and writes `ui/generated/assets.ts`, a module the server
 * imports so the executable carries the UI with no files beside it. Each app (admin, registry,
 * browse) gets a minified JS bundle and CSS file (`deno bundle --platform=browser --minify`) under
 * content-hashed paths like `/assets/admin-<hash>.js`, plus an HTML page that references them; the
 * registry's page holds its stylesheet inline instead, and the module exports its CSP hash.
 * The module is committed, with the hash of the sources it was built from (ui/source_hash.ts):
 * starting the server never runs a bundler. Run this after changing anything under ui/.
 */
import { uiSourceHash } from "./source_hash.ts";

const root = new URL("../", import.meta.url);
const outDir = new URL("./generated/", import.meta.url);

/** The single-page apps built from `ui/<name>/main.tsx` and `ui/<name>/<name>.css`. */
const APPS: Record<
  string,
  { title: string; description: string; inlineCss?: boolean; boot?: boolean }
> = {
  admin: { title: "Signet admin", description: "Signet administration dashboard" },
  // The public registry pages carry their stylesheet in a <style> element (allowed by its hash in
  // the CSP): the first paint waits for no second request, and the browser never lays the page out
  // unstyled. Their script is ui/registry/boot.ts, which loads the app (main.tsx) after the first
  // paint (docs/decisions/ui.md, "First contentful paint of the public pages").
  registry: {
    title: "Signet registry",
    description: "Browse the Signet bot identity registry",
    inlineCss: true,
    boot: true,
  },
  // The repository browser's pages are rendered on the server; this is their stylesheet and script.
  browse: { title: "Signet repositories", description: "Browse Signet's git repositories" },
};

/** One embedded file. */
interface Asset {
  type: string;
  body: string;
  etag: string;
}

async function hash(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest).slice(0, 8), (b) => b.toString(16).padStart(2, "0"))
    .join("");
}

/** The CSP source expression of an inline element's text: `'sha256-<base64>'`. */
async function cspHash(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`;
}

async function bundle(entry: string, tmp: string): Promise<string> {
  const out = `${tmp}/${entry.replace(/[^a-z0-9.]/gi, "_")}`;
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--platform=browser", "--minify", "--output", out, entry],
    cwd: root.pathname,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (code !== 0) {
    console.error(new TextDecoder().decode(stderr));
    throw new Error(`deno bundle ${entry} failed`);
  }
  return await Deno.readTextFile(out);
}

const assets: Record<string, Asset> = {};

async function addAsset(prefix: string, ext: string, type: string, body: string): Promise<string> {
  const h = await hash(body);
  const path = `/assets/${prefix}-${h}.${ext}`;
  assets[path] = { type, body, etag: `"${h}"` };
  return path;
}

function escapeHtml(s: string): string {
  return s.replace(
    /[&<>"]/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!,
  );
}

/** The page's stylesheet: a link to `css.href`, or the stylesheet itself (`css.inline`). */
type Stylesheet = { href: string } | { inline: string };

/** The page's script: the app, or a boot script that loads the app (`data-app`). */
type Script = { src: string; app?: string };

function page(
  title: string,
  description: string,
  css: Stylesheet,
  js: Script,
  icon: string,
): string {
  const app = js.app ? ` data-app="${js.app}"` : "";
  const style = "href" in css
    ? `<link rel="stylesheet" href="${css.href}">`
    : `<style>${css.inline}</style>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="description" content="${escapeHtml(description)}">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<link rel="icon" type="image/svg+xml" href="${icon}">
${style}
<script type="module" src="${js.src}"${app}></script>
</head>
<body>
<div id="app"></div>
<noscript><p class="noscript">${escapeHtml(title)} needs JavaScript.</p></noscript>
</body>
</html>
`;
}

const ICON_SVG =
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="1" y="1" width="30" height="30" rx="8" fill="#4f46e5"/><path d="M16 6.5l7.5 3v6c0 4.6-3.2 8.5-7.5 9.5-4.3-1-7.5-4.9-7.5-9.5v-6z" fill="none" stroke="#fff" stroke-width="2" stroke-linejoin="round"/><path d="M12.5 16l2.5 2.5 4.5-5" fill="none" stroke="#fff" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round"/></svg>`;

const tmp = await Deno.makeTempDir({ prefix: "signet-ui-" });
try {
  const icon = await addAsset("icon", "svg", "image/svg+xml", ICON_SVG);
  const pages: Record<string, string> = {};
  const styleHashes: string[] = [];
  for (const [name, meta] of Object.entries(APPS)) {
    const [js, css, boot] = await Promise.all([
      bundle(`ui/${name}/main.tsx`, tmp),
      bundle(`ui/${name}/${name}.css`, tmp),
      meta.boot ? bundle(`ui/${name}/boot.ts`, tmp) : undefined,
    ]);
    const JS = "text/javascript; charset=utf-8";
    const script: Script = boot === undefined ? { src: await addAsset(name, "js", JS, js) } : {
      src: await addAsset(name, "js", JS, boot),
      app: await addAsset(`${name}-app`, "js", JS, js),
    };
    let sheet: Stylesheet;
    if (meta.inlineCss) {
      const inline = css.trim();
      if (/<\/style/i.test(inline)) throw new Error(`ui/${name}/${name}.css contains "</style"`);
      styleHashes.push(await cspHash(inline));
      sheet = { inline };
    } else {
      sheet = { href: await addAsset(name, "css", "text/css; charset=utf-8", css) };
    }
    pages[name] = page(meta.title, meta.description, sheet, script, icon);
  }

  const sourceHash = await uiSourceHash(root);
  const source =
    `// Generated by ui/build.ts from ui/admin, ui/registry, ui/browse and ui/common. Do not edit:
// change the sources and run \`deno task build:ui\`.

/** SHA-256 of the sources this was built from (ui/source_hash.ts); a test compares it. */
export const UI_SOURCE_HASH = "${sourceHash}";

/** One embedded file: its Content-Type, text and strong ETag. */
export interface UiAsset {
  type: string;
  body: string;
  etag: string;
}

/** Content-hashed static files keyed by URL path (\`/assets/<name>-<hash>.<ext>\`). */
export const UI_ASSETS: Record<string, UiAsset> = ${JSON.stringify(assets, null, 2)};

/**
 * CSP source expressions (\`'sha256-...'\`) of the stylesheets written inline into the shells
 * (the registry's): \`style-src\` names them, so these and nothing else inline apply.
 */
export const UI_STYLE_HASHES: string[] = ${JSON.stringify(styleHashes)};

/** The HTML shell of each single-page app. */
export const UI_PAGES: Record<${
      Object.keys(APPS).map((n) => JSON.stringify(n)).join(" | ")
    }, string> = ${JSON.stringify(pages, null, 2)};
`;
  await Deno.mkdir(outDir, { recursive: true });
  await Deno.writeTextFile(new URL("assets.ts", outDir), source);
  const total = Object.values(assets).reduce((n, a) => n + a.body.length, 0);
  console.error(
    `build:ui: ${Object.keys(assets).length} assets, ${(total / 1024).toFixed(1)} KiB`,
  );
} finally {
  await Deno.remove(tmp, { recursive: true });
}
