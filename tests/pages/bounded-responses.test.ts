import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewLocationProofRow } from "../../db/schema.js";
import { GEOMETRY_BYTES, JSON_BYTES, PAGE_BYTES, TEXT_CHARS } from "../../lib/bounds/limits.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

/**
 * Bounded responses (docs/security.md): the lists (native, both OGC collections, GraphQL, the MCP search) carry each
 * attested value up to its bound, mark a cut record `truncated` with the path of its whole record, and end a page
 * before its records pass PAGE_BYTES, its next link going on from there; the record by uid has every value whole.
 * Synthetic rows stand for what an attester can write (the devnet test writes some through EAS:
 * tests/sync/bounded-values.test.ts).
 */
let app: TestApp;
const NOW = new Date("2026-06-15T12:00:00Z");
/** Rows whose values are far past every bound, newest first so the first pages hold them. */
const HUGE = 3;
/** Rows whose cut values still weigh about as much as a list record can (escaped text, geometry near its bound). */
const HEAVY = 40;
let rows: NewLocationProofRow[];
let huge: NewLocationProofRow[];
let heavy: NewLocationProofRow[];

/** A text of `n` characters that JSON writes as six bytes each (\u0001). */
const escaped = (n: number) => "\u0001".repeat(n);
/** A row's location columns as a LineString whose GeoJSON text is about `bytes` long. */
function line(r: NewLocationProofRow, bytes: number) {
  const coordinates: [number, number][] = [];
  for (let i = 0; coordinates.length * 24 < bytes; i++) coordinates.push([13 + i * 1e-6, 52.123456]);
  Object.assign(r, {
    geometry: { type: "LineString", coordinates },
    longitude: 13,
    latitude: 52.123456,
    minLon: 13,
    minLat: 52.123456,
    maxLon: coordinates.at(-1)![0],
    maxLat: 52.123456,
  });
}

beforeAll(async () => {
  app = await createTestApp();
  rows = sampleProofs({ count: 120, seed: 5, now: NOW, days: 30 });
  huge = rows.slice(0, HUGE);
  heavy = rows.slice(HUGE, HUGE + HEAVY);
  huge.forEach((r, i) => {
    r.eventTimestamp = new Date(NOW.getTime() + (100 - i) * 86_400_000);
    r.memo = `memo ${i} ${"m".repeat(300_000)}`;
    r.location = `location ${i} ${"L".repeat(150_000)}`;
    r.mediaType = ["image/png"];
    r.mediaData = [`data:image/png;base64,${"A".repeat(200_000)}`];
    r.applicationFields = { blob: "b".repeat(JSON_BYTES + 10) };
    line(r, GEOMETRY_BYTES + 50_000);
  });
  heavy.forEach((r, i) => {
    r.eventTimestamp = new Date(NOW.getTime() + (50 - i) * 86_400_000);
    for (const k of ["memo", "location", "srs", "locationType", "lpVersion"] as const)
      r[k] = escaped(TEXT_CHARS + 100);
    line(r, GEOMETRY_BYTES - 20_000);
  });
  await insertProofs(app.db, rows);
}, 120_000);
afterAll(() => app.close());

const bytesOf = (text: string) => Buffer.byteLength(text);

async function getText(path: string, init?: RequestInit) {
  const res = await app.request(path, init);
  return { status: res.status, text: await res.text() };
}

/** Every page of a list from `path`, following next links: each page's bytes, and the records in order. */
async function walk(path: string, items: (body: any) => any[], next: (body: any) => string | null) {
  const pages: { bytes: number; count: number }[] = [];
  const records: any[] = [];
  for (let url: string | null = path; url; ) {
    const res = await getText(url);
    expect(res.status, url).toBe(200);
    const body = JSON.parse(res.text);
    pages.push({ bytes: bytesOf(res.text), count: items(body).length });
    records.push(...items(body));
    url = next(body);
    if (pages.length > 200) throw new Error("too many pages");
  }
  return { pages, records };
}

