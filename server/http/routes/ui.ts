/** Serves the embedded UI bundle (generated module) with strict security headers. */
import { Hono } from "hono";
import { UI_ASSETS } from "../../../ui/generated/assets.ts";

/** Content-Security-Policy for every UI page: nothing from outside this origin. */
export const UI_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** `/admin` (dashboard) and its static assets. */
export function uiRoutes(): Hono {
  const app = new Hono();
  const page = () =>
    new Response(UI_ASSETS["/admin.html"]?.body ?? "<!doctype html><title>Signet</title>", {
      headers: {
        "Content-Type": "text/html; charset=utf-8",
        "Content-Security-Policy": UI_CSP,
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": "no-cache",
      },
    });
  app.get("/admin", page);
  app.get("/admin/*", page);
  app.get("/", (c) => c.redirect("/admin"));
  return app;
}
