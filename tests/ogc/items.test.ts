import { inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as itemsHandler } from "../../api/ogc/collections/location-proofs/items/index.js";
import { locationProofs, type NewLocationProofRow } from "../../db/schema.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { appWith, TEST_BASE, type TestApp } from "../helpers/app.js";

let app: TestApp;
const NOW = new Date("2025-06-01T00:00:00Z");
// Every 50th proof has no event time (an eventTimestamp of 0 on chain), so every datetime query meets some.
const rows = sampleProofs({ count: 1100, seed: 42, now: NOW }).map((r, i) =>
  i % 50 === 7 ? { ...r, eventTimestamp: null, eventTimestampRaw: "0" } : r,
);
const ITEMS = "/api/ogc/collections/location-proofs/items";
const SHAPES = "/api/ogc/collections/location-proof-shapes/items";

appWith(rows, (a) => {
  app = a;
});

type Box = [number, number, number, number];
/** The geometry's bounds intersect the box (what bbox tests in the shapes collection and on /api/v0). */
const intersects = (r: NewLocationProofRow, [minLon, minLat, maxLon, maxLat]: Box) => {
  if (r.minLon == null || r.minLat == null || r.maxLon == null || r.maxLat == null) return false;
  const latOk = r.maxLat >= minLat && r.minLat <= maxLat;
  const lonOk =
    minLon <= maxLon ? r.maxLon >= minLon && r.minLon <= maxLon : r.maxLon >= minLon || r.minLon <= maxLon; // crosses the antimeridian
  return latOk && lonOk;
};
/** The representative point lies in the box (what bbox tests in location-proofs, whose features are that point). */
const pointIn = (r: NewLocationProofRow, [minLon, minLat, maxLon, maxLat]: Box) => {
  if (r.longitude == null || r.latitude == null) return false;
  const lonOk =
    minLon <= maxLon
      ? r.longitude >= minLon && r.longitude <= maxLon
      : r.longitude >= minLon || r.longitude <= maxLon;
  return lonOk && r.latitude >= minLat && r.latitude <= maxLat;
};
/** OGC API - Features Part 1 (/req/core/fc-bbox-response C): a bbox also matches the features without geometry. */
const ogcBbox = (test: typeof pointIn) => (r: NewLocationProofRow, box: Box) =>
  r.minLon == null || test(r, box);
const uids = (list: NewLocationProofRow[]) => list.map((r) => r.uid).sort();
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** An items link (issue 10): the given path and query, then a cursor in place of the old offset. */
const CURSOR_LINK = (pathAndQuery: string) =>
  new RegExp(`^${escapeRegExp(`${TEST_BASE}${pathAndQuery}`)}&cursor=[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`);
const featureIds = async (href: string) =>
  (await app.get(href.replace(TEST_BASE, ""))).body.features.map((f: { id: string }) => f.id);

/** Every feature of a query, walking next links from the first page. */
async function walk(path: string) {
  const seen: string[] = [];
  const features: { id: string; geometry: { type: string; coordinates: number[] } | null }[] = [];
  let url: string | undefined = path;
  let matched = -1;
  let pages = 0;
  while (url) {
    const res = await app.get(url.replace(TEST_BASE, ""));
    expect(res.status, url).toBe(200);
    if (matched < 0) matched = res.body.numberMatched;
    expect(res.body.numberMatched).toBe(matched);
    expect(res.body.numberReturned).toBe(res.body.features.length);
    seen.push(...res.body.features.map((f: { id: string }) => f.id));
    features.push(...res.body.features);
    url = res.body.links.find((l: { rel: string }) => l.rel === "next")?.href;
    pages++;
  }
  return { seen, matched, pages, features };
}

