/**
 * Admin and API lists at scale (issue 27): a Signet of its own is seeded with 1,000 users and
 * 10,000 repositories (rows written straight into its database: the lists read rows only, sizes
 * included), then wrk asks for pages of `GET /api/admin/repos`, `/api/admin/users`,
 * `/api/admin/invites` and `GET /api/repos`: first pages of every sort, pages deep in the listing
 * (by cursor), and filtered ones. One connection: the latency is the server's time per page, the
 * figure the goal (≤ 50 ms a page) is about.
 *
 * Alone: `deno run -A bench/admin_lists.ts [--postgres] [--seconds N]` (prints the rows).
 */
import { DatabaseSync } from "node:sqlite";
import { parseArgs } from "node:util";
import postgres from "postgres";
import type { ApiOptions, ApiRow } from "./api_workloads.ts";
import { type SignetServer, startSignet } from "./signet.ts";
import { wrk } from "./load/wrk.ts";
import { fmt, progress } from "./util.ts";
import { encodeBase64 } from "../protocol/secrets.ts";
import { ed25519Blob } from "../protocol/ssh/sshkey.ts";
import { startPostgres } from "../testing/postgres.ts";

/** How many users, repositories (per user: REPOS / USERS) and invites are seeded. */
export const USERS = 1_000;
export const REPOS = 10_000;
const INVITES = 2_000;
/** The goal: p99 server time per page, ms. */
export const PAGE_P99_GOAL_MS = 50;

const LUA = new URL("./load/admin_lists.lua", import.meta.url).pathname;

interface Rows {
  users: unknown[][];
  repos: unknown[][];
  invites: unknown[][];
}

// Deterministic rows: user i owns repositories i*10 … i*10+9, created in id order, a third of
// them pushed, sizes spread over six orders of magnitude.
function rows(): Rows {
  const t0 = Date.parse("2026-01-01T00:00:00Z");
  const iso = (ms: number) => new Date(ms).toISOString();
  const users: unknown[][] = [];
  const repos: unknown[][] = [];
  const invites: unknown[][] = [];
  const perUser = REPOS / USERS;
  for (let u = 0; u < USERS; u++) {
    const raw = new Uint8Array(32);
    new DataView(raw.buffer).setUint32(0, u + 1);
    const key = `ssh-ed25519 ${encodeBase64(ed25519Blob(raw))}`;
    const id = u + 1;
    users.push([id, `user-${String(u).padStart(4, "0")}`, key, iso(t0 + u * 60_000)]);
    for (let k = 0; k < perUser; k++) {
      const r = u * perUser + k;
      const created = t0 + r * 7_000;
      repos.push([
        r + 1,
        id,
        `repo-${String(r).padStart(5, "0")}-${"xyz".repeat(k)}`,
        iso(created),
        r % 3 === 0 ? iso(created + 86_400_000 + (r * 7919) % 1_000_000) : null,
        (r * 2654435761) % 1_000_000_000,
      ]);
    }
  }
  for (let i = 0; i < INVITES; i++) {
    const used = i < USERS ? i + 1 : null;
    invites.push([
      `inv_${String(i).padStart(32, "0")}`,
      used,
      iso(t0 + i * 30_000),
      used === null ? null : iso(t0 + i * 30_000 + 5_000),
    ]);
  }
  return { users, repos, invites };
}

const INSERT = {
  users: "INSERT INTO users (id, username, public_key, created_at) VALUES",
  repos: "INSERT INTO repos (id, owner_id, name, created_at, pushed_at, size_bytes) VALUES",
  invites: "INSERT INTO invites (code, used_by, created_at, used_at) VALUES",
};

/** Writes the rows into the server's database: its SQLite file, or the PostgreSQL at `url`. */
export async function seedAdminLists(dataDir: string, url: string | null): Promise<void> {
  const r = rows();
  if (url === null) {
    const db = new DatabaseSync(`${dataDir}/signet.db`);
    db.exec("PRAGMA busy_timeout = 10000");
    db.exec("BEGIN IMMEDIATE");
    for (const table of ["users", "repos", "invites"] as const) {
      const width = r[table][0].length;
      const st = db.prepare(`${INSERT[table]} (${Array(width).fill("?").join(", ")})`);
      for (const row of r[table]) st.run(...(row as (string | number | null)[]));
    }
    db.exec("COMMIT");
    db.close();
    return;
  }
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.begin(async (tx) => {
      for (const table of ["users", "repos", "invites"] as const) {
        const width = r[table][0].length;
        for (let i = 0; i < r[table].length; i += 1000) {
          const batch = r[table].slice(i, i + 1000);
          const values = batch.map((_, j) =>
            `(${Array.from({ length: width }, (_, c) => `$${j * width + c + 1}`).join(", ")})`
          ).join(", ");
          await tx.unsafe(`${INSERT[table]} ${values}`, batch.flat() as never[]);
        }
      }
      // Identity counters past the seeded ids, as `db copy` leaves them.
      await tx.unsafe("SELECT setval(pg_get_serial_sequence('users', 'id'), $1)", [USERS]);
      await tx.unsafe("SELECT setval(pg_get_serial_sequence('repos', 'id'), $1)", [REPOS]);
    });
  } finally {
    await sql.end();
  }
}

