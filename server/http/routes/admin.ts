/** Admin routes: invites, users, their tokens and repositories, behind the admin key. */
import { Hono } from "hono";
import type { Signet } from "../../context.ts";
import { fingerprint, parsePublicKeyLine } from "../../../protocol/ssh/sshkey.ts";
import { inviteLifetimeDays, mintInvite, revokeInvite } from "../../domain/accounts.ts";
import {
  adminUser,
  inviteState,
  pageInvites,
  pageUsers,
  parseInviteListParams,
  parseUserListParams,
} from "../../domain/admin_lists.ts";
import { pageView } from "../../domain/listing.ts";
import {
  getRepo,
  pageReposOf,
  parseRepoListParams,
  removeRepo,
  repoView,
  withSizes,
} from "../../domain/repos.ts";
import { serviceInfo } from "../../domain/info.ts";
import { listTokensOfUser, revokeToken } from "../../domain/tokens.ts";
import { requireAdmin } from "../auth.ts";
import { parseJsonObject } from "../errors.ts";
import type { UserSummaryRow } from "../../../db/users.ts";

/** `/api/admin/*` */
export function adminRoutes(ctx: Signet): Hono {
  const app = new Hono();
  app.use("*", requireAdmin(ctx));

  app.get("/info", (c) => c.json(serviceInfo(ctx)));

  // An empty body mints with the default lifetime; a JSON object may name `expires_in_days`.
  app.post("/invites", async (c) => {
    const text = await c.req.text();
    const days = text.trim() === "" ? undefined : parseJsonObject(text).expires_in_days;
    return c.json(await mintInvite(ctx, null, inviteLifetimeDays(days)), 201);
  });

  app.delete("/invites/:code", async (c) => {
    return c.json({ revoked: await revokeInvite(ctx, c.req.param("code")) });
  });

  // Lists are pages (server/domain/listing.ts): the rows under their old key, then the paging.
  app.get("/invites", async (c) => {
    const params = parseInviteListParams((n) => c.req.query(n));
    const now = new Date().toISOString();
    const [page, unused] = await Promise.all([
      pageInvites(ctx, params, now),
      ctx.store.invites.countUnused(now),
    ]);
    return c.json({
      invites: page.rows.map((i) => ({
        code: i.code,
        created_at: i.created_at,
        used_at: i.used_at,
        expires_at: i.expires_at,
        used_by: i.used_by === null ? null : { id: i.used_by, username: i.used_by_username },
        state: inviteState(i, now),
      })),
      ...pageView(page, params),
      state: params.state ?? null,
      unused,
    });
  });

  const userView = async ({ public_key, ...u }: UserSummaryRow) => ({
    id: u.id,
    username: u.username,
    public_key,
    fingerprint: await fingerprint(parsePublicKeyLine(public_key).blob),
    created_at: u.created_at,
    repo_count: u.repo_count,
  });

  app.get("/users", async (c) => {
    const params = parseUserListParams((n) => c.req.query(n));
    const page = await pageUsers(ctx, params);
    return c.json({
      users: await Promise.all(page.rows.map(userView)),
      ...pageView(page, params),
      q: params.words.join(" "),
    });
  });

  // One user with their live tokens (the admin's user page; repositories: /repos?owner=).
  app.get("/users/:name", async (c) => {
    const user = await adminUser(ctx, c.req.param("name"));
    const [tokens, invite] = await Promise.all([
      listTokensOfUser(ctx, user.username),
      ctx.store.invites.findUsedBy(user.id),
    ]);
    return c.json({
      user: await userView(user),
      tokens,
      invite: invite ? { code: invite.code, created_at: invite.created_at } : null,
    });
  });

  app.get(
    "/users/:name/tokens",
    async (c) => c.json({ tokens: await listTokensOfUser(ctx, c.req.param("name")) }),
  );

  app.delete(
    "/tokens/:id",
    async (c) => c.json({ revoked: await revokeToken(ctx, c.req.param("id")) }),
  );

  app.get("/repos", async (c) => {
    const params = parseRepoListParams((n) => c.req.query(n));
    const [page, sizeTotal] = await Promise.all([
      pageReposOf(ctx, params, c.req.query("owner")),
      ctx.store.repos.totalSize(),
    ]);
    return c.json({
      repos: (await withSizes(ctx, page.rows)).map((r) => ({
        ...repoView(ctx, r),
        size_bytes: r.size_bytes ?? 0,
      })),
      ...pageView(page, params),
      q: params.words.join(" "),
      size_bytes_total: sizeTotal,
    });
  });

  app.delete("/repos/:owner/:name", async (c) => {
    const repo = await removeRepo(
      ctx,
      await getRepo(ctx, c.req.param("owner"), c.req.param("name")),
    );
    return c.json({ deleted: `${repo.owner}/${repo.name}` });
  });

  return app;
}