describe("the native list", () => {
  it("cuts long values, marks the record, and keeps short ones whole and unmarked", async () => {
    const res = await app.get("/api/v0/location-proofs?limit=3");
    expect(res.status).toBe(200);
    for (const [i, record] of res.body.data.entries()) {
      const row = huge[i]!;
      expect(record.uid).toBe(row.uid);
      expect(record.memo).toBe(row.memo!.slice(0, TEXT_CHARS));
      expect(record.location).toBe(row.location!.slice(0, TEXT_CHARS));
      expect(record.media_data).toBeNull();
      expect(record.media_type).toEqual(["image/png"]);
      expect(record.application_fields).toBeNull();
      expect(record.geometry).toBeNull();
      expect(record.truncated.href).toBe(`/api/v0/location-proofs/${row.uid}`);
      expect(new Set(record.truncated.fields)).toEqual(
        new Set(["memo", "location", "media_data", "application_fields", "geometry"]),
      );
    }
    const plain = await app.get("/api/v0/location-proofs?limit=5&toTimestamp=2026-06-15T12:00:00Z");
    expect(plain.body.data).toHaveLength(5);
    for (const record of plain.body.data) expect(record).not.toHaveProperty("truncated");
  });

  it("the record by uid has every value whole", async () => {
    const row = huge[0]!;
    const res = await app.get(`/api/v0/location-proofs/${row.uid}`);
    expect(res.status).toBe(200);
    expect(res.body.memo).toBe(row.memo);
    expect(res.body.location).toBe(row.location);
    expect(res.body.media_data).toEqual(row.mediaData);
    expect(res.body.application_fields).toEqual(row.applicationFields);
    expect(res.body.geometry.coordinates).toHaveLength((row.geometry as any).coordinates.length);
    expect(res.body).not.toHaveProperty("truncated");
  });

  it("ends a page before its records pass PAGE_BYTES, and the next links reach every record once, in order", async () => {
    const first = await getText("/api/v0/location-proofs?limit=1000");
    const body = JSON.parse(first.text);
    expect(bytesOf(first.text)).toBeLessThanOrEqual(PAGE_BYTES + 2048);
    // The heavy records weigh well over 100 kB each: far fewer than the limit fit.
    expect(body.data.length).toBeLessThan(HUGE + HEAVY);
    expect(body.data.length).toBeGreaterThan(1);
    expect(body.pagination.next).not.toBeNull();
    const big = await walk(
      "/api/v0/location-proofs?limit=1000",
      (b) => b.data,
      (b) => b.pagination.next,
    );
    const small = await walk(
      "/api/v0/location-proofs?limit=4",
      (b) => b.data,
      (b) => b.pagination.next,
    );
    for (const page of big.pages) expect(page.bytes).toBeLessThanOrEqual(PAGE_BYTES + 2048);
    expect(big.pages.length).toBeGreaterThan(2);
    const uids = big.records.map((r) => r.uid);
    expect(new Set(uids).size).toBe(uids.length);
    expect(uids).toEqual(small.records.map((r) => r.uid));
    expect(uids.length).toBe(rows.filter((r) => !r.revoked).length);
  }, 120_000);

  it("a prev link from a page the budget ended goes back to the page before it", async () => {
    const first = await app.get("/api/v0/location-proofs?limit=1000");
    const second = await app.get(first.body.pagination.next.replace("http://localhost:3000", ""));
    expect(second.status).toBe(200);
    const back = await app.get(second.body.pagination.prev.replace("http://localhost:3000", ""));
    expect(back.status).toBe(200);
    const tail = back.body.data.map((r: any) => r.uid);
    // Read backwards from the second page, the budget keeps the records nearest to it: the first page's last ones.
    const firstUids = first.body.data.map((r: any) => r.uid);
    expect(tail.length).toBeGreaterThan(0);
    expect(firstUids.slice(-tail.length)).toEqual(tail);
  });
});

