/** The admin's paged listings of users and invites (repositories: repos.ts). */
import type { InvitePageQuery, InviteRow } from "../../db/invites.ts";
import type { Page } from "../../db/pages.ts";
import type { UserSort, UserSummaryRow } from "../../db/users.ts";
import { DomainError } from "../../protocol/errors.ts";
import { validateUsername } from "../../protocol/names.ts";
import type { Signet } from "../context.ts";
import { type ListParams, listParamsParser, parseListParams, type SortSpec } from "./listing.ts";

/** Validates the users listing's parameters: by name (the default) or creation. */
export const parseUserListParams = listParamsParser<UserSort>("name", {
  name: { order: "asc", tieBreak: "number" },
  created: { order: "desc", tieBreak: "number" },
});

/** One page of users with their repository counts. */
export async function pageUsers(
  ctx: Signet,
  params: ListParams<UserSort>,
): Promise<Page<UserSummaryRow>> {
  return await ctx.store.users.page(params);
}

/** One user as the admin's user page shows them: the account, its key and repository count. */
export async function adminUser(
  ctx: Signet,
  usernameInput: unknown,
): Promise<UserSummaryRow> {
  const username = validateUsername(usernameInput);
  const user = await ctx.store.users.findByName(username);
  if (!user) throw new DomainError("not_found", `user ${username} not found`);
  const repos = await ctx.store.repos.page({
    sort: "name",
    order: "asc",
    limit: 1,
    owner: username,
  });
  return { ...user, repo_count: repos.total };
}

/** The invites listing sorts by creation only (newest first by default). */
export const INVITE_SORTS: SortSpec<"created"> = {
  created: { order: "desc", tieBreak: "number" },
};

/** A validated invites listing request: the page and an optional state. */
export type InviteListParams = ListParams<"created"> & Pick<InvitePageQuery, "state">;

const INVITE_STATES = ["unused", "used", "expired"] as const;

/** Validates the invites listing's parameters; `state` is unused, used, expired or absent. */
export function parseInviteListParams(
  get: (name: string) => string | undefined,
): InviteListParams {
  const params = parseListParams(get, INVITE_SORTS, "created");
  const state = get("state");
  if (state !== undefined && !(INVITE_STATES as readonly string[]).includes(state)) {
    throw new DomainError("invalid", `state must be one of ${INVITE_STATES.join(", ")}`);
  }
  return { ...params, state: state as InvitePageQuery["state"] };
}

/** An invite's state at `now`. */
export function inviteState(i: InviteRow, now: string): "unused" | "used" | "expired" {
  if (i.used_at !== null) return "used";
  return i.expires_at !== null && i.expires_at <= now ? "expired" : "unused";
}

/** One page of invites. */
export async function pageInvites(
  ctx: Signet,
  params: InviteListParams,
  now: string,
): Promise<Page<InviteRow>> {
  return await ctx.store.invites.page({ ...params, now });
}