describe("items: the feature collection", () => {
  it("is GeoJSON with numberMatched, numberReturned, timeStamp and the default limit of 10", async () => {
    const res = await app.get(ITEMS);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/geo\+json/);
    expect(res.body.type).toBe("FeatureCollection");
    expect(res.body.numberMatched).toBe(rows.length);
    expect(res.body.numberReturned).toBe(10);
    expect(res.body.features).toHaveLength(10);
    expect(new Date(res.body.timeStamp).toISOString()).toBe(res.body.timeStamp);
    const rels = res.body.links.map((l: { rel: string }) => l.rel).sort();
    expect(rels).toEqual([
      "alternate",
      "alternate",
      "collection",
      "enclosure",
      "enclosure",
      "enclosure",
      "enclosure",
      "next",
      "self",
    ]);
    const next = res.body.links.find((l: { rel: string }) => l.rel === "next");
    expect(next.href).toMatch(CURSOR_LINK(`${ITEMS}?limit=10`));
    expect(await featureIds(next.href)).toEqual(await featureIds(`${ITEMS}?limit=10&offset=10`));
    expect(next.type).toBe("application/geo+json");
  });

  it("answers a repeated request with If-None-Match with 304, although timeStamp changes", async () => {
    const path = `${ITEMS}?limit=3`;
    const first = await app.request(path);
    expect(first.status).toBe(200);
    const etag = first.headers.get("etag")!;
    expect(etag).toBeTruthy();
    await first.text();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const again = await app.request(path, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    const other = await app.request(`${ITEMS}?limit=4`, { headers: { "if-none-match": etag } });
    expect(other.status).toBe(200);
    await other.text();
  });

  it("orders newest first with uid as tiebreaker, and has prev only when offset > 0", async () => {
    const res = await app.get(`${ITEMS}?limit=5&offset=5`);
    const expected = rows
      .filter((r) => r.eventTimestamp)
      .sort((a, b) => b.eventTimestamp!.getTime() - a.eventTimestamp!.getTime() || (a.uid < b.uid ? -1 : 1))
      .slice(5, 10)
      .map((r) => r.uid);
    expect(res.body.features.map((f: { id: string }) => f.id)).toEqual(expected);
    const prev = res.body.links.find((l: { rel: string }) => l.rel === "prev");
    expect(prev.href).toMatch(CURSOR_LINK(`${ITEMS}?limit=5`));
    expect(await featureIds(prev.href)).toEqual(await featureIds(`${ITEMS}?limit=5`));
    expect(
      (await app.get(`${ITEMS}?limit=5`)).body.links.some((l: { rel: string }) => l.rel === "prev"),
    ).toBe(false);
  });

  it("has features with id = uid, the spec's Point geometry and the proof's properties, revoked ones included", async () => {
    const res = await app.get(`${ITEMS}?limit=1000&offset=0`);
    const byId = new Map(rows.map((r) => [r.uid, r]));
    for (const f of res.body.features) {
      const r = byId.get(f.id)!;
      expect(f.type).toBe("Feature");
      // The spec's OGC feature: {"type": "Point", "coordinates": [longitude, latitude]}, or null.
      expect(f.geometry).toEqual(
        r.longitude == null ? null : { type: "Point", coordinates: [r.longitude, r.latitude] },
      );
      expect(f).not.toHaveProperty("bbox");
      expect(f.properties.chain).toBe(r.chain);
      expect(f.properties.revoked).toBe(r.revoked);
      expect(f.properties).toHaveProperty("location_type");
      expect(f.properties).toHaveProperty("srs");
      expect(f.properties).toHaveProperty("subject");
    }
    expect(res.body.features.some((f: { properties: { revoked: boolean } }) => f.properties.revoked)).toBe(
      true,
    );
    expect(res.body.features.some((f: { geometry: unknown }) => f.geometry === null)).toBe(true);
  });
});

