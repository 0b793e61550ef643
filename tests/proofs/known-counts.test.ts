import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { type PagePlan, type PageRequest, planPage } from "../../lib/proofs/plan.js";
import { pageAndCount } from "../../lib/proofs/query.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

// A download's later batches (lib/exports/batches.ts) plan with the counts its first batch took
// (PageRequest.counts): no count is taken or checked again, so a write during a long download does not make every
// later batch count the matches anew. The counts given are the page's; its rows are read as ever.
let app: TestApp;
const rows = sampleProofs({ count: 60, seed: 41 });
beforeAll(async () => {
  app = await createTestApp();
  await insertProofs(app.db, rows.slice(0, 40));
});
afterAll(() => app.close());

const plan = (q: PageRequest) => planPage({ includeRevoked: true }, q) as PagePlan;

describe("a page planned with known counts", () => {
  it("takes the counts as given and reads its rows, even after a write", async () => {
    const first = await pageAndCount(app.db, plan({ limit: 10 }));
    expect(first.total).toBe(40);
    expect(first.counts).toEqual([40]);
    await insertProofs(app.db, rows.slice(40));
    const known = await pageAndCount(app.db, plan({ limit: 10, counts: first.counts }));
    // The counts of the first page, not the 60 proofs there are now.
    expect(known.total).toBe(40);
    expect(known.rows).toHaveLength(10);
    expect(known.more).toBe(true);
    // Without them the page counts again.
    expect((await pageAndCount(app.db, plan({ limit: 10 }))).total).toBe(60);
  });
});
