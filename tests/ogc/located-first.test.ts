import { describe, expect, it } from "vitest";
import type { NewLocationProofRow } from "../../db/schema.js";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import { locationColumns } from "../../lib/location/columns.js";
import { cursorToken } from "../../lib/proofs/cursor.js";
import { appWith, TEST_BASE, type TestApp } from "../helpers/app.js";
import { compareBySort } from "../helpers/sort-oracle.js";

// Located first (lib/proofs/count.ts, locatedFirst and countParts): on the OGC items, a bbox or a datetime matches
// the features without geometry or event time too (the standard's rule), and the page order puts the features that
// have them first, then the others, each part in the usual order. numberMatched, keyset links both ways, offset
// pages and the HTML page all follow that one order, in both collections.
let app: TestApp;
const NOW = new Date("2025-06-01T00:00:00Z");
const DAY = 86_400_000;
// Sample proofs (10% without geometry: an address), plus every 9th without an event time and every 7th moved
// off its coordinates (no geometry), so each part holds a few.
const rows: NewLocationProofRow[] = sampleProofs({ count: 240, seed: 31, now: NOW }).map((r, i) => ({
  ...r,
  ...(i % 9 === 2 ? { eventTimestamp: null, eventTimestampRaw: "0" } : {}),
  ...(i % 7 === 3 ? locationColumns({ geometry: null, longitude: null, latitude: null, bbox: null }) : {}),
}));
const COLLECTIONS = ["location-proofs", "location-proof-shapes"] as const;
const items = (collection: string) => `/api/ogc/collections/${collection}/items`;

appWith(rows, (a) => {
  app = a;
});

type Box = { minLon: number; minLat: number; maxLon: number; maxLat: number };
type Query = { bbox?: Box; datetime?: { start: Date; end?: Date }; sortby?: string };

const hasGeometry = (r: NewLocationProofRow) => r.minLon !== null && r.minLon !== undefined;
const hasTime = (r: NewLocationProofRow) => r.eventTimestamp !== null && r.eventTimestamp !== undefined;

/** Whether a row matches the query under the standard's rule (a box none of the rows' bounds cross ±180 in). */
function matches(r: NewLocationProofRow, q: Query, collection: string): boolean {
  if (q.bbox && hasGeometry(r)) {
    const b = q.bbox;
    const inside =
      collection === "location-proofs"
        ? r.longitude! >= b.minLon &&
          r.longitude! <= b.maxLon &&
          r.latitude! >= b.minLat &&
          r.latitude! <= b.maxLat
        : r.minLon! <= b.maxLon && r.maxLon! >= b.minLon && r.minLat! <= b.maxLat && r.maxLat! >= b.minLat;
    if (!inside) return false;
  }
  if (q.datetime && hasTime(r)) {
    const t = r.eventTimestamp!.getTime();
    if (t < q.datetime.start.getTime() || (q.datetime.end && t > q.datetime.end.getTime())) return false;
  }
  return true;
}

/** The documented order, computed here: located first (geometry, then time), then the sort, uid, chain id. */
function oracle(q: Query, collection: string): string[] {
  const bySort = compareBySort(q.sortby ?? "-event_timestamp");
  const part = (r: NewLocationProofRow) =>
    (q.bbox && !hasGeometry(r) ? 2 : 0) + (q.datetime && !hasTime(r) ? 1 : 0);
  return rows
    .filter((r) => matches(r, q, collection))
    .sort((a, b) => part(a) - part(b) || bySort(a, b))
    .map((r) => r.uid);
}

const paramsOf = (q: Query) =>
  new URLSearchParams({
    ...(q.bbox ? { bbox: `${q.bbox.minLon},${q.bbox.minLat},${q.bbox.maxLon},${q.bbox.maxLat}` } : {}),
    ...(q.datetime
      ? { datetime: `${q.datetime.start.toISOString()}/${q.datetime.end?.toISOString() ?? ".."}` }
      : {}),
    ...(q.sortby ? { sortby: q.sortby } : {}),
  });

const local = (href: string) => href.replace(TEST_BASE, "");
const link = (body: { links: { rel: string; href: string }[] }, rel: string) =>
  body.links.find((l) => l.rel === rel)?.href ?? null;
const ids = (body: { features: { id: string }[] }) => body.features.map((f) => f.id);

