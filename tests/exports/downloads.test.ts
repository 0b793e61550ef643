import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { Ajv } from "ajv";
import { sql } from "drizzle-orm";
import { deserialize, parseProperties } from "flatgeobuf/lib/mjs/generic.js";
import { afterEach, describe, expect, it } from "vitest";
import { GET as itemsGet } from "../../api/ogc/collections/location-proofs/items/index.js";
import { encoderThreadWanted } from "../../lib/exports/thread.js";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import { OGC_PROPERTIES } from "../../lib/proofs/properties.js";
import { appWith, TEST_BASE, type TestApp } from "../helpers/app.js";

// Downloads (issue 37): each format holds exactly the features a harvest of the items' pages holds for the same
// filter, read back by readers the service does not write with (DuckDB for CSV and Parquet; GDAL in
// tests/exports/gdal.test.ts), and a failure after the first byte never leaves a file that reads as whole.

let app: TestApp;
const NOW = new Date("2025-06-01T00:00:00Z");
const rows = sampleProofs({ count: 1300, seed: 37, now: NOW });
appWith(rows, (a) => {
  app = a;
});

const ITEMS = "/api/ogc/collections/location-proofs/items";
const SHAPES = "/api/ogc/collections/location-proof-shapes/items";
const LIST = "/api/v0/location-proofs";
const FILTERS = [
  "",
  "bbox=-30,-60,60,70",
  "datetime=2025-01-01T00:00:00Z/..&chain=base,sepolia",
  "filter=revoked=false",
];
const work = mkdtempSync(join(tmpdir(), "lpqs-exports-"));

type HarvestedFeature = {
  id: string;
  geometry: { type: string; coordinates: number[] } | null;
  properties: Record<string, unknown>;
};

/** Every feature of the items for a query, in order, by following next links (the harvest a client does today). */
async function harvestFeatures(path: string, query: string): Promise<HarvestedFeature[]> {
  const features: HarvestedFeature[] = [];
  let url: string | null = `${path}?limit=1000${query ? `&${query}` : ""}`;
  while (url) {
    const res = await app.get(url.replace(TEST_BASE, ""));
    expect(res.status, url).toBe(200);
    features.push(...res.body.features);
    url = res.body.links.find((l: { rel: string }) => l.rel === "next")?.href ?? null;
  }
  return features;
}

/** Every feature id of the items for a query, in order (harvestFeatures). */
const harvest = async (path: string, query: string): Promise<string[]> =>
  (await harvestFeatures(path, query)).map((f) => f.id);

async function download(path: string, query: string, init?: RequestInit) {
  const res = await app.request(`${path}?${query}`, init);
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { res, bytes, text: new TextDecoder().decode(bytes) };
}

async function duck<T = Record<string, unknown>>(query: string): Promise<T[]> {
  const db = await DuckDBInstance.create(":memory:");
  const c = await db.connect();
  try {
    return (await c.runAndReadAll(query)).getRowObjectsJson() as T[];
  } finally {
    c.closeSync();
  }
}

/**
 * The ids of a FlatGeobuf file, in order, read by the package's generic reader (its GeoJSON reader cannot read a
 * feature without geometry, which the format allows; GDAL reads the same files in tests/exports/gdal.test.ts).
 */
async function fgbIdsOf(bytes: Uint8Array): Promise<string[]> {
  const ids: string[] = [];
  const read = deserialize(bytes, {
    fromFeature: (_id, feature, header) => ({
      getProperties: () => parseProperties(feature, header.columns),
    }),
  });
  for await (const feature of read) ids.push(feature.getProperties!().id as string);
  return ids;
}

/** A point's coordinates from its WKB in hex (ISO, little-endian), or a throw for any other geometry. */
function pointOfWkb(hex: string): number[] {
  const bytes = Buffer.from(hex, "hex");
  expect([bytes.length, bytes[0], bytes.readUInt32LE(1)]).toEqual([21, 1, 1]);
  return [bytes.readDoubleLE(5), bytes.readDoubleLE(13)];
}

const seqIds = (text: string) =>
  text
    .split("\x1e")
    .slice(1)
    .map((record) => {
      expect(record.endsWith("\n")).toBe(true);
      return JSON.parse(record).id as string;
    });

