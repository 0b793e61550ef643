import { describe, expect, it } from "vitest";
import { proofBatches } from "../../lib/exports/batches.js";
import { batchBytes, batchSize } from "../../lib/exports/budget.js";
import { pointTableRow } from "../../lib/exports/table-sql.js";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import { appWith } from "../helpers/app.js";

// A download's batches (lib/exports/batches.ts) are small in bytes, and each lets go of its rows once encoded: the
// server's memory during a large download depends on both (docs/downloads.md, "Memory").

appWith(sampleProofs({ count: 300, seed: 3703, now: new Date("2025-06-01T00:00:00Z") }), () => {});

const idOf = (text: string): string => (JSON.parse(text) as string[])[0]!;

describe("a download's batches", () => {
  it("hold at most their bytes of row text (or one row), and every match once, in order", async () => {
    const read = async (budget: number) => {
      const ids: string[] = [];
      let batches = 0;
      let total = 0;
      for await (const batch of proofBatches({}, { json: pointTableRow, bytes: budget }, batchSize)) {
        const bytes = batch.rows.reduce((n, row) => n + Buffer.byteLength(row.json), 0);
        expect(bytes <= budget || batch.rows.length === 1).toBe(true);
        ids.push(...batch.rows.map((row) => idOf(row.json)));
        total = batch.total;
        batch.release();
        batches++;
      }
      return { ids, batches, total };
    };
    const whole = await read(1 << 30);
    const small = await read(20_000);
    expect(whole.ids.length).toBe(whole.total);
    expect(new Set(whole.ids).size).toBe(whole.total);
    expect(small.ids).toEqual(whole.ids);
    // Far more batches than the row counts alone make (100, then 1,000).
    expect(whole.batches).toBeLessThanOrEqual(2);
    expect(small.batches).toBeGreaterThan(5);
  });

  it("read EXPORT_BATCH_BYTES where it is set, else the writer's preference, else 4 MiB", () => {
    expect(batchBytes()).toBe(4 * 1024 * 1024);
    expect(batchBytes(256 * 1024)).toBe(256 * 1024);
    process.env.EXPORT_BATCH_BYTES = "65536";
    try {
      expect(batchBytes()).toBe(65536);
      expect(batchBytes(256 * 1024)).toBe(65536);
    } finally {
      delete process.env.EXPORT_BATCH_BYTES;
    }
  });

  it("let go of their rows when released: the array handed on is emptied and each row's text dropped", async () => {
    const batches = proofBatches({}, { json: pointTableRow, bytes: batchBytes() }, batchSize);
    const first = await batches.next();
    if (first.done) throw new Error("no batch");
    const rows = first.value.rows;
    const row = rows[0]!;
    expect(row.json.length).toBeGreaterThan(0);
    first.value.release();
    expect(rows.length).toBe(0);
    expect(row.json).toBe("");
    await batches.return(undefined);
  });
});
