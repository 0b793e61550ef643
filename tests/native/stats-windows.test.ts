import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewLocationProofRow } from "../../db/schema.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

/**
 * The stats' time windows (last 24 hours, 7 and 30 days) at their edges: the 7- and 30-day windows add up whole UTC
 * days from the day totals and count only their partial first day from the proofs (lib/proofs/stats.ts), so proofs
 * just inside and outside each window's start, on both sides of its first midnight, in the future and without an
 * event time must count exactly as the windows say, per chain and overall.
 */
let app: TestApp;
let rows: NewLocationProofRow[];
const DAY = 86_400_000;
const MINUTE = 60_000;
const NOW = Date.now();
const WINDOWS = { last_24h: DAY, last_7d: 7 * DAY, last_30d: 30 * DAY } as const;

/** The first UTC midnight after an instant. */
const midnightAfter = (ms: number) => Math.floor(ms / DAY) * DAY + DAY;

beforeAll(async () => {
  app = await createTestApp();
  const times: (number | null)[] = [null, NOW + DAY, NOW + 40 * DAY, NOW - 400 * DAY, NOW - 2 * MINUTE];
  for (const span of Object.values(WINDOWS)) {
    const start = NOW - span;
    const midnight = midnightAfter(start);
    // Minutes around the start (the test's clock and the database's differ by the suite's run time, not minutes),
    // and a millisecond either side of the first whole day.
    times.push(
      start + 5 * MINUTE,
      start - 5 * MINUTE,
      midnight - 1,
      midnight,
      midnight + 1,
      midnight + DAY - 1,
    );
  }
  const sample = sampleProofs({ count: times.length * 3, seed: 41 });
  rows = sample.map((r, i) => {
    const t = times[i % times.length]!;
    return {
      ...r,
      chain: ["devnet", "sepolia", "base"][Math.floor(i / times.length)]!,
      eventTimestamp: t === null ? null : new Date(t),
      eventTimestampRaw: t === null ? "0" : String(Math.floor(t / 1000)),
    };
  });
  await insertProofs(app.db, rows);
});
afterAll(() => app.close());

describe("stats windows", () => {
  it("count every proof of each window exactly, per chain and overall, edges included", async () => {
    const res = await app.get("/api/v0/location-proofs/stats");
    expect(res.status).toBe(200);
    const now = Date.now();
    const expected = (of: NewLocationProofRow[]) =>
      Object.fromEntries(
        Object.entries(WINDOWS).map(([name, span]) => [
          name,
          of.filter((r) => r.eventTimestamp && r.eventTimestamp.getTime() >= now - span).length,
        ]),
      );
    expect(res.body).toMatchObject(expected(rows));
    for (const chain of ["devnet", "sepolia", "base"]) {
      expect(res.body.by_chain[chain]).toMatchObject(expected(rows.filter((r) => r.chain === chain)));
    }
  });
});

/**
 * The statistics are remembered while nothing changed (lib/proofs/stats.ts): a write shows at once, and so does time
 * passing — a proof whose event time reaches a window's start leaves that window although nothing was written.
 */
describe("remembered stats", () => {
  let fresh: TestApp;
  beforeAll(async () => {
    fresh = await createTestApp();
  });
  afterAll(() => fresh.close());

  const proof = (seed: number, eventMs: number): NewLocationProofRow => {
    const [r] = sampleProofs({ count: 1, seed });
    return {
      ...r!,
      chain: "base",
      eventTimestamp: new Date(eventMs),
      eventTimestampRaw: String(Math.floor(eventMs / 1000)),
    };
  };

  for (const path of ["/api/v0/location-proofs/stats", "/api/v0/location-proofs/stats?protocolVersion=0.1"]) {
    it(`hold only while no proof changed and no proof left a window: ${path}`, async () => {
      await insertProofs(fresh.db, [proof(path.length, Date.now() - 10 * MINUTE)]);
      const before = (await fresh.get(path)).body;
      // A proof that leaves the last 24 hours in about three seconds.
      await insertProofs(fresh.db, [proof(path.length + 1, Date.now() - DAY + 3_000)]);
      const written = (await fresh.get(path)).body;
      expect(written.total).toBe(before.total + 1);
      expect(written.last_24h).toBe(before.last_24h + 1);
      expect((await fresh.get(path)).body).toEqual(written);
      await new Promise((r) => setTimeout(r, 3_500));
      const later = (await fresh.get(path)).body;
      expect(later.total).toBe(written.total);
      expect(later.last_24h).toBe(written.last_24h - 1);
      expect(later.last_7d).toBe(written.last_7d);
    });
  }
});
