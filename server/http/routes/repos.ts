/** Repository routes of the hosting API and `GET /api/user`. */
import { Hono } from "hono";
import type { Signet } from "../../context.ts";
import { publicUser } from "../../domain/accounts.ts";
import {
  createRepo,
  deleteRepo,
  getRepo,
  pageReposOf,
  parseRepoListParams,
  repoView,
} from "../../domain/repos.ts";
import { pageView } from "../../domain/listing.ts";
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
    // A page (server/domain/listing.ts): `repos` as before, then the paging; `next` is null on
    // the last page.
    const params = parseRepoListParams((n) => c.req.query(n));
    const page = await pageReposOf(ctx, params, c.req.query("owner"));
    return c.json({
      repos: page.rows.map((r) => repoView(ctx, r)),
      ...pageView(page, params),
      q: params.words.join(" "),
    });
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