describe("downloads hold exactly the harvest of the items for the same filter", () => {
  for (const query of FILTERS) {
    it(`GeoJSON Text Sequence, CSV, GeoParquet, FlatGeobuf: ${query || "no filter"}`, async () => {
      const features = await harvestFeatures(ITEMS, query);
      const expected = features.map((f) => f.id);
      expect(expected.length).toBeGreaterThan(0);
      const q = (f: string) => `f=${f}${query ? `&${query}` : ""}`;

      const seq = await download(ITEMS, q("geojsonseq"));
      expect(seq.res.status).toBe(200);
      expect(seq.res.headers.get("content-type")).toBe("application/geo+json-seq");
      expect(seq.res.headers.get("x-export-rows")).toBe(String(expected.length));
      expect(seq.res.headers.get("link")).toBeNull();
      expect(seqIds(seq.text)).toEqual(expected);

      const csv = await download(ITEMS, q("csv"));
      expect(csv.res.headers.get("content-type")).toMatch(/^text\/csv/);
      const csvFile = join(work, "items.csv");
      writeFileSync(csvFile, csv.bytes);
      const csvRows = await duck<{
        id: string;
        geometry: string;
        longitude: number | null;
        latitude: number | null;
      }>(`select * from read_csv('${csvFile}', header = true, all_varchar = false)`);
      expect(csvRows.map((r) => r.id)).toEqual(expected);
      const header = csv.text.slice(0, csv.text.indexOf("\r\n")).split(",");
      expect(header).toEqual(["id", "geometry", ...OGC_PROPERTIES.map((p) => p.name)]);
      for (const r of csvRows) {
        if (r.longitude === null) expect(r.geometry).toBeNull();
        else expect(r.geometry).toBe(`POINT (${r.longitude} ${r.latitude})`);
      }

      const parquet = await download(ITEMS, q("parquet"));
      expect(parquet.res.headers.get("content-type")).toBe("application/vnd.apache.parquet");
      const parquetFile = join(work, "items.parquet");
      writeFileSync(parquetFile, parquet.bytes);
      const parquetRows = await duck<{ id: string; has_geometry: boolean; lon_ok: boolean }>(
        `select id, geometry is not null as has_geometry,
                (bbox is null and longitude is null) or (bbox.xmin = longitude and bbox.ymax = latitude) as lon_ok
         from read_parquet('${parquetFile}')`,
      );
      expect(parquetRows.map((r) => r.id)).toEqual(expected);
      expect(parquetRows.every((r) => r.lon_ok)).toBe(true);
      // The text, written plain (a row group's values of a column share one buffer) or as a dictionary, and each
      // point's WKB, value by value.
      const text = ["uid", "tx_hash", "location", "prover", "subject", "memo", "chain"];
      const values = await duck<Record<string, string | null> & { wkb: string | null }>(
        `set enable_geoparquet_conversion = false;
         select ${text.join(", ")}, hex(geometry) as wkb from read_parquet('${parquetFile}')`,
      );
      expect(values.map((r) => text.map((k) => r[k]))).toEqual(
        features.map((f) => text.map((k) => f.properties[k] ?? null)),
      );
      expect(values.map((r) => r.wkb && pointOfWkb(r.wkb))).toEqual(
        features.map((f) => f.geometry?.coordinates ?? null),
      );

      const fgb = await download(ITEMS, q("fgb"));
      expect(fgb.res.headers.get("content-type")).toBe("application/flatgeobuf");
      expect(await fgbIdsOf(fgb.bytes)).toEqual(expected);
    });
  }

  it("the shapes collection and the native list download too, with their own filter rules", async () => {
    const shapes = await harvest(SHAPES, "bbox=0,0,60,60");
    const seq = await download(SHAPES, "f=geojsonseq&bbox=0,0,60,60");
    expect(seqIds(seq.text)).toEqual(shapes);
    const parquet = await download(SHAPES, "f=parquet&bbox=0,0,60,60");
    const file = join(work, "shapes.parquet");
    writeFileSync(file, parquet.bytes);
    expect((await duck<{ id: string }>(`select id from read_parquet('${file}')`)).map((r) => r.id)).toEqual(
      shapes,
    );

    const page = await app.get(`${LIST}?chain=base&limit=100`);
    const list = await download(LIST, "f=csv&chain=base");
    expect(list.res.headers.get("x-export-rows")).toBe(String(page.body.pagination.total));
    expect(list.text.trimEnd().split("\r\n").length - 1).toBe(page.body.pagination.total);
  });

  it("near and radius: every feature within the circle, its distance a column", async () => {
    const query = "near=13.4,52.5&radius=3000000";
    const expected = await harvest(ITEMS, query);
    const csv = await download(ITEMS, `f=csv&${query}`);
    const file = join(work, "near.csv");
    writeFileSync(file, csv.bytes);
    const got = await duck<{ id: string; distance: number }>(`select id, distance from read_csv('${file}')`);
    expect(got.map((r) => r.id)).toEqual(expected);
    expect(got.every((r) => r.distance >= 0 && r.distance <= 3_000_000)).toBe(true);
  });

  it("GeoParquet's geo metadata validates against the GeoParquet 1.1 JSON Schema", async () => {
    const parquet = await download(SHAPES, "f=parquet");
    const file = join(work, "geo.parquet");
    writeFileSync(file, parquet.bytes);
    const [kv] = await duck<{ value: string }>(
      `select decode(value) as value from parquet_kv_metadata('${file}') where decode(key) = 'geo'`,
    );
    const geo = JSON.parse(kv!.value);
    const schema = JSON.parse(
      readFileSync(new URL("../data/geoparquet/schema-1.1.0.json", import.meta.url), "utf8"),
    );
    const ajv = new Ajv({ strict: false });
    // The schema refers to PROJJSON for a `crs` member; the downloads write none (CRS84, the default), and the
    // PROJJSON schema is not fetched offline: an empty stand-in resolves the reference.
    ajv.addSchema({ $id: "https://proj.org/schemas/v0.7/projjson.schema.json" });
    expect(ajv.validate(schema, geo), ajv.errorsText()).toBe(true);
    expect(geo.columns.geometry.covering.bbox.xmin).toEqual(["bbox", "xmin"]);
  });
});