describe("items: limit and paging", () => {
  it("serves a limit above 1000 as 1000 and says so in its links", async () => {
    const res = await app.get(`${ITEMS}?limit=5000`);
    expect(res.status).toBe(200);
    expect(res.body.numberReturned).toBe(1000);
    const next = res.body.links.find((l: { rel: string }) => l.rel === "next");
    expect(next.href).toMatch(CURSOR_LINK(`${ITEMS}?limit=1000`));
    expect((await app.get(`${ITEMS}?limit=99999999999999999999999`)).body.numberReturned).toBe(1000);
  });

  it.each(["0", "-1", "abc", "1.5", ""])("rejects limit=%s with an OGC exception", async (limit) => {
    const res = await app.get(`${ITEMS}?limit=${limit}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("InvalidParameterValue");
    expect(res.body.description).toMatch(/limit/);
  });

  it.each([1, 7, 1000])(
    "walking next with limit=%i yields exactly numberMatched features, no duplicates",
    async (limit) => {
      const { seen, matched, pages } = await walk(`${ITEMS}?limit=${limit}`);
      expect(matched).toBe(rows.length);
      expect(seen).toHaveLength(matched);
      expect(new Set(seen).size).toBe(matched);
      expect(pages).toBe(Math.ceil(matched / limit));
    },
    120_000,
  );

  it("walks a filtered query too, and an offset past the end is an empty page", async () => {
    const { seen, matched } = await walk(`${ITEMS}?limit=7&chain=base&bbox=-180,-90,180,90`);
    // A world bbox matches every feature: those with a geometry lie in it, the others match by Part 1's rule.
    const expected = rows.filter((r) => r.chain === "base");
    expect(matched).toBe(expected.length);
    expect(seen.sort()).toEqual(uids(expected));
    const past = await app.get(`${ITEMS}?offset=5000`);
    expect(past.body.numberReturned).toBe(0);
    expect(past.body.numberMatched).toBe(rows.length);
    expect(past.body.links.some((l: { rel: string }) => l.rel === "next")).toBe(false);
  });
});

describe("items: numberMatched stays exact when the data changes", () => {
  it("recounts after a write (the count cache is keyed by the MVCC snapshot)", async () => {
    const path = `${ITEMS}?bbox=-180,-90,180,90&chain=arbitrum`;
    const before = (await app.get(path)).body.numberMatched;
    expect((await app.get(path)).body.numberMatched).toBe(before);
    const extra = sampleProofs({
      count: 40,
      seed: 4242,
      now: NOW,
      chains: [{ name: "arbitrum", chainId: 42161 }],
    });
    await insertProofs(app.db, extra);
    expect((await app.get(path)).body.numberMatched).toBe(before + extra.length);
    const europe = `${ITEMS}?bbox=-10,35,30,60&chain=arbitrum`;
    const inEurope = (await app.get(europe)).body.numberMatched;
    await app.db.delete(locationProofs).where(
      inArray(
        locationProofs.uid,
        extra.map((r) => r.uid),
      ),
    );
    const removed = extra.filter((r) => ogcBbox(pointIn)(r, [-10, 35, 30, 60])).length;
    expect(removed).toBeGreaterThan(0);
    expect((await app.get(europe)).body.numberMatched).toBe(inEurope - removed);
    expect((await app.get(path)).body.numberMatched).toBe(before);
  });
});

describe("items: bbox", () => {
  const cases: [string, Box][] = [
    ["London", [-0.3, 51.4, 0.0, 51.6]],
    ["Europe", [-10, 35, 30, 60]],
    ["across the antimeridian (Fiji and Samoa)", [170, -20, -170, -10]],
    ["Null Island", [-0.05, -0.05, 0.05, 0.05]],
    ["the whole world", [-180, -90, 180, 90]],
  ];
  const withoutGeometry = rows.filter((r) => r.minLon == null);

  it.each(cases)(
    "%s: the features whose point lies in it, and every feature without geometry",
    async (_name, box) => {
      const { seen, matched, features } = await walk(`${ITEMS}?limit=1000&bbox=${box.join(",")}`);
      const inside = rows.filter((r) => pointIn(r, box));
      expect(inside.length).toBeGreaterThan(0);
      expect(withoutGeometry.length).toBeGreaterThan(0);
      expect(matched).toBe(inside.length + withoutGeometry.length);
      expect(seen.sort()).toEqual(uids(rows.filter((r) => ogcBbox(pointIn)(r, box))));
      for (const f of features) {
        if (f.geometry)
          expect(
            pointIn(
              {
                longitude: f.geometry.coordinates[0],
                latitude: f.geometry.coordinates[1],
              } as NewLocationProofRow,
              box,
            ),
          ).toBe(true);
      }
    },
  );

  it("the world bbox matches the whole collection", async () => {
    const all = await app.get(`${ITEMS}?limit=1`);
    const world = await app.get(`${ITEMS}?limit=1&bbox=-180,-90,180,90`);
    expect(world.body.numberMatched).toBe(all.body.numberMatched);
    expect(world.body.numberMatched).toBe(rows.length);
  });

  it("tests a polygon by its point in location-proofs and by its bounds in location-proof-shapes", async () => {
    // A box that cuts a polygon's corner without holding its point (the centre of a 0.02° square).
    const polygon = rows.find((r) => r.geometry?.type === "Polygon")!;
    const box: Box = [
      polygon.maxLon! - 0.001,
      polygon.maxLat! - 0.001,
      polygon.maxLon! + 1,
      polygon.maxLat! + 1,
    ];
    const ids = async (path: string) =>
      (await app.get(`${path}?limit=1000&bbox=${box.join(",")}`)).body.features.map(
        (f: { id: string }) => f.id,
      );
    expect(await ids(ITEMS)).not.toContain(polygon.uid);
    expect(await ids(SHAPES)).toContain(polygon.uid);
  });

  it("accepts the 3D form and ignores heights", async () => {
    const flat = await app.get(`${ITEMS}?limit=1000&bbox=170,-20,-170,-10`);
    const deep = await app.get(`${ITEMS}?limit=1000&bbox=170,-20,-100,-170,-10,5000`);
    expect(deep.status).toBe(200);
    expect(deep.body.numberMatched).toBe(flat.body.numberMatched);
  });

  it.each(["1,2,3", "a,b,c,d", "0,0,200,10", "0,10,10,0", "1,2,3,4,5", "0,0,10,0,10,-5"])(
    "rejects bbox=%s",
    async (bbox) => {
      const res = await app.get(`${ITEMS}?bbox=${bbox}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "InvalidParameterValue", parameter: "bbox" });
    },
  );
});

