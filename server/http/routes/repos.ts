/** Repository routes of the hosting API and `GET /api/user`. */
import { Hono } from "hono";
import type { Signet } from "../../context.ts";
import { publicUser } from "../../domain/accounts.ts";
import { createRepo, deleteRepo, getRepo, listReposOf, repoView } from "../../domain/repos.ts";
import { type AuthEnv, requireUser } from "../auth.ts";
import { readJsonObject } from "../errors.ts";

/** `/api/user` and `/api/repos/*` */
export function repoRoutes(ctx: Signet): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  const auth = requireUser(ctx);

  app.get("/user", auth, (c) => c.json({ user: publicUser(c.get("user")) }));

  app.post("/repos", auth, async (c) => {
    const body = await readJsonObject(c);
    const repo = await createRepo(ctx, c.get("user"), body.name);
    return c.json({ repo: repoView(ctx, repo) }, 201);
  });

  app.get("/repos", async (c) => {
    const owner = c.req.query("owner");
    return c.json({ repos: (await listReposOf(ctx, owner)).map((r) => repoView(ctx, r)) });
  });

  app.get(
    "/repos/:owner/:name",
    async (c) =>
      c.json({
        repo: repoView(ctx, await getRepo(ctx, c.req.param("owner"), c.req.param("name"))),
      }),
  );

  app.delete("/repos/:owner/:name", auth, async (c) => {
    const repo = await deleteRepo(ctx, c.get("user"), c.req.param("owner"), c.req.param("name"));
    return c.json({ deleted: `${repo.owner}/${repo.name}` });
  });

  return app;
}
