import { type SQL, sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readDataVersion, withDataVersion } from "../../lib/data-version/version.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { countProofs, createCountCache } from "../../lib/proofs/count.js";
import { type ProofFilter, whereClause } from "../../lib/proofs/filter.js";
import { type PagePlan, type PageRequest, planPage } from "../../lib/proofs/plan.js";
import { pageAndCount } from "../../lib/proofs/query.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { usingPostgres } from "../helpers/test-db.js";

// The exact-count cache (lib/proofs/count.ts) may only reuse a count while no other transaction's outcome can have
// become visible. These tests change the data in the ways a sync run does and check the count every time.
let app: TestApp;
const plan = (filter: ProofFilter, q: PageRequest) => planPage(filter, q) as PagePlan;
const rows = sampleProofs({ count: 200, seed: 17 });
beforeAll(async () => {
  app = await createTestApp();
  await insertProofs(app.db, rows.slice(0, 150));
});
afterAll(() => app.close());

const active = (n: number) => rows.slice(0, n).filter((r) => !r.revoked).length;

describe("the exact-count cache", () => {
  it("is exact after every write", async () => {
    const count = createCountCache();
    expect(await count(app.db, {})).toBe(active(150));
    expect(await count(app.db, {})).toBe(active(150));
    await insertProofs(app.db, rows.slice(150, 170));
    expect(await count(app.db, {})).toBe(active(170));
  });

  it("is exact after every write for a filter counted in parts (bbox and datetime under the OGC rule)", async () => {
    // Four parts (in or without a box × in or without a time), two of them from the totals tables: the whole
    // filter is remembered under one snapshot, so a write that moves proofs between parts must be seen.
    const count = createCountCache();
    const filter: ProofFilter = {
      includeRevoked: true,
      bboxMatchesMissing: true,
      timesMatchMissing: true,
      bbox: { minLon: -30, minLat: -40, maxLon: 60, maxLat: 70 },
      times: [{ start: new Date(Date.now() - 60 * 86_400_000), end: new Date(Date.now() - 5 * 86_400_000) }],
    };
    const exact = () => countProofs(app.db, filter);
    const matching = whereClause(filter)!;
    const window = sql`event_timestamp between now() - interval '60 days' and now() - interval '5 days'`;
    const uids = (condition: SQL, n: number) =>
      sql`(select uid from location_proofs where ${condition} order by uid limit ${n})`;
    expect(await count(app.db, filter)).toBe(await exact());
    expect(await count(app.db, filter)).toBe(await exact());
    // Each write moves proofs into or out of the filter through a different part.
    for (const write of [
      // in the box and the window → outside the window
      sql`update location_proofs set event_timestamp = now() - interval '300 days'
            where uid in ${uids(sql`${matching} and event_timestamp is not null and min_lon is not null`, 5)}`,
      // outside the window → without a time (matches again)
      sql`update location_proofs set event_timestamp = null
            where uid in ${uids(sql`event_timestamp < now() - interval '299 days'`, 3)}`,
      // outside the box, in the window → without geometry (matches)
      sql`update location_proofs set geometry = null, longitude = null, latitude = null, min_lon = null, min_lat = null,
            max_lon = null, max_lat = null where uid in ${uids(sql`not (${matching}) and ${window}`, 4)}`,
      sql`delete from location_proofs where uid in ${uids(matching, 3)}`,
    ]) {
      const before = await exact();
      await app.db.execute(write);
      const after = await exact();
      expect(await count(app.db, filter)).toBe(after);
      // The writes above do change this filter's count, so a stale answer would be caught.
      expect(after).not.toBe(before);
    }
  });

  it.skipIf(!usingPostgres())(
    "never reuses a count taken while a transaction was in progress that commits later with no further write",
    async () => {
      const count = createCountCache();
      const before = await count(app.db, {});
      // Another session writes and holds its transaction open across our count, then commits; nothing else is
      // written afterwards. A key that only moved with writes would keep serving the stale count.
      const other = new pg.Client({ connectionString: (app.handle as { url?: string }).url });
      await other.connect();
      try {
        await other.query("begin");
        const extra = rows.slice(170, 200);
        for (const r of extra) {
          await other.query(
            `insert into location_proofs (chain_id, uid, chain, schema_uid, prover, subject, attestation_time,
               block_number, block_hash, tx_hash, log_index, data)
             values ($1, $2, $3, $4, $5, $6, now(), 1, '0x', '0x', 0, '0x')`,
            [r.chainId, r.uid, r.chain, r.schemaUid, r.prover, r.subject],
          );
        }
        expect(await count(app.db, {})).toBe(before);
        await other.query("commit");
        expect(await count(app.db, {})).toBe(before + extra.length);
      } finally {
        await other.end();
      }
    },
  );
});

