/**
 * Syntax highlighting on the server with highlight.js (its core and the languages below, each
 * registered by name), split into lines so each line can carry its number and anchor. Files over
 * MAX_HIGHLIGHT_BYTES are shown escaped, without colours: highlight.js takes 100-250 ms for 100 KB
 * of TypeScript on the bench's machine, and a page must not cost that (docs/decisions/ui.md).
 */
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import dockerfile from "highlight.js/lib/languages/dockerfile";
import go from "highlight.js/lib/languages/go";
import ini from "highlight.js/lib/languages/ini";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import makefile from "highlight.js/lib/languages/makefile";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import ruby from "highlight.js/lib/languages/ruby";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

/** Larger files are shown without colours. */
export const MAX_HIGHLIGHT_BYTES = 64 * 1024;

const LANGUAGES = {
  bash,
  c,
  cpp,
  css,
  diff,
  dockerfile,
  go,
  ini,
  java,
  javascript,
  json,
  makefile,
  markdown,
  python,
  ruby,
  rust,
  sql,
  typescript,
  xml,
  yaml,
};
for (const [name, lang] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, lang);

const BY_EXTENSION: Record<string, keyof typeof LANGUAGES> = {
  sh: "bash",
  bash: "bash",
  zsh: "bash",
  c: "c",
  h: "c",
  cc: "cpp",
  cpp: "cpp",
  cxx: "cpp",
  hpp: "cpp",
  css: "css",
  diff: "diff",
  patch: "diff",
  go: "go",
  ini: "ini",
  toml: "ini",
  cfg: "ini",
  java: "java",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "javascript",
  json: "json",
  mk: "makefile",
  md: "markdown",
  markdown: "markdown",
  py: "python",
  rb: "ruby",
  rs: "rust",
  sql: "sql",
  ts: "typescript",
  tsx: "typescript",
  mts: "typescript",
  html: "xml",
  htm: "xml",
  xml: "xml",
  svg: "xml",
  yml: "yaml",
  yaml: "yaml",
};

const BY_NAME: Record<string, keyof typeof LANGUAGES> = {
  Dockerfile: "dockerfile",
  Makefile: "makefile",
  GNUmakefile: "makefile",
};

/** The language a file name suggests, or null (shown as plain text). */
export function languageOf(fileName: string): string | null {
  if (Object.hasOwn(BY_NAME, fileName)) return BY_NAME[fileName];
  const dot = fileName.lastIndexOf(".");
  if (dot <= 0) return null;
  const ext = fileName.slice(dot + 1).toLowerCase();
  return Object.hasOwn(BY_EXTENSION, ext) ? BY_EXTENSION[ext] : null;
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** `s` escaped for HTML text and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ESCAPES[ch]);
}

/** Unicode bidirectional controls: shown as visible marks in code, never applied. */
export const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;

/** Whether `s` holds a bidirectional control character. */
export function hasBidi(s: string): boolean {
  BIDI_CONTROLS.lastIndex = 0;
  const found = BIDI_CONTROLS.test(s);
  BIDI_CONTROLS.lastIndex = 0;
  return found;
}

/** Escaped HTML with each bidi control replaced by a visible mark naming it. */
function markBidi(html: string): string {
  return html.replace(BIDI_CONTROLS, (ch) => {
    const code = `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
    return `<span class="bidi-mark" title="bidirectional control ${code}">${code}</span>`;
  });
}

/**
 * A Markdown code fence's text highlighted as the language its info string names (`ts`,
 * `typescript`, `sh`, …: a language or a file extension this module knows), as escaped HTML; null
 * when the language is unknown or the text is over MAX_HIGHLIGHT_BYTES (shown plain).
 */
export function highlightFence(text: string, info: string): string | null {
  const name = info.trim().split(/\s+/)[0].toLowerCase();
  const lang = Object.hasOwn(LANGUAGES, name)
    ? name
    : Object.hasOwn(BY_EXTENSION, name)
    ? BY_EXTENSION[name]
    : null;
  if (!lang || text.length > MAX_HIGHLIGHT_BYTES) return null;
  try {
    return hljs.highlight(text, { language: lang, ignoreIllegals: true }).value;
  } catch {
    return null;
  }
}

/**
 * `text` as HTML lines (escaped; highlighted when its language is known and it is small enough):
 * a span open at a line's end is closed there and opened again on the next line.
 */
export function highlightLines(text: string, fileName: string): string[] {
  const body = text.endsWith("\n") ? text.slice(0, -1) : text;
  const lang = languageOf(fileName);
  let html: string;
  if (lang && body.length <= MAX_HIGHLIGHT_BYTES) {
    try {
      html = hljs.highlight(body, { language: lang, ignoreIllegals: true }).value;
    } catch {
      html = escapeHtml(body);
    }
  } else {
    html = escapeHtml(body);
  }
  if (hasBidi(html)) html = markBidi(html);
  return splitHtmlLines(html);
}

/**
 * Splits highlight.js output (text with `<span class="…">` and `</span>` only) at newlines,
 * closing the spans open at each line's end and reopening them on the next.
 */
export function splitHtmlLines(html: string): string[] {
  const lines: string[] = [];
  const open: string[] = [];
  let current = "";
  const tag = /<span[^>]*>|<\/span>|\n/g;
  let last = 0;
  for (let m = tag.exec(html); m; m = tag.exec(html)) {
    current += html.slice(last, m.index);
    last = tag.lastIndex;
    if (m[0] === "\n") {
      lines.push(current + "</span>".repeat(open.length));
      current = open.join("");
    } else if (m[0] === "</span>") {
      open.pop();
      current += m[0];
    } else {
      open.push(m[0]);
      current += m[0];
    }
  }
  lines.push(current + html.slice(last));
  return lines;
}