describe("items: datetime", () => {
  const sorted = rows
    .filter((r) => r.eventTimestamp)
    .sort((a, b) => a.eventTimestamp!.getTime() - b.eventTimestamp!.getTime());
  const t = (i: number) => sorted[i]!.eventTimestamp!;
  const timeless = rows.filter((r) => !r.eventTimestamp).length;
  /** OGC Part 1 (/req/core/fc-time-response C): datetime also matches the features without a time. */
  const count = (from?: Date, to?: Date) =>
    timeless +
    rows.filter(
      (r) => r.eventTimestamp && (!from || r.eventTimestamp >= from) && (!to || r.eventTimestamp <= to),
    ).length;

  it("matches every feature without an event time, in the features and in numberMatched", async () => {
    expect(timeless).toBeGreaterThan(10);
    const at = t(500);
    for (const datetime of [
      at.toISOString(),
      `${at.toISOString()}/..`,
      `../${t(10).toISOString()}`,
      "2001-01-01",
    ]) {
      const res = await app.get(`${ITEMS}?limit=1000&datetime=${datetime}`);
      const got = res.body.features as { properties: { event_timestamp: string | null } }[];
      expect(
        got.filter((f) => f.properties.event_timestamp === null),
        datetime,
      ).toHaveLength(timeless);
      expect(res.body.numberMatched, datetime).toBe(got.length);
    }
    const none = await app.get(`${ITEMS}?datetime=2001-01-01`);
    expect(none.body.numberMatched).toBe(timeless);
  });

  it("CQL2 keeps its own rule: a temporal predicate on a null is not true", async () => {
    const at = t(500).toISOString();
    const res = await app.get(
      `${ITEMS}?filter=${encodeURIComponent(`T_AFTER(event_timestamp, TIMESTAMP('${at}'))`)}`,
    );
    expect(res.body.numberMatched).toBe(count(new Date(t(500).getTime() + 1)) - timeless);
    const not = await app.get(
      `${ITEMS}?filter=${encodeURIComponent(`NOT T_AFTER(event_timestamp, TIMESTAMP('${at}'))`)}`,
    );
    expect(not.body.numberMatched).toBe(count(undefined, t(500)) - timeless);
  });

  it("an instant matches the proofs at that instant", async () => {
    const at = t(500);
    const res = await app.get(`${ITEMS}?datetime=${at.toISOString()}`);
    expect(res.status).toBe(200);
    expect(res.body.numberMatched).toBe(count(at, at));
    expect(res.body.numberMatched).toBeGreaterThan(0);
  });

  it("a closed interval includes both ends", async () => {
    const [a, b] = [t(100), t(200)];
    const res = await app.get(`${ITEMS}?datetime=${a.toISOString()}/${b.toISOString()}`);
    expect(res.body.numberMatched).toBe(count(a, b));
    expect(res.body.numberMatched).toBeGreaterThanOrEqual(101);
  });

  it("open ends with '..' (and an empty side)", async () => {
    const a = t(900);
    expect((await app.get(`${ITEMS}?datetime=${a.toISOString()}/..`)).body.numberMatched).toBe(count(a));
    expect((await app.get(`${ITEMS}?datetime=../${a.toISOString()}`)).body.numberMatched).toBe(
      count(undefined, a),
    );
    expect((await app.get(`${ITEMS}?datetime=/${a.toISOString()}`)).body.numberMatched).toBe(
      count(undefined, a),
    );
  });

  it("a date is the whole UTC day", async () => {
    const day = t(300).toISOString().slice(0, 10);
    const from = new Date(`${day}T00:00:00Z`);
    const to = new Date(`${day}T23:59:59.999Z`);
    expect((await app.get(`${ITEMS}?datetime=${day}`)).body.numberMatched).toBe(count(from, to));
  });

  it.each(["yesterday", "2025-13-01", "../..", "2025-02-01/2025-01-01", "2025-01-01/2025-02-01/2025-03-01"])(
    "rejects datetime=%s",
    async (value) => {
      const res = await app.get(`${ITEMS}?datetime=${encodeURIComponent(value)}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "InvalidParameterValue", parameter: "datetime" });
    },
  );
});

describe("items: chain, prover, subject and their combination", () => {
  it("filters by chain (one or several), prover and subject, combined with AND", async () => {
    const prover = rows[3]!.prover;
    const subject = rows[5]!.subject;
    const box: Box = [-10, 35, 30, 60];
    expect((await app.get(`${ITEMS}?chain=celo`)).body.numberMatched).toBe(
      rows.filter((r) => r.chain === "celo").length,
    );
    expect((await app.get(`${ITEMS}?chain=celo,base`)).body.numberMatched).toBe(
      rows.filter((r) => r.chain === "celo" || r.chain === "base").length,
    );
    expect(
      (await app.get(`${ITEMS}?prover=${prover.toUpperCase().replace("0X", "0x")}`)).body.numberMatched,
    ).toBe(rows.filter((r) => r.prover === prover).length);
    expect((await app.get(`${ITEMS}?subject=${subject}`)).body.numberMatched).toBe(
      rows.filter((r) => r.subject === subject).length,
    );
    const from = new Date(NOW.getTime() - 30 * 86_400_000);
    const combined = await app.get(
      `${ITEMS}?limit=1000&chain=base&prover=${prover}&bbox=${box.join(",")}&datetime=${from.toISOString()}/..`,
    );
    const expected = rows.filter(
      (r) =>
        r.chain === "base" &&
        r.prover === prover &&
        ogcBbox(pointIn)(r, box) &&
        (!r.eventTimestamp || r.eventTimestamp >= from),
    );
    expect(combined.body.numberMatched).toBe(expected.length);
    expect(combined.body.features.map((f: { id: string }) => f.id).sort()).toEqual(uids(expected));
  });

  it("rejects unknown chains, malformed addresses, unknown and repeated parameters", async () => {
    expect((await app.get(`${ITEMS}?chain=dogechain`)).body).toMatchObject({
      code: "InvalidParameterValue",
      parameter: "chain",
    });
    expect((await app.get(`${ITEMS}?prover=0x123`)).body).toMatchObject({
      code: "InvalidParameterValue",
      parameter: "prover",
    });
    const unknown = await app.get(`${ITEMS}?colour=red`);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: "UnknownParameter", parameter: "colour" });
    expect((await app.get(`${ITEMS}?limit=1&limit=2`)).status).toBe(400);
    expect((await app.get(`${ITEMS}?bbox-crs=EPSG:3857`)).status).toBe(400);
    expect((await app.get(`${ITEMS}?bbox-crs=http://www.opengis.net/def/crs/OGC/1.3/CRS84`)).status).toBe(
      200,
    );
  });
});

