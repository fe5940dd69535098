/** Admin routes: invites, users, their tokens and repositories, behind the admin key. */
import { Hono } from "hono";
import { listInvites } from "../../../db/invites.ts";
import { listUsers } from "../../../db/users.ts";
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

  app.post("/invites", (c) => c.json({ code: mintInvite(ctx, null) }, 201));

  app.get("/invites", (c) =>
    c.json({
      invites: listInvites(ctx.db).map((
        { code, created_at, used_at, used_by, used_by_username },
      ) => ({
        code,
        created_at,
        used_at,
        used_by: used_by === null ? null : { id: used_by, username: used_by_username },
        state: used_at === null ? "unused" : "used",
      })),
    }));

  app.get("/users", (c) =>
    c.json({
      users: listUsers(ctx.db).map(({ public_key, ...u }) => ({
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
    (c) => c.json({ tokens: listTokensOfUser(ctx, c.req.param("name")) }),
  );

  app.delete("/tokens/:id", (c) => c.json({ revoked: revokeToken(ctx, c.req.param("id")) }));

  app.get("/repos", async (c) =>
    c.json({
      repos: await Promise.all(
        listReposOf(ctx).map(async (r) => ({
          ...repoView(ctx, r),
          size_bytes: await repoDiskUsage(ctx, r),
        })),
      ),
    }));

  app.delete("/repos/:owner/:name", async (c) => {
    const repo = await removeRepo(ctx, getRepo(ctx, c.req.param("owner"), c.req.param("name")));
    return c.json({ deleted: `${repo.owner}/${repo.name}` });
  });

  return app;
}