describe("the OGC items", () => {
  it("cut values in both collections and both encodings, the shapes' geometry past its bound null", async () => {
    for (const collection of ["location-proofs", "location-proof-shapes"]) {
      for (const f of ["json", "jsonfg"]) {
        const res = await app.get(`/api/ogc/collections/${collection}/items?limit=3&f=${f}`);
        expect(res.status, `${collection} ${f}`).toBe(200);
        const feature = res.body.features.find((x: any) => x.id === huge[0]!.uid);
        expect(feature.properties.memo).toBe(huge[0]!.memo!.slice(0, TEXT_CHARS));
        expect(feature.properties.media_data).toBeNull();
        expect(feature.properties.truncated.href).toBe(
          `/api/ogc/collections/${collection}/items/${huge[0]!.uid}`,
        );
        if (collection === "location-proof-shapes") {
          expect(feature.geometry).toBeNull();
          expect(feature.properties.truncated.fields).toContain("geometry");
        } else expect(feature.geometry.type).toBe("Point");
      }
    }
    const one = await app.get(`/api/ogc/collections/location-proof-shapes/items/${huge[0]!.uid}`);
    expect(one.status).toBe(200);
    expect(one.body.properties.memo).toBe(huge[0]!.memo);
    expect(one.body.geometry.type).toBe("LineString");
    expect(one.body.properties).not.toHaveProperty("truncated");
  });

  it("an item's HTML page shows the values as a list carries them, says which were cut and links the whole record", async () => {
    const uid = huge[0]!.uid;
    for (const collection of ["location-proofs", "location-proof-shapes"]) {
      const res = await app.request(`/api/ogc/collections/${collection}/items/${uid}?f=html`);
      expect(res.status).toBe(200);
      const html = await res.text();
      // The proof's values are about 0.9 MB; the page carries at most a list record's worth of each, twice (the
      // table and the map's feature).
      expect(html.length).toBeLessThan(100_000);
      expect(html).toContain(huge[0]!.memo!.slice(0, TEXT_CHARS));
      expect(html).not.toContain(huge[0]!.memo!.slice(0, TEXT_CHARS + 1));
      // The points collection's geometry is the proof's point; the shapes collection's is the line, past its bound.
      const shapes = collection === "location-proof-shapes" ? ", geometry" : "";
      expect(html).toContain(
        `Cut for this page, as a list carries them: location, memo, media_data, application_fields${shapes}.`,
      );
      expect(html).toContain(`/api/ogc/collections/${collection}/items/${uid}?f=json`);
    }
    // A record within every bound is shown whole, with no such note.
    const plain = await app.request(`/api/ogc/collections/location-proofs/items/${rows.at(-1)!.uid}?f=html`);
    expect(await plain.text()).not.toContain("Cut for this page");
  });

  it("ends an items page at the byte bound, and the next links reach every feature once", async () => {
    const path = "/api/ogc/collections/location-proof-shapes/items?limit=1000";
    const big = await walk(
      path,
      (b) => b.features,
      (b) => b.links.find((l: any) => l.rel === "next")?.href?.replace("http://localhost:3000", "") ?? null,
    );
    for (const page of big.pages) expect(page.bytes).toBeLessThanOrEqual(PAGE_BYTES + 8192);
    expect(big.pages.length).toBeGreaterThan(2);
    const ids = big.records.map((f) => f.id);
    expect(new Set(ids).size).toBe(rows.length);
    expect(ids).toHaveLength(rows.length);
  }, 120_000);
});

describe("GraphQL", () => {
  const post = async (query: string) => {
    const res = await getText("/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ query }),
    });
    return { ...res, body: JSON.parse(res.text) };
  };

  it("a plain selection carries the bounded values; selecting `truncated` gives the marker", async () => {
    const plain = await post("{ locationProofs(first: 3) { nodes { uid memo mediaData } } }");
    expect(plain.status).toBe(200);
    const node = plain.body.data.locationProofs.nodes[0];
    expect(node.memo).toBe(huge[0]!.memo!.slice(0, TEXT_CHARS));
    expect(node.mediaData).toBeNull();
    const marked = await post("{ locationProofs(first: 5) { nodes { uid truncated { fields href } } } }");
    expect(marked.body.data.locationProofs.nodes[0].truncated.href).toBe(
      `/api/v0/location-proofs/${huge[0]!.uid}`,
    );
    const one = await post(`{ locationProof(uid: "${huge[0]!.uid}") { memo truncated { fields } } }`);
    expect(one.body.data.locationProof.memo).toBe(huge[0]!.memo);
    expect(one.body.data.locationProof.truncated).toBeNull();
  });

  it("a page of every heavy field stays within PAGE_BYTES, however the selection is made", async () => {
    const fields = "uid memo location srs locationType lpVersion geometry";
    for (const query of [
      `{ locationProofs(first: 100) { nodes { ${fields} } } }`,
      // graphql-js executes this one over the records (two nodes keys), each value asked twice.
      `{ locationProofs(first: 100) { nodes { ${fields} } more: nodes { ${fields} m2: memo } } }`,
      `{ a: locationProofs(first: 100) { nodes { ${fields} } } b: locationProofs(first: 100) { nodes { ${fields} } } }`,
    ]) {
      const res = await post(query);
      expect(res.status, query).toBe(200);
      expect(res.body.errors, query).toBeUndefined();
      expect(bytesOf(res.text), query).toBeLessThanOrEqual(PAGE_BYTES + 8192);
      const page = res.body.data.locationProofs ?? res.body.data.a;
      expect(page.nodes.length).toBeGreaterThan(0);
      expect(page.pageInfo ?? { hasNextPage: true }).toBeTruthy();
    }
  });
});