describe("items: links carry every other parameter", () => {
  it("next, prev, self and alternate keep the filters", async () => {
    const res = await app.get(
      `${ITEMS}?chain=base&bbox=-180,-90,180,90&limit=3&offset=3&datetime=2025-01-01T00:00:00Z/..`,
    );
    const link = (rel: string) => new URL(res.body.links.find((l: { rel: string }) => l.rel === rel).href);
    for (const rel of ["next", "prev", "self", "alternate"]) {
      const u = link(rel);
      expect(u.searchParams.get("chain"), rel).toBe("base");
      expect(u.searchParams.get("bbox"), rel).toBe("-180,-90,180,90");
      expect(u.searchParams.get("datetime"), rel).toBe("2025-01-01T00:00:00Z/..");
      expect(u.searchParams.getAll("limit"), rel).toEqual(["3"]);
    }
    // Issue 10: next/prev carry a cursor and drop the offset.
    expect(link("next").searchParams.has("offset")).toBe(false);
    expect(link("prev").searchParams.has("offset")).toBe(false);
    const base = `${ITEMS}?chain=base&bbox=-180,-90,180,90&limit=3&datetime=2025-01-01T00:00:00Z/..`;
    expect(await featureIds(link("next").href)).toEqual(await featureIds(`${base}&offset=6`));
    expect(await featureIds(link("prev").href)).toEqual(await featureIds(`${base}&offset=0`));
    expect(link("alternate").searchParams.get("f")).toBe("html");
  });

  it("keeps each parameter's percent-encoding byte for byte (handler called directly, as on Vercel)", async () => {
    const raw =
      "filter=chain%20%3D%20%27base%27&bbox=-180%2C-90%2C180%2C90&datetime=2025-01-01T00%3A00%3A00Z%2F..&limit=2";
    const res = await itemsHandler(new Request(`${TEST_BASE}${ITEMS}?${raw}`));
    expect(res.status).toBe(200);
    const body = await res.json();
    const next = body.links.find((l: { rel: string }) => l.rel === "next").href as string;
    expect(next).toMatch(
      CURSOR_LINK(
        `${ITEMS}?filter=chain%20%3D%20%27base%27&bbox=-180%2C-90%2C180%2C90&datetime=2025-01-01T00%3A00%3A00Z%2F..&limit=2`,
      ),
    );
  });

  it("and through the local router too, which passes the query string on untouched as the platform does", async () => {
    const raw = "bbox=-180,-90,180,90&limit=2";
    const res = await app.get(`${ITEMS}?${raw}`);
    const next = res.body.links.find((l: { rel: string }) => l.rel === "next").href as string;
    expect(next).toMatch(CURSOR_LINK(`${ITEMS}?bbox=-180,-90,180,90&limit=2`));
  });
});

