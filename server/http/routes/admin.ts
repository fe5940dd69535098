/** Admin routes: invites, users, their tokens and repositories, behind the admin key. */
import { Hono } from "hono";
import type { Signet } from "../../context.ts";
import { fingerprint, parsePublicKeyLine } from "../../../protocol/ssh/sshkey.ts";
import { mintInvite } from "../../domain/accounts.ts";
import { getRepo, listReposOf, removeRepo, repoView } from "../../domain/repos.ts";
import { repoDiskUsage } from "../../domain/disk.ts";
import { serviceInfo } from "../../domain/info.ts";
import { listTokensOfUser, revokeToken } from "../../domain/tokens.ts";
import { requireAdmin } from "../auth.ts";

/** `/api/admin/*` */
export function adminRoutes(ctx: Signet): Hono {
  const app = new Hono();
  app.use("*", requireAdmin(ctx));

  app.get("/info", (c) => c.json(serviceInfo(ctx)));

  app.post("/invites", async (c) => c.json({ code: await mintInvite(ctx, null) }, 201));

  app.get("/invites", async (c) =>
    c.json({
      invites: (await ctx.store.invites.list()).map((
        { code, created_at, used_at, used_by, used_by_username },
      ) => ({
        code,
        created_at,
        used_at,
        used_by: used_by === null ? null : { id: used_by, username: used_by_username },
        state: used_at === null ? "unused" : "used",
      })),
    }));

  app.get("/users", async (c) =>
    c.json({
      users: (await ctx.store.users.list()).map(({ public_key, ...u }) => ({
        id: u.id,
        username: u.username,
        public_key,
        fingerprint: fingerprint(parsePublicKeyLine(public_key).blob),
        created_at: u.created_at,
        repo_count: u.repo_count,
      })),
    }));

  app.get(
    "/users/:name/tokens",
    async (c) => c.json({ tokens: await listTokensOfUser(ctx, c.req.param("name")) }),
  );

  app.delete(
    "/tokens/:id",
    async (c) => c.json({ revoked: await revokeToken(ctx, c.req.param("id")) }),
  );

  app.get("/repos", async (c) =>
    c.json({
      repos: await Promise.all(
        (await listReposOf(ctx)).map(async (r) => ({
          ...repoView(ctx, r),
          size_bytes: await repoDiskUsage(ctx, r),
        })),
      ),
    }));

  app.delete("/repos/:owner/:name", async (c) => {
    const repo = await removeRepo(
      ctx,
      await getRepo(ctx, c.req.param("owner"), c.req.param("name")),
    );
    return c.json({ deleted: `${repo.owner}/${repo.name}` });
  });

  return app;
}