describe("a page's remembered count, checked by the page's own statement", () => {
  it("is exact on every page after every kind of write, for the native and the OGC rule", async () => {
    // The second page of a filter reuses the count remembered by the first and reads the snapshot in its own
    // statement (pageAndCount): a write in between must force the recount.
    const filters: ProofFilter[] = [
      {},
      { chains: ["base", "celo"] },
      {
        includeRevoked: true,
        bboxMatchesMissing: true,
        timesMatchMissing: true,
        bbox: { minLon: -30, minLat: -40, maxLon: 60, maxLat: 70 },
        times: [{ start: new Date(Date.now() - 60 * 86_400_000), end: new Date() }],
      },
    ];
    const check = async (step: string) => {
      for (const filter of filters) {
        const { total } = await pageAndCount(app.db, plan(filter, { limit: 3 }));
        expect(total, `${step}: ${JSON.stringify(filter)}`).toBe(await countProofs(app.db, filter));
        const again = await pageAndCount(app.db, plan(filter, { limit: 3, offset: 3 }));
        expect(again.total, `${step} (remembered): ${JSON.stringify(filter)}`).toBe(total);
      }
    };
    await check("start");
    for (const [step, write] of [
      [
        "revoke",
        sql`update location_proofs set revoked = true where uid in (select uid from location_proofs where not revoked order by uid limit 4)`,
      ],
      [
        "unrevoke",
        sql`update location_proofs set revoked = false where uid in (select uid from location_proofs where revoked order by uid limit 2)`,
      ],
      [
        "delete",
        sql`delete from location_proofs where uid in (select uid from location_proofs order by uid desc limit 5)`,
      ],
      [
        "move",
        sql`update location_proofs set chain = 'base', chain_id = 8453 where uid in (select uid from location_proofs where chain = 'sepolia' order by uid limit 3)`,
      ],
    ] as const) {
      await app.db.execute(write);
      await check(step);
    }
  });
});

describe.skipIf(usingPostgres())("without pg_current_snapshot() (PostgreSQL before 13)", () => {
  it("still counts exactly, remembering nothing", async () => {
    // PGlite is one session, so a session search_path that puts a failing public.pg_current_snapshot() before
    // pg_catalog's reproduces a server that lacks the function.
    await app.db.execute(sql`create function public.pg_current_snapshot() returns text language plpgsql as $$
      begin raise exception using errcode = 'undefined_function', message = 'function pg_current_snapshot() does not exist'; end $$`);
    await app.db.execute(sql`set search_path to public, pg_catalog`);
    try {
      const count = createCountCache();
      const before = await count(app.db, { chains: ["base"], prover: rows[0]!.prover });
      expect(before).toBe(await countProofs(app.db, { chains: ["base"], prover: rows[0]!.prover }));
      expect(
        await count(app.db, { includeRevoked: true, bbox: { minLon: 0, minLat: 0, maxLon: 20, maxLat: 60 } }),
      ).toBe(
        await countProofs(app.db, {
          includeRevoked: true,
          bbox: { minLon: 0, minLat: 0, maxLon: 20, maxLat: 60 },
        }),
      );
      // The data version is read without the snapshot beside it (the server said it has none).
      const version = await readDataVersion(app.db);
      expect(version.version).toMatch(/^\d+$/);
      expect(version.read).toBeUndefined();
    } finally {
      await app.db.execute(sql`reset search_path`);
      await app.db.execute(sql`drop function public.pg_current_snapshot()`);
    }
  });
});

// Statement counts need a database no one else writes to: any commit anywhere in a PostgreSQL cluster moves the
// snapshot (a recount, never a wrong count), and on PostgreSQL the suite's other files commit in the same cluster
// at the same time, so the count of statements there depends on timing. PGlite holds its database alone.
/**
 * The test database behind a proxy that counts its statements (every one goes through db.execute or db.select) and
 * passes them on unchanged: a new object, so the module's count cache, keyed by the handle, starts empty for it.
 */
function countingDb() {
  const counter = { statements: 0 };
  const db = new Proxy(app.db, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if ((key !== "execute" && key !== "select") || typeof value !== "function") return value;
      return (...args: unknown[]) => {
        counter.statements++;
        return value.apply(target, args);
      };
    },
  });
  return { db, counter };
}

describe.skipIf(usingPostgres())("the statements of a page and its count", () => {
  it("are one while nothing changed, and after a write the page's snapshot keys the recount", async () => {
    const { db, counter } = countingDb();
    const filter: ProofFilter = { chains: ["base"] };
    const statementsOf = async () => {
      counter.statements = 0;
      const { total } = await pageAndCount(db, plan(filter, { limit: 3 }));
      expect(total).toBe(await countProofs(app.db, filter));
      return counter.statements;
    };
    // Nothing remembered: the snapshot, the count (from the totals: one statement), the page.
    expect(await statementsOf()).toBe(3);
    // Remembered: the page alone, which reads the snapshot beside its rows.
    expect(await statementsOf()).toBe(1);
    await app.db.execute(
      sql`update location_proofs set revoked = not revoked where uid in (select uid from location_proofs where chain = 'base' order by uid limit 2)`,
    );
    // After a write: the page finds the snapshot moved and recounts, under the snapshot the page read (no
    // statement of its own for it) ...
    expect(await statementsOf()).toBe(2);
    // ... which is the snapshot the next page reads, so the recount is remembered.
    expect(await statementsOf()).toBe(1);
  });

  it("of an empty result are the data version's alone once remembered: its snapshot keys the count", async () => {
    const { db, counter } = countingDb();
    // No proof has this prover: no page statement, the count alone decides.
    const filter: ProofFilter = { prover: `0x${"de".repeat(20)}` };
    const request = async () => {
      counter.statements = 0;
      const version = await readDataVersion(db);
      const { total } = await withDataVersion(version, () => pageAndCount(db, plan(filter, { limit: 3 })));
      expect(total).toBe(0);
      return counter.statements;
    };
    // The version (which reads the snapshot beside it), then the count keyed by that snapshot.
    expect(await request()).toBe(2);
    // Remembered under the same snapshot: the version's statement alone.
    expect(await request()).toBe(1);
    // Outside a versioned request the count reads the snapshot in a statement of its own.
    counter.statements = 0;
    await pageAndCount(db, plan(filter, { limit: 3 }));
    expect(counter.statements).toBe(1);
  });
});