describe("asking for a download", () => {
  it("an items page links each download of its filter (rel enclosure), without its paging, in JSON and HTML", async () => {
    const page = await app.get(`${ITEMS}?bbox=0,0,60,60&chain=base&limit=5&offset=5`);
    const enclosures = page.body.links.filter((l: { rel: string }) => l.rel === "enclosure");
    expect(enclosures.map((l: { type: string }) => l.type).sort()).toEqual([
      "application/flatgeobuf",
      "application/geo+json-seq",
      "application/vnd.apache.parquet",
      "text/csv",
    ]);
    const csv = enclosures.find((l: { type: string }) => l.type === "text/csv");
    expect(csv.href).toBe(`${TEST_BASE}${ITEMS}?bbox=0,0,60,60&chain=base&f=csv`);
    const seq = await download(ITEMS, "bbox=0,0,60,60&chain=base&f=geojsonseq");
    expect(Number(seq.res.headers.get("x-export-rows"))).toBe(page.body.numberMatched);
    const html = await app.get(`${ITEMS}?bbox=0,0,60,60&chain=base&f=html`);
    expect(html.body).toContain(`${ITEMS}?bbox=0,0,60,60&amp;chain=base&amp;f=parquet`);
  });

  it("Accept chooses a download; f wins over Accept; a page type ranked first keeps the page", async () => {
    const csv = await app.request(`${ITEMS}?limit=3`, { headers: { accept: "text/csv" } });
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    expect((await csv.text()).trimEnd().split("\r\n")).toHaveLength(4);
    const seq = await app.request(`${ITEMS}?f=geojsonseq&limit=2`, { headers: { accept: "text/csv" } });
    expect(seq.headers.get("content-type")).toBe("application/geo+json-seq");
    await seq.arrayBuffer();
    const page = await app.get(`${ITEMS}?limit=2`, {
      headers: { accept: "application/geo+json, application/flatgeobuf;q=0.5" },
    });
    expect(page.body.type).toBe("FeatureCollection");
  });

  it("limit caps the whole download (not clamped to the page maximum)", async () => {
    const { res, text } = await download(ITEMS, "f=geojsonseq&limit=1200");
    expect(res.headers.get("x-export-rows")).toBe("1200");
    expect(seqIds(text)).toHaveLength(1200);
  });

  it("a bad filter is a 400, an unknown f a 400, an Accept naming nothing served a 406: JSON errors, before any byte", async () => {
    const badBbox = await app.get(`${ITEMS}?f=parquet&bbox=1,2,3`);
    expect(badBbox.status).toBe(400);
    expect(badBbox.body.parameter).toBe("bbox");
    const badCql = await app.get(`${ITEMS}?f=csv&filter=nope%20%3D%3D`);
    expect(badCql.status).toBe(400);
    const badF = await app.get(`${ITEMS}?f=xlsx`);
    expect(badF.status).toBe(400);
    expect(badF.body.parameter).toBe("f");
    const notAcceptable = await app.get(`${ITEMS}`, { headers: { accept: "application/xml" } });
    expect(notAcceptable.status).toBe(406);
    expect(notAcceptable.body.code).toBe("NotAcceptable");
    const listNotAcceptable = await app.get(`${LIST}`, { headers: { accept: "image/png" } });
    expect(listNotAcceptable.status).toBe(406);
    const cursor = await app.get(`${ITEMS}?f=csv&cursor=abc`);
    expect(cursor.status).toBe(400);
    expect(cursor.body.parameter).toBe("cursor");
  });
});

