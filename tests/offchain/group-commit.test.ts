import { getTableColumns, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client.js";
import { type NewOffchainRecordRow, offchainRecords } from "../../db/schema.js";
import { withRequestBudget } from "../../lib/budget/request-budget.js";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import { storeRecord } from "../../lib/offchain/store.js";
import { DECODER_VERSION } from "../../lib/sync/decode-attestation.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

// Group commit (lib/offchain/store.ts) and the request budget (lib/budget/request-budget.ts): a publication that
// waited for another's insert goes in under its own request's budget. The rows are sample proofs' columns as
// off-chain records (their verification is tests/offchain/publish.test.ts's), stored with storeRecord directly.
let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

const COLUMNS = Object.keys(getTableColumns(offchainRecords));
const records = (n: number, seed: number): NewOffchainRecordRow[] =>
  sampleProofs({ count: n, seed }).map((proof) => {
    const row = Object.fromEntries(
      COLUMNS.filter((k) => k in proof).map((k) => [k, (proof as Record<string, unknown>)[k]]),
    );
    return {
      ...row,
      decoderVersion: DECODER_VERSION,
      offchainVersion: 2,
      domainVersion: "1.3.0",
      signed: "{}",
    } as NewOffchainRecordRow;
  });

describe("group commit under request budgets", () => {
  it("an insert that waited runs in its own request's budget, not in that of the request that started the queue", async () => {
    const [warm, first, second] = records(3, 5);
    // A first insert outside any budget: the statement's first use (its text, the connection) costs more than 2 ms.
    expect((await storeRecord(app.db, warm!)).created).toBe(true);
    // The first request has barely enough budget to send its own insert (request-budget.ts refuses a statement with
    // less than 25 ms left), and none once that insert has come back; the second waits for it, with time to spare.
    // Sent in the first one's context, the second insert would be refused (503 RequestBudgetExceeded). Whether the
    // first one's own insert went is not this test's question.
    const a = withRequestBudget(26, () => storeRecord(app.db, first!));
    const b = withRequestBudget(10_000, () => storeRecord(app.db, second!));
    const [, waited] = await Promise.allSettled([a, b]);
    expect(waited.status, JSON.stringify(waited)).toBe("fulfilled");
    expect((waited as PromiseFulfilledResult<{ created: boolean }>).value.created).toBe(true);
    const rows = await queryRows<{ n: number }>(
      app.db,
      sql`select count(*)::int as n from offchain_records where uid = ${second!.uid}`,
    );
    expect(rows[0]!.n).toBe(1);
  });
});