const EUROPE: Box = { minLon: -10, minLat: 35, maxLon: 30, maxLat: 60 };
const QUERIES: Query[] = [
  { bbox: EUROPE },
  { bbox: { minLon: 13.3, minLat: 52.4, maxLon: 13.5, maxLat: 52.6 } },
  { bbox: { minLon: -180, minLat: -90, maxLon: 180, maxLat: 90 } },
  { datetime: { start: new Date(NOW.getTime() - 40 * DAY), end: new Date(NOW.getTime() - 10 * DAY) } },
  { bbox: EUROPE, datetime: { start: new Date(NOW.getTime() - 60 * DAY) } },
  { bbox: EUROPE, sortby: "block_number,-chain" },
  { bbox: EUROPE, datetime: { start: new Date(NOW.getTime() - 60 * DAY) }, sortby: "-longitude" },
  { datetime: { start: new Date(NOW.getTime() - 50 * DAY) }, sortby: "event_timestamp" },
];

describe("located first: the features with a geometry (bbox) or an event time (datetime) come first", () => {
  for (const collection of COLLECTIONS)
    for (const q of QUERIES) {
      it(`${collection}?${decodeURIComponent(paramsOf(q).toString())}`, async () => {
        const expected = oracle(q, collection);
        const path = `${items(collection)}?${paramsOf(q)}`;
        // Keyset: next links to the end, then prev links back.
        const forward: string[] = [];
        let url: string | null = `${path}&limit=7`;
        let last = url;
        while (url) {
          const res = await app.get(local(url));
          expect(res.status, url).toBe(200);
          expect(res.body.numberMatched).toBe(expected.length);
          forward.push(...ids(res.body));
          last = url;
          url = link(res.body, "next");
          expect(forward.length).toBeLessThanOrEqual(rows.length);
        }
        expect(forward).toEqual(expected);
        const backward: string[][] = [];
        for (let back: string | null = last; back; ) {
          const res = await app.get(local(back));
          expect(res.status, back).toBe(200);
          backward.unshift(ids(res.body));
          back = link(res.body, "prev");
          expect(backward.length).toBeLessThanOrEqual(rows.length);
        }
        expect(backward.flat()).toEqual(expected);
        // Offset pages, across the parts' boundaries, and the page that starts the last part.
        for (const offset of [0, 3, 7, 19, expected.length - 5, expected.length - 1, expected.length]) {
          if (offset < 0) continue;
          const res = await app.get(`${path}&limit=6&offset=${offset}`);
          expect(ids(res.body), `offset=${offset}`).toEqual(expected.slice(offset, offset + 6));
          // Its links continue in the same order.
          const next = link(res.body, "next");
          if (next)
            expect(ids((await app.get(local(next))).body)).toEqual(expected.slice(offset + 6, offset + 12));
        }
        // The HTML page lists the same features in the same order.
        const html = await app.request(`${path}&limit=10&f=html`);
        const text = await html.text();
        const shown = [...text.matchAll(/items\/(0x[0-9a-f]{64})\?f=html/g)].map((m) => m[1]);
        expect([...new Set(shown)]).toEqual(expected.slice(0, 10));
      });
    }

  it("the parts are really there: each query above has matches without geometry or time after located ones", () => {
    const q = QUERIES[4]!;
    const order = oracle(q, "location-proofs");
    const byUid = new Map(rows.map((r) => [r.uid, r]));
    const part = (uid: string) => {
      const r = byUid.get(uid)!;
      return (hasGeometry(r) ? 0 : 2) + (hasTime(r) ? 0 : 1);
    };
    expect(new Set(order.map(part))).toEqual(new Set([0, 1, 2, 3]));
  });

  it("a box's first page holds the box's own features whenever it has enough of them", async () => {
    for (const collection of COLLECTIONS) {
      const res = await app.get(`${items(collection)}?bbox=-10,35,30,60&limit=5`);
      expect(res.body.features).toHaveLength(5);
      for (const f of res.body.features) expect(f.geometry, f.id).not.toBeNull();
    }
  });

  it("the native list keeps its own rule: a bbox matches only proofs with coordinates, no parts", async () => {
    const res = await app.get("/api/v0/location-proofs?bbox=-10,35,30,60&limit=1000");
    for (const p of res.body.data) expect(p.longitude).not.toBeNull();
  });

  it("a cursor made in another order (without the bbox) is a 400 naming cursor", async () => {
    const plain = await app.get(`${items("location-proofs")}?limit=3`);
    const cursor = new URL(link(plain.body, "next")!).searchParams.get("cursor");
    const res = await app.get(`${items("location-proofs")}?bbox=-10,35,30,60&limit=3&cursor=${cursor}`);
    expect(res.status).toBe(400);
    expect(res.body.parameter).toBe("cursor");
    expect(res.body.message).toMatch(/located\(geometry\)/);
    // A part the order does not have is refused too.
    const token = cursorToken("located(geometry),-event_timestamp", "next", 0, [2, null, "0x01", 1]);
    const forged = await app.get(`${items("location-proofs")}?bbox=-10,35,30,60&cursor=${token}`);
    expect(forged.status).toBe(400);
    expect(forged.body.parameter).toBe("cursor");
  });
});
