import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_STATEMENT_PARAMETERS, queryRows } from "../../db/client.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { openTestDb, type TestDb } from "../helpers/test-db.js";

// The pinned PGlite answers a statement of more than 32,767 bind parameters with nothing, and every later statement
// of its session with no rows (db/client.ts, MAX_STATEMENT_PARAMETERS). Neither may ever happen silently.
describe("bind parameters per statement", () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb();
  });
  afterAll(() => db?.close());

  it("a bulk insert past the limit in rows is split, and every row arrives", async () => {
    const rows = sampleProofs({ count: 1100, seed: 7, now: new Date("2025-06-01T00:00:00Z") });
    await insertProofs(db.db, rows);
    const [count] = await queryRows<{ n: number }>(
      db.db,
      sql`select count(*)::int as n from location_proofs`,
    );
    expect(count?.n).toBe(1100);
  });

  it.skipIf(Boolean(process.env.DATABASE_URL))(
    "on PGlite, a statement past the limit is refused with an error before it is sent, and the session still answers",
    async () => {
      expect(db.kind).toBe("pglite");
      const values = Array.from({ length: MAX_STATEMENT_PARAMETERS + 1 }, (_, i) => sql`(${i})`);
      await expect(
        queryRows(db.db, sql`select count(*) from (values ${sql.join(values, sql`, `)}) v(x)`),
      ).rejects.toThrow(/parameters/);
      const [count] = await queryRows<{ n: number }>(
        db.db,
        sql`select count(*)::int as n from location_proofs`,
      );
      expect(count?.n).toBe(1100);
    },
  );
});
