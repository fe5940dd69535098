/**
 * The storage contract's frame, shared by its suites (db/store_contract_test.ts for the hosting
 * resources, db/registry_store_contract_test.ts for the registry's): the engines, fresh stores of
 * each, and `contractSuite`, which runs the same cases on every engine and compares what they saw.
 */
import { assert, assertEquals as deepEquals } from "./assert.ts";
import type { Engine, Store } from "../../db/store.ts";
import type { BotWrite } from "../../db/registry_bots.ts";
import { openPostgresStore } from "../../db/postgres/store.ts";
import { openSqliteStore } from "../../db/sqlite/store.ts";
import { startPostgres } from "../../testing/postgres.ts";

/** The engines every case runs on. */
export const ENGINES: readonly Engine[] = ["sqlite", "postgres"];

export type Open = () => Promise<Store>;

/** Opens fresh stores of `engine`; `cleanup` closes them and removes what they made. */
export async function opener(engine: Engine): Promise<{ open: Open; cleanup(): Promise<void> }> {
  const stores: Store[] = [];
  if (engine === "sqlite") {
    const dir = await Deno.makeTempDir({ prefix: "signet-contract-" });
    let n = 0;
    return {
      open: async () => {
        const s = await openSqliteStore(`${dir}/db${++n}.sqlite`);
        stores.push(s);
        return s;
      },
      async cleanup() {
        for (const s of stores) await s.close();
        await Deno.remove(dir, { recursive: true });
      },
    };
  }
  const pg = await startPostgres();
  return {
    open: async () => {
      const s = await openPostgresStore(await pg.createDatabase());
      stores.push(s);
      return s;
    },
    async cleanup() {
      for (const s of stores) await s.close();
      await pg.destroy();
    },
  };
}

/**
 * Deep equality of plain data: rows compare by their fields and values (SQLite's rows have a null
 * prototype, PostgreSQL's result arrays carry extra properties), types included.
 */
export function assertEquals(actual: unknown, expected: unknown, msg?: string): void {
  deepEquals(plain(actual), plain(expected), msg);
}

function plain(v: unknown): unknown {
  return v === undefined ? undefined : JSON.parse(JSON.stringify(v));
}

export const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Replaces creation times (which differ between runs) so rows can be compared across engines. */
export function stable<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(
      value,
      (k, v) =>
        (k === "created_at" || k === "used_at" || k === "pushed_at") && typeof v === "string"
          ? (assert(ISO.test(v), `${k} ${v}`), "<time>")
          : v,
    ),
  );
}

/** A bot row to save: `text` is its search text, `extra` overrides fields. */
export function bot(id: string, text: string, extra: Partial<BotWrite> = {}): BotWrite {
  return {
    botId: id,
    status: "active",
    searchText: text.toLowerCase(),
    record: JSON.stringify({ bot_id: id, text }),
    version: 1,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    keys: [{ keyId: "k1", publicKey: `pk-${id}`, status: "active" }],
    capabilities: [],
    controllers: [],
    ...extra,
  };
}

/**
 * One contract case: runs on a fresh store and returns what it observed (compared across
 * engines in "the engines agree").
 */
export type Case = (open: Open) => Promise<unknown>;

/** More checks for a suite: `steps` on each engine's test, `agree` in the cross-engine one. */
export interface ContractExtras {
  steps?: (open: Open, t: Deno.TestContext) => Promise<void>;
  agree?: (openers: { open: Open }[]) => Promise<void>;
}

/**
 * Registers `${label}: <engine>` for every engine (each case a step on fresh stores, then
 * `extras.steps`) and `${label}: the engines return the same rows for the same inputs` (each case
 * on every engine, what they return compared, then `extras.agree`).
 */
export function contractSuite(
  label: string,
  cases: Record<string, Case>,
  extras: ContractExtras = {},
): void {
  for (const engine of ENGINES) {
    Deno.test(`${label}: ${engine}`, async (t) => {
      const { open, cleanup } = await opener(engine);
      try {
        for (const [name, run] of Object.entries(cases)) {
          await t.step(name, async () => {
            await run(open);
          });
        }
        await extras.steps?.(open, t);
      } finally {
        await cleanup();
      }
    });
  }

  Deno.test(`${label}: the engines return the same rows for the same inputs`, async () => {
    const openers = await Promise.all(ENGINES.map((e) => opener(e)));
    try {
      const observed: Record<string, unknown[]> = {};
      for (const [name, run] of Object.entries(cases)) {
        observed[name] = [];
        for (const o of openers) observed[name].push(await run(o.open));
        for (let i = 1; i < openers.length; i++) {
          assertEquals(observed[name][i], observed[name][0], `${name}: ${ENGINES[i]}`);
        }
      }
      await extras.agree?.(openers);
    } finally {
      for (const o of openers) await o.cleanup();
    }
  });
}
