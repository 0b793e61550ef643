import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { sql } from "drizzle-orm";
import { deserialize, parseProperties } from "flatgeobuf/lib/mjs/generic.js";
import { describe, expect, it } from "vitest";
import { queryRows } from "../../db/client.js";
import { exportColumns } from "../../lib/exports/columns.js";
import { pointTableRow } from "../../lib/exports/table-sql.js";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import { pointFeatureJson } from "../../lib/proofs/json-sql.js";
import { distanceSql } from "../../lib/proofs/near.js";
import { OGC_PROPERTIES } from "../../lib/proofs/properties.js";
import { appWith, type TestApp } from "../helpers/app.js";

// FlatGeobuf and GeoParquet downloads of the point collection (and of the native list) read each row as a JSON array
// written by PostgreSQL (lib/exports/table-row.ts, pointTableRow), not as the feature's GeoJSON. The array must hold
// the feature's values, column for column; and the files must carry the GeoJSON's values, arrays and objects
// included (not their JSON text quoted once more).

let app: TestApp;
const rows = sampleProofs({ count: 300, seed: 3702, now: new Date("2025-06-01T00:00:00Z") });
rows[0]!.memo = 'said "hi", then\r\nleft — ünïcode';
appWith(rows, (a) => {
  app = a;
});

const ITEMS = "/api/ogc/collections/location-proofs/items";
type Feature = {
  id: string;
  geometry: { coordinates: number[] } | null;
  properties: Record<string, unknown>;
};

const geojson = async (query: string): Promise<Feature[]> =>
  (await (await app.request(`${ITEMS}?f=geojsonseq${query}`)).text())
    .split("\x1e")
    .filter((r) => r.trim())
    .map((r) => JSON.parse(r) as Feature);

describe("a download's table rows", () => {
  for (const near of [undefined, { lon: 13.4, lat: 52.5, radius: 3_000_000 }]) {
    it(`hold the feature's id and properties, in the columns' order${near ? ", the distance last" : ""}`, async () => {
      const distance = near ? distanceSql(near) : undefined;
      const read = await queryRows<{ row: string; feature: string }>(
        app.db,
        sql`select ${pointTableRow(distance)} as row, ${pointFeatureJson(distance)} as feature from location_proofs`,
      );
      expect(read.length).toBe(rows.length);
      const columns = exportColumns(near !== undefined);
      for (const r of read) {
        const feature = JSON.parse(r.feature) as Feature;
        const expected = columns.map((c) => (c.name === "id" ? feature.id : feature.properties[c.name]));
        expect(JSON.parse(r.row)).toEqual(expected);
        expect(feature.geometry?.coordinates ?? null).toEqual(
          feature.properties.longitude === null
            ? null
            : [feature.properties.longitude, feature.properties.latitude],
        );
      }
    });
  }

  it("FlatGeobuf: every feature's properties and point are the GeoJSON's", async () => {
    const features = await geojson("");
    const bytes = new Uint8Array(await (await app.request(`${ITEMS}?f=fgb`)).arrayBuffer());
    const read: { properties: Record<string, unknown>; xy: number[] | null }[] = [];
    const xys: (number[] | null)[] = [];
    for await (const f of deserialize(bytes, {
      fromFeature: (_id, feature, header) => {
        const g = feature.geometry();
        // xy(i), not xyArray(): a feature's doubles need not lie at a multiple of 8 from the file's start.
        xys.push(g ? Array.from({ length: g.xyLength() }, (_, i) => g.xy(i)!) : null);
        return { getProperties: () => parseProperties(feature, header.columns) };
      },
    })) {
      read.push({ properties: f.getProperties!(), xy: xys[read.length]! });
    }
    expect(read.length).toBe(features.length);
    read.forEach((f, i) => {
      const feature = features[i]!;
      expect(f.xy).toEqual(feature.geometry?.coordinates ?? null);
      expect(f.properties.id).toBe(feature.id);
      for (const q of OGC_PROPERTIES) {
        const value = feature.properties[q.name];
        const got = f.properties[q.name];
        // The package's reader parses a JSON column, gives a Long as a number and a missing value as absent.
        if (value === null) expect(got, q.name).toBeUndefined();
        else if (typeof value === "object") expect(got, q.name).toEqual(value);
        else expect(got, q.name).toBe(value);
      }
    });
  });

  it("GeoParquet: every row's values are the GeoJSON's, arrays and objects as their JSON", async () => {
    const features = await geojson("");
    const file = join(mkdtempSync(join(tmpdir(), "lpqs-table-rows-")), "items.parquet");
    writeFileSync(file, new Uint8Array(await (await app.request(`${ITEMS}?f=parquet`)).arrayBuffer()));
    const db = await DuckDBInstance.create(":memory:");
    const c = await db.connect();
    const names = OGC_PROPERTIES.map((q) => q.name);
    // Every value as text, instants as epoch milliseconds, so that both sides compare as JSON values.
    const select = OGC_PROPERTIES.map((q) =>
      q.type === "timestamp" ? `epoch_ms(${q.name}) as ${q.name}` : `${q.name}::varchar as ${q.name}`,
    ).join(", ");
    const got = (
      await c.runAndReadAll(`select id, ${select} from read_parquet('${file}')`)
    ).getRowObjectsJson();
    c.closeSync();
    expect(got.length).toBe(features.length);
    got.forEach((row, i) => {
      const feature = features[i]!;
      expect(row.id).toBe(feature.id);
      for (const [k, q] of names.map((n, j) => [n, OGC_PROPERTIES[j]!] as const)) {
        const value = feature.properties[k];
        const text = row[k] as string | null;
        if (value === null) expect(text, k).toBeNull();
        else if (q.type === "timestamp") expect(Number(text), k).toBe(Date.parse(value as string));
        else if (typeof value === "object") expect(JSON.parse(text!), k).toEqual(value);
        else if (typeof value === "number") expect(Number(text), k).toBe(value);
        else if (typeof value === "boolean") expect(text, k).toBe(String(value));
        else expect(text, k).toBe(value);
      }
    });
  });
});