describe("items: sortby", () => {
  it("sorts by the given properties, completed by uid for a total order", async () => {
    const res = await app.get(`${ITEMS}?limit=1000&sortby=block_number,-chain`);
    expect(res.status).toBe(200);
    const got = res.body.features.map((f: { properties: { chain: string; block_number: number } }) => [
      f.properties.block_number,
      f.properties.chain,
    ]);
    const sorted = [...got].sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? 1 : a[1] > b[1] ? -1 : 0));
    expect(got).toEqual(sorted);
    const asc = await app.get(`${ITEMS}?limit=5&sortby=%2Bevent_timestamp`);
    const oldest = rows
      .filter((r) => r.eventTimestamp)
      .sort((a, b) => a.eventTimestamp!.getTime() - b.eventTimestamp!.getTime() || (a.uid < b.uid ? -1 : 1));
    expect(asc.body.features.map((f: { id: string }) => f.id)).toEqual(oldest.slice(0, 5).map((r) => r.uid));
  });

  it("walks a sorted query without duplicates", async () => {
    const { seen, matched } = await walk(`${ITEMS}?limit=97&sortby=chain`);
    expect(new Set(seen).size).toBe(matched);
    expect(matched).toBe(rows.length);
  });

  it.each(["colour", "-", "chain,chain"])("rejects sortby=%s", async (value) => {
    const res = await app.get(`${ITEMS}?sortby=${value}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "InvalidParameterValue", parameter: "sortby" });
  });
});

describe("items: HTML", () => {
  it("renders the shapes' map page with the page's features as a data block", async () => {
    const res = await app.get(`${SHAPES}?limit=5&bbox=-10,35,30,60`, { headers: { accept: "text/html" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.body).toMatch(/<div id="map" [^>]*><\/div>/);
    const block = /<script type="application\/json" id="features">(.*?)<\/script>/s.exec(res.body)![1]!;
    expect(JSON.parse(block).features).toHaveLength(5);
    expect(res.body).toContain("/api/ogc/assets/leaflet.js");
  });

  it("renders the map of every proof: the vector tiles with the page's filters, and the page's list", async () => {
    const res = await app.get(`${ITEMS}?limit=5&bbox=-10,35,30,60&chain=sepolia&sortby=uid`, {
      headers: { accept: "text/html" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatch(/<div id="map" [^>]*><\/div>/);
    const block = /<script type="application\/json" id="tile-map-config">(.*?)<\/script>/s.exec(
      res.body,
    )![1]!;
    const config = JSON.parse(block);
    // The tiles take the filters (chain), never what pages or orders a list, nor bbox (the map starts there).
    // Then the data version they are of (lib/data-version/tile-version.ts).
    expect(config.tiles).toMatch(
      /^\/api\/ogc\/collections\/location-proofs\/tiles\/WebMercatorQuad\/\{z\}\/\{x\}\/\{y\}\?chain=sepolia&v=[1-9]\d*$/,
    );
    expect(config.bounds).toEqual([
      [-10, 35],
      [30, 60],
    ]);
    expect(res.body).toContain("/api/ogc/assets/tile-map.mjs");
    expect(res.body.match(/<a class="uid"/g)).toHaveLength(5);
  });
});

describe("the location-proof-shapes collection", () => {
  it("serves the decoded shapes, with a GeoJSON bbox on non-point features, and the same properties", async () => {
    const { features, matched } = await walk(`${SHAPES}?limit=1000`);
    expect(matched).toBe(rows.length);
    const points = await walk(`${ITEMS}?limit=1000`);
    const byId = new Map(rows.map((r) => [r.uid, r]));
    for (const f of features as { id: string; geometry: unknown; bbox?: number[] }[]) {
      const r = byId.get(f.id)!;
      expect(f.geometry).toEqual(r.geometry ?? null);
      if (r.geometry && r.geometry.type !== "Point")
        expect(f.bbox).toEqual([r.minLon, r.minLat, r.maxLon, r.maxLat]);
      else expect(f).not.toHaveProperty("bbox");
    }
    expect(features.some((f) => f.geometry?.type === "Polygon")).toBe(true);
    const shapes = await app.get(`${SHAPES}?limit=3&sortby=uid`);
    const same = await app.get(`${ITEMS}?limit=3&sortby=uid`);
    expect(shapes.body.features.map((f: { properties: unknown }) => f.properties)).toEqual(
      same.body.features.map((f: { properties: unknown }) => f.properties),
    );
    expect(points.matched).toBe(matched);
  });

  it("filters bbox on the geometry's bounds, plus every feature without geometry", async () => {
    const box: Box = [-10, 35, 30, 60];
    const { seen, matched } = await walk(`${SHAPES}?limit=1000&bbox=${box.join(",")}`);
    const expected = rows.filter((r) => ogcBbox(intersects)(r, box));
    expect(matched).toBe(expected.length);
    expect(seen.sort()).toEqual(uids(expected));
  });

  it("takes the same filters, sortby and paging, with links to its own paths", async () => {
    const res = await app.get(`${SHAPES}?limit=2&chain=base&filter=${encodeURIComponent("revoked = false")}`);
    expect(res.status).toBe(200);
    expect(res.body.numberMatched).toBe(rows.filter((r) => r.chain === "base" && !r.revoked).length);
    const link = (rel: string) => res.body.links.find((l: { rel: string }) => l.rel === rel).href as string;
    expect(link("next")).toMatch(
      CURSOR_LINK(`${SHAPES}?chain=base&filter=${encodeURIComponent("revoked = false")}&limit=2`),
    );
    expect(link("collection")).toBe(`${TEST_BASE}/api/ogc/collections/location-proof-shapes`);
    const polygon = rows.find((r) => r.geometry?.type === "Polygon")!;
    const one = await app.get(`${SHAPES}/${polygon.uid}`);
    expect(one.status).toBe(200);
    expect(one.body.geometry).toEqual(polygon.geometry);
    expect(one.body.links.find((l: { rel: string }) => l.rel === "self").href).toBe(
      `${TEST_BASE}${SHAPES}/${polygon.uid}`,
    );
    const point = await app.get(`${ITEMS}/${polygon.uid}`);
    expect(point.body.geometry).toEqual({
      type: "Point",
      coordinates: [polygon.longitude, polygon.latitude],
    });
    expect((await app.get(`${SHAPES}/0x${"0".repeat(64)}`)).status).toBe(404);
  });

  it("S_INTERSECTS tests each collection's own geometry", async () => {
    const polygon = rows.find((r) => r.geometry?.type === "Polygon")!;
    const corner = `S_INTERSECTS(geometry, BBOX(${polygon.maxLon! - 0.001}, ${polygon.maxLat! - 0.001}, ${polygon.maxLon! + 1}, ${polygon.maxLat! + 1}))`;
    const ids = async (path: string) =>
      (await app.get(`${path}?limit=1000&filter=${encodeURIComponent(corner)}`)).body.features.map(
        (f: { id: string }) => f.id,
      );
    expect(await ids(ITEMS)).not.toContain(polygon.uid);
    expect(await ids(SHAPES)).toContain(polygon.uid);
  });
});

describe("items: numberMatched under the OGC rule is counted in parts", () => {
  it("the parts (inside the box or without geometry, in the interval or without a time) add up to one plain COUNT", async () => {
    const { countProofs, countParts } = await import("../../lib/proofs/count.js");
    const { itemsFilter } = await import("../../lib/ogc/items.js");
    const { COLLECTIONS } = await import("../../lib/ogc/vocabulary.js");
    const interval = { start: new Date(NOW.getTime() - 30 * 86_400_000) };
    const box = { minLon: -10, minLat: 35, maxLon: 30, maxLat: 60 };
    for (const collection of Object.values(COLLECTIONS)) {
      for (const q of [
        { bbox: box },
        { datetime: interval },
        { bbox: box, datetime: interval, chain: ["base"] },
      ]) {
        const filter = itemsFilter(q, collection);
        const parts = countParts(filter);
        expect(parts.length).toBe((q.bbox ? 2 : 1) * ("datetime" in q ? 2 : 1));
        let sum = 0;
        for (const part of parts) sum += await countProofs(app.db, part);
        const whole = await countProofs(app.db, filter);
        expect(sum, JSON.stringify(q)).toBe(whole);
        const params = new URLSearchParams({
          ...(q.bbox ? { bbox: "-10,35,30,60" } : {}),
          ...("datetime" in q ? { datetime: `${interval.start.toISOString()}/..` } : {}),
          ...("chain" in q ? { chain: "base" } : {}),
        });
        const res = await app.get(`/api/ogc/collections/${collection.id}/items?${params}`);
        expect(res.body.numberMatched).toBe(whole);
      }
    }
  });
});

describe("the three requests that answered 500 (issue 9) answer 400 naming the parameter", () => {
  it.each([
    ["/api/v0/location-proofs?toTimestamp=0000-01-01T00:00:00Z", "toTimestamp"],
    ["/api/v0/location-proofs?fromTimestamp=0001-01-01T00:00:00%2B01:00", "fromTimestamp"],
    [`${ITEMS}?datetime=0000-01-01T00:00:00Z`, "datetime"],
    [`${SHAPES}?datetime=../0000-12-31`, "datetime"],
    // ~1,000 nested NOT as sent (12 kB with the encoding), and one that fits the length limit.
    [
      `${ITEMS}?filter=${encodeURIComponent(`${"NOT ".repeat(1000)}chain = 'base'`).replace(/%20/g, "+")}`,
      "filter",
    ],
    [`${ITEMS}?filter=${encodeURIComponent(`${"NOT ".repeat(2000)}chain = 'base'`)}`, "filter"],
  ])("%s", async (path, parameter) => {
    const res = await app.get(path);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "InvalidParameterValue", parameter });
  });
});
