import { afterAll, beforeAll, expect, it } from "vitest";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

/**
 * An offset page of a located-first order (the OGC items with a bbox: the matches in the box, then the features
 * without geometry, which the standard's rule also matches) finds its part from the parts' counts. Counts
 * remembered from an earlier request, under an older snapshot, placed the page wrongly after a write: rows skipped
 * (or repeated) within one response, while the recount fixed only numberMatched. Counts and rows are now read under
 * one snapshot.
 */
let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ CHAINS: "sepolia,base,arbitrum,celo" });
  await insertProofs(
    app.db,
    sampleProofs({ count: 80, seed: 9, days: 30, now: new Date("2026-01-01T00:00:00Z") }),
  );
});
afterAll(() => app.close());

const ITEMS = "/api/ogc/collections/location-proofs/items";
const BBOX = "-170,-80,170,80";
type Items = { numberMatched: number; features: { id: string; geometry: unknown }[] };
const items = async (query: string): Promise<Items> => {
  const res = await app.get(`${ITEMS}?bbox=${BBOX}&${query}`);
  expect(res.status, query).toBe(200);
  return res.body as Items;
};

it("an offset page after a write is the page of the data as it is, its rows neither skipped nor repeated", async () => {
  const all = await items("limit=1000");
  const located = all.features.filter((f) => f.geometry !== null).length;
  expect(located).toBeGreaterThan(5);
  expect(all.features.length - located).toBeGreaterThan(6);
  // A page in the second part (the features without geometry), asked once: its counts are remembered.
  const query = `limit=4&offset=${located + 2}`;
  expect((await items(query)).features.map((f) => f.id)).toEqual(
    all.features.slice(located + 2, located + 6).map((f) => f.id),
  );
  // A write: newer located proofs in the box, before every row of the page in the order.
  const fresh = sampleProofs({ count: 40, seed: 77, days: 1, now: new Date("2026-06-01T00:00:00Z") }).filter(
    (r) =>
      r.latitude != null && r.longitude != null && Math.abs(r.latitude) < 80 && Math.abs(r.longitude) < 170,
  );
  expect(fresh.length).toBeGreaterThan(2);
  await insertProofs(app.db, fresh);
  const page = await items(query);
  const now = await items("limit=1000");
  expect(now.numberMatched).toBe(all.numberMatched + fresh.length);
  expect(page.numberMatched).toBe(now.numberMatched);
  expect(page.features.map((f) => f.id)).toEqual(
    now.features.slice(located + 2, located + 6).map((f) => f.id),
  );
});
