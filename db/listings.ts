/**
 * The listings the stores page through (db/pages.ts), the same SQL on both engines but for the
 * placeholders, `collate` (PostgreSQL's byte-order collation on text keys, so both engines order
 * alike) and the invites' insertion order (SQLite's rowid, PostgreSQL's seq).
 */
import type { InvitePageQuery } from "./invites.ts";
import { containsAll, type Listing, type ParamStyle } from "./pages.ts";
import type { RepoPageQuery, RepoSort } from "./repos.ts";
import type { UserPageQuery, UserSort } from "./users.ts";

const REPO_KEYS: Record<RepoSort, readonly [string, string]> = {
  name: ["u.username", "r.name"],
  created: ["r.created_at", "r.id"],
  pushed: ["COALESCE(r.pushed_at, '')", "r.id"],
};

function collated([k1, k2]: readonly [string, string], collate: string): [string, string] {
  const text = (k: string) => /\.id$|seq$|rowid$/.test(k) ? k : `${k}${collate}`;
  return [text(k1), text(k2)];
}

/** The repositories of `q`. */
export function repoListing(style: ParamStyle, q: RepoPageQuery, collate = ""): Listing {
  return {
    style,
    columns:
      "r.id, r.owner_id, r.name, r.created_at, r.pushed_at, r.size_bytes, u.username AS owner",
    from: "FROM repos r JOIN users u ON u.id = r.owner_id",
    where: (p) => [
      ...(q.owner !== undefined ? [`u.username = ${p.add(q.owner)}`] : []),
      ...containsAll(`lower(u.username || '/' || r.name)`, q.words ?? [], p),
    ],
    keys: collated(REPO_KEYS[q.sort], collate),
  };
}

const USER_KEYS: Record<UserSort, readonly [string, string]> = {
  name: ["u.username", "u.id"],
  created: ["u.created_at", "u.id"],
};

/** The users of `q`, with their repository counts. */
export function userListing(style: ParamStyle, q: UserPageQuery, collate = ""): Listing {
  return {
    style,
    columns: `u.id, u.username, u.public_key, u.created_at,
      (SELECT COUNT(*) FROM repos r WHERE r.owner_id = u.id) AS repo_count`,
    from: "FROM users u",
    where: (p) => containsAll("lower(u.username)", q.words ?? [], p),
    keys: collated(USER_KEYS[q.sort], collate),
  };
}

/** The invites of `q`; `order` is the insertion order's column. */
export function inviteListing(
  style: ParamStyle,
  q: InvitePageQuery,
  order: "i.rowid" | "i.seq",
  collate = "",
): Listing {
  return {
    style,
    columns: `i.code, i.created_by, i.used_by, i.created_at, i.used_at, i.expires_at,
      u.username AS used_by_username`,
    from: "FROM invites i LEFT JOIN users u ON u.id = i.used_by",
    where: (p) =>
      q.state === "used"
        ? ["i.used_at IS NOT NULL"]
        : q.state === "unused"
        ? [`i.used_at IS NULL AND (i.expires_at IS NULL OR i.expires_at > ${p.add(q.now)})`]
        : q.state === "expired"
        ? [`i.used_at IS NULL AND i.expires_at <= ${p.add(q.now)}`]
        : [],
    keys: collated(["i.created_at", order], collate),
  };
}
