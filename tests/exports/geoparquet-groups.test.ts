import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { describe, expect, it } from "vitest";
import { exportColumns } from "../../lib/exports/columns.js";
import { geoparquetWriter, ROW_GROUP_BYTES, ROW_GROUP_ROWS } from "../../lib/exports/geoparquet.js";

// The GeoParquet writer over many batches (lib/exports/geoparquet.ts): its row groups are written at the end of a
// batch when another batch like it would not fit, or as a row fills one within a batch larger than the one before,
// and the column stores keep their buffers from one group to the next (lib/exports/parquet-columns.ts). Every value
// must read back as written, by a reader the service does not write with (DuckDB), and no group may pass its limits.

const columns = exportColumns(false);

/** A row of the point collection's table row (lib/exports/table-sql.ts): the columns' values, in order. */
function row(i: number): unknown[] {
  const hex = (n: number, width: number) => `0x${n.toString(16).padStart(width, "0")}`;
  return columns.map((c) => {
    switch (c.name) {
      case "id":
      case "uid":
        return hex(i, 64);
      case "tx_hash":
        return i % 11 === 0 ? null : hex(i * 7919, 64);
      case "longitude":
        return i % 13 === 0 ? null : ((i * 37) % 360) - 180 + 0.125;
      case "latitude":
        return i % 13 === 0 ? null : ((i * 17) % 180) - 90 + 0.25;
      case "memo":
        // each distinct, some long: the text stores' buffers grow within a group
        return i % 5 === 0 ? null : `memo ${i} ${"✓".repeat(i % 97)}`;
      case "prover":
        return hex(i % 50, 40);
      case "chain":
        return ["base", "sepolia", "celo"][i % 3];
      case "location":
        return i % 13 === 0 ? null : `{"type":"Point","coordinates":[${i}]}`;
      case "attestation_time":
        return new Date(1_750_000_000_000 + i * 1000).toISOString();
      default:
        if (c.type === "strings") return [];
        if (c.type === "integer") return i;
        if (c.nullable) return null;
        return c.type === "boolean" ? i % 2 === 0 : "x";
    }
  });
}

async function duck<T>(query: string): Promise<T[]> {
  const db = await DuckDBInstance.create(":memory:");
  const connection = await db.connect();
  try {
    return (await connection.runAndReadAll(query)).getRowObjectsJson() as unknown as T[];
  } finally {
    connection.closeSync();
    db.closeSync();
  }
}

describe("GeoParquet over many batches: row groups within their limits, every value as written", () => {
  it("reads back every row, in order, from groups of at most ROW_GROUP_ROWS rows and about ROW_GROUP_BYTES", async () => {
    const writer = geoparquetWriter({ columns, points: true });
    const chunks: Uint8Array[] = [...writer.start(0)];
    // Batches as a download reads them: small first, then of a size, then one far larger than the one before it
    // (a group fills within it), then small again.
    const sizes = [100, 1000, 2600, 2600, 2600, 2600, 9000, 2600, 700, 37];
    let n = 0;
    for (const size of sizes) {
      const texts = Array.from({ length: size }, () => JSON.stringify(row(n++)));
      chunks.push(...writer.write(texts));
    }
    chunks.push(...writer.finish());
    const file = join(mkdtempSync(join(tmpdir(), "lpqs-groups-")), "groups.parquet");
    writeFileSync(file, Buffer.concat(chunks));

    const groups = await duck<{ rows: string }>(
      `select row_group_id, any_value(row_group_num_rows) as rows from parquet_metadata('${file}') group by row_group_id order by row_group_id`,
    );
    expect(groups.length).toBeGreaterThan(3);
    expect(groups.reduce((sum, g) => sum + Number(g.rows), 0)).toBe(n);
    for (const g of groups) expect(Number(g.rows)).toBeLessThanOrEqual(ROW_GROUP_ROWS);

    const read = await duck<Record<string, string | number | null>>(
      `set enable_geoparquet_conversion = false;
       select id, uid, tx_hash, memo, prover, chain, location, longitude, latitude, block_number, revoked,
              epoch_ms(attestation_time) as at, hex(geometry) as wkb
       from read_parquet('${file}')`,
    );
    expect(read).toHaveLength(n);
    const names = ["id", "uid", "tx_hash", "memo", "prover", "chain", "location", "longitude", "latitude"];
    const at = (name: string) => columns.findIndex((c) => c.name === name);
    for (let i = 0; i < n; i++) {
      const want = row(i);
      expect(names.map((k) => read[i]![k])).toEqual(names.map((k) => want[at(k)] ?? null));
      expect(Number(read[i]!.block_number)).toBe(i);
      expect(read[i]!.revoked).toBe(i % 2 === 0);
      expect(Number(read[i]!.at)).toBe(1_750_000_000_000 + i * 1000);
      expect(read[i]!.wkb === null).toBe(want[at("longitude")] === null);
    }
    // A group of 10,000 rows of this text would pass its byte limit: the limit, not the row count, made the groups.
    expect(ROW_GROUP_BYTES).toBeLessThan(ROW_GROUP_ROWS * JSON.stringify(row(1)).length);
  });
});
