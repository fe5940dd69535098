/** The admin dashboard on the hosting address: `/admin` and its sub-pages, plus the UI assets. */
import { Hono } from "hono";
import { mountUi } from "../ui_static.ts";

/** The dashboard's client-side routes; exact paths, so a user named "admin" keeps git paths. */
export const ADMIN_PAGES = [
  "/admin",
  "/admin/",
  "/admin/invites",
  "/admin/users",
  "/admin/repos",
  "/admin/user",
];

/**
 * The dashboard pages and `/assets/:file`; `/` redirects to the public list of repositories, as a
 * forge's front page (the dashboard is at `/admin`, for the one person with the admin key).
 */
export function uiRoutes(): Hono {
  const app = new Hono();
  mountUi(app, "admin", ADMIN_PAGES);
  // browse/frame.tsx's EXPLORE_PATH, written out: importing it would load the repository pages'
  // code at start (docs/decisions/performance-and-bench.md, "Memory at rest").
  app.get("/", (c) => c.redirect("/explore"));
  return app;
}
