import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertProofs, sampleProofs } from "../lib/local/sample-proofs.js";
import { countProofs, createCountCache } from "../lib/proofs/query.js";
import { createTestApp, type TestApp } from "./helpers/app.js";
import { usingPostgres } from "./helpers/test-db.js";

// The exact-count cache (lib/proofs/query.ts) may only reuse a count while no other transaction's outcome can have
// become visible. These tests change the data in the ways a sync run does and check the count every time.
let app: TestApp;
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
    } finally {
      await app.db.execute(sql`reset search_path`);
      await app.db.execute(sql`drop function public.pg_current_snapshot()`);
    }
  });
});
