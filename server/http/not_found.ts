/**
 * The hosting address's answer for a page nothing serves: the dashboard's 404 under `/admin`, JSON
 * `{"error": …}` to the API and to anything but a browser's page request, and elsewhere the public
 * site's own 404 (in the repository pages' frame, leading to the list of repositories).
 */
import type { Context } from "hono";
import { notFound, wantsHtml } from "./ui_static.ts";

/** The 404 for `c`'s path; `message` is the JSON error's. */
export async function pageNotFound(c: Context, message = "not found"): Promise<Response> {
  const path = c.req.path;
  const admin = path === "/admin" || path.startsWith("/admin/");
  const api = path === "/api" || path.startsWith("/api/");
  const page = (c.req.method === "GET" || c.req.method === "HEAD") && wantsHtml(c);
  if (admin || api || !page) return notFound(c, "admin", ["/api"], message);
  // Loaded here, not at start: a server whose pages nobody asks for never holds their code.
  const { publicNotFound } = await import("./browse/frame.tsx");
  return publicNotFound(path, c.req.method);
}