describe("one invocation's row budget", () => {
  afterEach(() => {
    delete process.env.EXPORT_MAX_ROWS;
  });

  it("a download past EXPORT_MAX_ROWS is cut there, and its Link rel=next header names the rest", async () => {
    const expected = await harvest(ITEMS, "chain=base,arbitrum");
    process.env.EXPORT_MAX_ROWS = "300";
    const ids: string[] = [];
    let url: string | undefined = `${ITEMS}?f=geojsonseq&chain=base,arbitrum`;
    let parts = 0;
    while (url) {
      const res = await app.request(url.replace(TEST_BASE, ""));
      const got = seqIds(await res.text());
      expect(res.headers.get("x-export-rows")).toBe(String(got.length));
      ids.push(...got);
      url = /^<([^>]+)>; rel="next"/.exec(res.headers.get("link") ?? "")?.[1];
      parts++;
    }
    expect(parts).toBe(Math.ceil(expected.length / 300));
    expect(ids).toEqual(expected);
  });
});

// A real fault, made on demand: the table is renamed while the download waits for its second batch, so the
// next statement fails as a dropped table would. (The handler is called directly: the contract recorder would
// read the body ahead of the test.)
async function failMidway(f: string): Promise<{ bytes: Uint8Array; error: unknown; announced: number }> {
  const res = await itemsGet(new Request(`${TEST_BASE}${ITEMS}?f=${f}`));
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const chunks: Uint8Array[] = [];
  const first = await reader.read();
  chunks.push(first.value!);
  await app.db.execute(sql`alter table location_proofs rename to location_proofs_away`);
  let error: unknown;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
  } catch (e) {
    error = e;
  } finally {
    await app.db.execute(sql`alter table location_proofs_away rename to location_proofs`);
  }
  return { bytes: Buffer.concat(chunks), error, announced: Number(res.headers.get("x-export-rows")) };
}

describe("a failure after the first byte", () => {
  it("errors the body (a client sees an aborted response), and no format reads as complete", async () => {
    const seq = await failMidway("geojsonseq");
    expect(seq.error).toBeDefined();
    expect(seqIds(new TextDecoder().decode(seq.bytes)).length).toBeLessThan(seq.announced);

    const parquet = await failMidway("parquet");
    expect(parquet.error).toBeDefined();
    const file = join(work, "cut.parquet");
    writeFileSync(file, parquet.bytes);
    await expect(duck(`select count(*) from read_parquet('${file}')`)).rejects.toThrow();

    const fgb = await failMidway("fgb");
    expect(fgb.error).toBeDefined();
    expect((await fgbIdsOf(fgb.bytes)).length).toBeLessThan(fgb.announced);
  });
});

describe("GeoParquet encoded on a worker thread (EXPORT_ENCODER_THREAD=1)", () => {
  afterEach(() => {
    delete process.env.EXPORT_ENCODER_THREAD;
  });

  it("writes the very bytes the request's own thread writes, for either collection and the native list", async () => {
    for (const [path, query] of [
      [ITEMS, "f=parquet"],
      [ITEMS, "f=parquet&bbox=-30,-60,60,70&limit=700"],
      [SHAPES, "f=parquet"],
      [LIST, "f=parquet&chain=base"],
    ] as const) {
      const inline = await download(path, query);
      process.env.EXPORT_ENCODER_THREAD = "1";
      expect(encoderThreadWanted()).toBe(true);
      const threaded = await download(path, query);
      delete process.env.EXPORT_ENCODER_THREAD;
      expect(threaded.res.status).toBe(200);
      expect(threaded.bytes.length).toBeGreaterThan(1000);
      expect(Buffer.from(threaded.bytes).equals(Buffer.from(inline.bytes)), `${path}?${query}`).toBe(true);
    }
  });

  it("a failure after the first byte errors the body, and the file does not read as complete", async () => {
    process.env.EXPORT_ENCODER_THREAD = "1";
    const parquet = await failMidway("parquet");
    expect(parquet.error).toBeDefined();
    const file = join(work, "cut-thread.parquet");
    writeFileSync(file, parquet.bytes);
    await expect(duck(`select count(*) from read_parquet('${file}')`)).rejects.toThrow();
  });
});
