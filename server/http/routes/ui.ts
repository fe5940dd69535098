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

/** The dashboard pages and `/assets/:file`; `/` redirects to the dashboard. */
export function uiRoutes(): Hono {
  const app = new Hono();
  mountUi(app, "admin", ADMIN_PAGES);
  app.get("/", (c) => c.redirect("/admin"));
  return app;
}
