import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { describe, expect, it } from "vitest";
import { exportColumns } from "../../lib/exports/columns.js";
import { csvWriter } from "../../lib/exports/csv.js";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import { appWith, type TestApp } from "../helpers/app.js";

// A CSV download of the point collection (and of the native list) is written record by record by PostgreSQL
// (lib/exports/csv.ts, csvPointRecord). It must hold what the writer makes from the GeoJSON of the same features
// (the shapes collection's path): the same fields, value for value, the same quoting.

let app: TestApp;
const rows = sampleProofs({ count: 400, seed: 3701, now: new Date("2025-06-01T00:00:00Z") });
// Fields that need quoting: commas, quotes, line breaks; and nulls.
rows[0]!.memo = 'said "hi", then\r\nleft';
rows[1]!.memo = "a\nb";
rows[2]!.location = 'x"y';
rows[3]!.memo = null;
appWith(rows, (a) => {
  app = a;
});

const ITEMS = "/api/ogc/collections/location-proofs/items";
const work = mkdtempSync(join(tmpdir(), "lpqs-csv-records-"));

async function readCsv(text: string, name: string): Promise<Record<string, string | null>[]> {
  const file = join(work, name);
  writeFileSync(file, text);
  const db = await DuckDBInstance.create(":memory:");
  const c = await db.connect();
  try {
    const result = await c.runAndReadAll(
      `select * from read_csv('${file}', header = true, all_varchar = true, quote = '"', escape = '"')`,
    );
    return result.getRowObjectsJson() as Record<string, string | null>[];
  } finally {
    c.closeSync();
  }
}

/** A field as a value: JSON text parsed (jsonb writes spaces that JSON.stringify does not), numbers as numbers. */
function value(text: string | null): unknown {
  if (text === null) return null;
  if (/^[[{]/.test(text)) return JSON.parse(text);
  if (/^-?\d+(\.\d+)?(e-?\d+)?$/i.test(text)) return Number(text);
  return text;
}

describe("CSV records written by PostgreSQL", () => {
  for (const query of ["", "near=13.4,52.5&radius=3000000"]) {
    it(`hold the fields the writer makes from the GeoJSON: ${query || "no filter"}`, async () => {
      const csv = await app.request(`${ITEMS}?f=csv${query ? `&${query}` : ""}`);
      expect(csv.status).toBe(200);
      const fromSql = await csv.text();
      const seq = await (await app.request(`${ITEMS}?f=geojsonseq${query ? `&${query}` : ""}`)).text();
      const features = seq.split("\x1e").filter((r) => r.trim());
      // The writer's own path from the features' JSON (as for the shapes collection).
      const writer = csvWriter({ columns: exportColumns(query.includes("near")), points: false });
      const decoder = new TextDecoder();
      const fromJson = [...writer.start(features.length), ...writer.write(features.map((f) => f.trimEnd()))]
        .map((b) => decoder.decode(b))
        .join("");
      expect(fromSql.slice(0, fromSql.indexOf("\r\n"))).toBe(fromJson.slice(0, fromJson.indexOf("\r\n")));
      const a = await readCsv(fromSql, "sql.csv");
      const b = await readCsv(fromJson, "json.csv");
      expect(a.length).toBe(features.length);
      expect(a.length).toBeGreaterThan(0);
      expect(a.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, value(v)])))).toEqual(
        b.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, value(v)]))),
      );
      // The quoted fields came through whole.
      if (!query) expect(a.some((r) => r.memo === 'said "hi", then\r\nleft')).toBe(true);
    });
  }
});