async function json(server: SignetServer, path: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${server.httpUrl}${path}`, {
    headers: { Authorization: `Bearer ${server.adminKey}` },
  });
  const body = await res.json();
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

// A path deep in a listing: the page after `pages` pages of `limit` from `path`.
async function deep(server: SignetServer, path: string, pages: number): Promise<string> {
  let at = path;
  for (let i = 0; i < pages; i++) {
    const next = (await json(server, at)).next as string;
    at = `${path}&after=${next}`;
  }
  return at;
}

/** The rows: each cycles through its paths at random, with one connection. */
export async function measureAdminLists(
  server: SignetServer,
  opts: Pick<ApiOptions, "seconds">,
): Promise<ApiRow[]> {
  const sets: [string, string[]][] = [
    [
      `admin GET /api/admin/repos, pages of 50 (${fmt(REPOS)} repositories)`,
      [
        "/api/admin/repos",
        "/api/admin/repos?sort=created",
        "/api/admin/repos?sort=pushed",
        await deep(server, "/api/admin/repos?sort=name", 100),
        await deep(server, "/api/admin/repos?sort=pushed", 150),
        "/api/admin/repos?q=repo-0999",
        "/api/admin/repos?owner=user-0500",
      ],
    ],
    [
      `admin GET /api/admin/users, pages of 50 (${fmt(USERS)} users)`,
      [
        "/api/admin/users",
        "/api/admin/users?sort=created",
        await deep(server, "/api/admin/users?sort=name", 15),
        "/api/admin/users?q=user-09",
      ],
    ],
    [
      `admin GET /api/admin/invites, pages of 50 (${fmt(INVITES)} invites)`,
      [
        "/api/admin/invites",
        "/api/admin/invites?state=unused",
        await deep(server, "/api/admin/invites?order=desc", 30),
      ],
    ],
    [
      `GET /api/repos, pages of 50 (${fmt(REPOS)} repositories)`,
      [
        "/api/repos",
        "/api/repos?owner=user-0042",
        await deep(server, "/api/repos?sort=created", 100),
      ],
    ],
  ];
  const out: ApiRow[] = [];
  for (const [name, paths] of sets) {
    progress(`wrk ${name}`);
    const load = {
      url: `${server.httpUrl}/`,
      connections: 1,
      script: LUA,
      scriptArgs: [server.adminKey, ...paths],
    };
    await wrk({ ...load, seconds: 1 }); // untimed: code compiled, pages mapped
    const r = await wrk({ ...load, seconds: opts.seconds });
    out.push({
      name,
      rps: r.rps,
      p50: r.p50,
      p99: r.p99,
      errors: r.errors,
      note: `bench/admin_lists.ts: 1 connection (server time per page); ${paths.length} pages ` +
        `at random: first pages of each sort, deep pages by cursor, filters; goal p99 ≤ ` +
        `${PAGE_P99_GOAL_MS} ms`,
    });
  }
  return out;
}

/** Starts a Signet of its own (on `postgresUrl` when given), seeds it, measures, stops it. */
export async function runAdminLists(
  workDir: string,
  seconds: number,
  postgresUrl: string | null = null,
): Promise<ApiRow[]> {
  const dataDir = await Deno.makeTempDir({ dir: workDir, prefix: "admin-lists-" });
  const env: Record<string, string> = postgresUrl ? { SERVICE_DATABASE_URL: postgresUrl } : {};
  const server = await startSignet(dataDir, env);
  try {
    progress(`seeding ${fmt(USERS)} users, ${fmt(REPOS)} repositories`);
    await seedAdminLists(dataDir, postgresUrl);
    const rows = await measureAdminLists(server, { seconds });
    return postgresUrl ? rows.map((r) => ({ ...r, name: `${r.name}, on PostgreSQL` })) : rows;
  } finally {
    await server.stop();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      postgres: { type: "boolean", default: false },
      seconds: { type: "string", default: "3" },
    },
  });
  const work = await Deno.makeTempDir({ prefix: "signet-admin-lists-" });
  const pg = values.postgres ? await startPostgres() : null;
  try {
    const rows = await runAdminLists(
      work,
      Number(values.seconds),
      pg ? await pg.createDatabase() : null,
    );
    for (const r of rows) {
      const ok = r.p99 <= PAGE_P99_GOAL_MS && r.errors === 0 ? "ok  " : "MISS";
      console.log(
        `${ok} ${r.name}: p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, ` +
          `${fmt(r.rps)} pages/s, ${r.errors} errors`,
      );
    }
  } finally {
    await pg?.destroy();
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}
