import * as zlib from "node:zlib";
import type { SchemaElement } from "hyparquet";
import { ByteWriter, geojsonToWkb, ParquetWriter } from "hyparquet-writer";
import type { ExportColumn, Geometry } from "./columns.js";
import { tableRows } from "./table-row.js";
import type { ExportWriter, WriterOptions } from "./writer.js";

/** Rows per row group at most: a reader skips or reads a group whole (and its bbox statistics are kept per group). */
export const ROW_GROUP_ROWS = 10_000;

/**
 * The most text (the rows as PostgreSQL wrote them) a row group is gathered from: a group is held whole, its values
 * parsed, until it is written, so its size in bytes, not in rows, is what the server's memory holds; wide rows (long
 * locations, media) make smaller groups.
 */
export const ROW_GROUP_BYTES = 4 * 1024 * 1024;

type Zstd = (input: Uint8Array, options: { params: Record<number, number> }) => Buffer;
const zstd = (zlib as { zstdCompressSync?: Zstd }).zstdCompressSync;
const ZSTD_LEVEL = (zlib.constants as Record<string, number>).ZSTD_c_compressionLevel;

/**
 * The pages' compression: Zstandard at its fastest level where the runtime has it (node:zlib, Node 22.15 and later:
 * production's Node 24), written by zlib's native code; else Snappy, in hyparquet-writer's JavaScript. Both are
 * standard Parquet codecs every reader named in docs/downloads.md reads; the JavaScript Snappy was the writer's
 * largest single cost.
 */
const COMPRESSION =
  zstd && ZSTD_LEVEL !== undefined
    ? {
        codec: "ZSTD" as const,
        compressors: {
          ZSTD: (input: Uint8Array) => zstd(input, { params: { [ZSTD_LEVEL]: 1 } }) as Uint8Array,
        },
      }
    : {};

/** A property type as a Parquet leaf: its physical type, and how its values are given to the writer. */
function leafOf(column: ExportColumn): SchemaElement {
  const repetition_type = column.nullable ? "OPTIONAL" : "REQUIRED";
  const name = column.name;
  switch (column.type) {
    case "integer":
      return { name, repetition_type, type: "INT64", converted_type: "INT_64" };
    case "number":
      return { name, repetition_type, type: "DOUBLE" };
    case "boolean":
      return { name, repetition_type, type: "BOOLEAN" };
    case "timestamp":
      return {
        name,
        repetition_type,
        type: "INT64",
        converted_type: "TIMESTAMP_MILLIS",
        logical_type: { type: "TIMESTAMP", isAdjustedToUTC: true, unit: "MILLIS" },
      };
    case "strings":
    case "geometry":
    case "bbox":
    case "object":
      return {
        name,
        repetition_type,
        type: "BYTE_ARRAY",
        converted_type: "JSON",
        logical_type: { type: "JSON" },
      };
    default:
      return {
        name,
        repetition_type,
        type: "BYTE_ARRAY",
        converted_type: "UTF8",
        logical_type: { type: "STRING" },
      };
  }
}

/**
 * A value as the writer takes it for its leaf: integers as bigint, instants as their milliseconds, arrays and objects
 * as they are (the writer writes a JSON leaf's value as its JSON text).
 */
function toParquet(value: unknown, type: ExportColumn["type"]): unknown {
  if (value === null || value === undefined) return null;
  if (type === "integer") return BigInt(value as number);
  return type === "timestamp" ? Date.parse(value as string) : value;
}

/**
 * Whether a column carries statistics (min, max, nulls per row group): numbers, instants and booleans, which a reader
 * prunes row groups by (the bbox covering's are the geometry's). Text carries none: ids and hashes are spread over the
 * whole range in every group, so their bounds prune nothing, and computing them is a large part of the writer's work.
 */
const STATISTICS = new Set<ExportColumn["type"]>(["integer", "number", "boolean", "timestamp"]);

/**
 * Columns whose values are (nearly) all distinct: written plain, never tried as a dictionary (which would only be
 * built to be thrown away).
 */
const DISTINCT = new Set(["id", "uid", "tx_hash", "location", "recipe_payload", "media_data"]);

/**
 * Whether a text column's values in a row group are nearly all distinct, judged on a sample as hyparquet-writer
 * judges a dictionary (which it keeps only when it halves the plain bytes): such a column is written plain from the
 * start, its values as bytes (utf8Views), rather than tried as a dictionary, refused, and encoded value by value.
 * (Addresses and free text: provers, subjects and memos often differ from row to row.)
 */
function nearlyDistinct(values: unknown[]): boolean {
  const size = Math.min(values.length, 1000);
  const seen = new Set<unknown>();
  for (let i = 0; i < size; i++) seen.add(values[Math.floor((i * values.length) / size)]);
  return seen.size > 0.9 * size;
}

/**
 * A plain text column's values as UTF-8: every string of the row group written into one buffer, each value a view
 * of its bytes. The writer would otherwise encode each value into an array of its own (one allocation per value,
 * each with its own backing store, all alive until the group is written).
 */
function utf8Views(values: unknown[]): unknown[] {
  let size = 0;
  for (const v of values) if (typeof v === "string") size += Buffer.byteLength(v);
  const bytes = Buffer.allocUnsafe(size);
  let at = 0;
  return values.map((v) => {
    if (typeof v !== "string") return v;
    const end = at + bytes.write(v, at);
    const view = bytes.subarray(at, end);
    at = end;
    return view;
  });
}

/**
 * The GeoParquet 1.1 file metadata (`geo`): the primary geometry column, WKB, CRS84 (the default, so no `crs`
 * member), the geometry types a collection holds ([] for the shapes: any), and the bbox covering column that lets
 * a reader skip row groups by their statistics.
 */
export const geoMetadata = (points: boolean) => ({
  version: "1.1.0",
  primary_column: "geometry",
  columns: {
    geometry: {
      encoding: "WKB",
      geometry_types: points ? ["Point"] : [],
      covering: {
        bbox: {
          xmin: ["bbox", "xmin"],
          ymin: ["bbox", "ymin"],
          xmax: ["bbox", "xmax"],
          ymax: ["bbox", "ymax"],
        },
      },
    },
  },
});

/**
 * GeoParquet 1.1 with hyparquet-writer: the columns, then `geometry` (WKB, by the package's geojsonToWkb) and `bbox`
 * (a struct of xmin, ymin, xmax, ymax: the covering). Rows are gathered into row groups of ROW_GROUP_ROWS (fewer
 * when their text reaches ROW_GROUP_BYTES) and each group is sent as soon as it is written (the writer's buffer is
 * emptied at every flush), so memory holds one group.
 * The footer (schema, row groups, `geo`) is written last: a response cut short has none, and no Parquet reader
 * opens a file without it.
 *
 * The bbox of a feature is its geometry's bounds (for a point, the point); a feature without geometry has neither.
 * A shape across the antimeridian keeps west > east, as its GeoJSON bbox does.
 */
export function geoparquetWriter({ columns, points }: WriterOptions): ExportWriter {
  const out: Uint8Array[] = [];
  const sink: ByteWriter & { flush?: () => void } = new ByteWriter(1 << 20);
  // Each flush hands the bytes written so far to the response and starts the buffer again.
  const flush = () => {
    if (sink.index > 0) out.push(new Uint8Array(sink.buffer.slice(0, sink.index)));
    sink.index = 0;
  };
  sink.flush = flush;
  const schema: SchemaElement[] = [
    { name: "root", num_children: columns.length + 2 },
    ...columns.map(leafOf),
    { name: "geometry", repetition_type: "OPTIONAL", type: "BYTE_ARRAY" },
    { name: "bbox", repetition_type: "OPTIONAL", num_children: 4 },
    ...["xmin", "ymin", "xmax", "ymax"].map(
      (name): SchemaElement => ({ name, repetition_type: "REQUIRED", type: "DOUBLE" }),
    ),
  ];
  const parquet = new ParquetWriter({
    writer: sink,
    schema,
    kvMetadata: [{ key: "geo", value: JSON.stringify(geoMetadata(points)) }],
    createdBy: "location-proof-query-service (hyparquet-writer)",
    ...COMPRESSION,
  });
  const rows = tableRows(points, columns);
  const types = columns.map((c) => c.type);
  // The text columns (UTF-8, not JSON): written plain as bytes (utf8Views) when their values are distinct.
  const text = columns.map((c) => leafOf(c).converted_type === "UTF8");
  // The row group being gathered, column by column: each row's values go straight into their columns.
  let data: unknown[][] = [];
  let geometries: (Uint8Array | null)[] = [];
  let boxes: (Bounds | null)[] = [];
  let groupBytes = 0;
  // The row group's point geometries, one buffer (a group holds at most ROW_GROUP_ROWS), made when the first is.
  let wkb: Buffer | undefined;
  let wkbAt = 0;
  const clear = () => {
    data = columns.map(() => []);
    geometries = [];
    boxes = [];
    groupBytes = 0;
    wkb = undefined;
    wkbAt = 0;
  };
  const point = (x: number, y: number) => {
    wkb ??= Buffer.allocUnsafe(ROW_GROUP_ROWS * POINT_WKB_BYTES);
    const bytes = pointWkb(wkb, wkbAt, x, y);
    wkbAt += POINT_WKB_BYTES;
    return bytes;
  };
  clear();
  const add = (values: unknown[]) => {
    for (let i = 0; i < types.length; i++) data[i]!.push(toParquet(values[i], types[i]!));
  };
  const writeGroup = () => {
    if (!geometries.length) return;
    parquet.write({
      rowGroupSize: geometries.length,
      columnData: [
        ...columns.map((column, i) => {
          const plain = DISTINCT.has(column.name) || (text[i] && nearlyDistinct(data[i]!));
          return {
            name: column.name,
            data: plain && text[i] ? utf8Views(data[i]!) : data[i]!,
            statistics: STATISTICS.has(column.type),
            ...(plain ? { encoding: "PLAIN" as const } : {}),
          };
        }),
        { name: "geometry", data: geometries, statistics: false },
        { name: "bbox", data: boxes },
      ],
    });
    clear();
  };
  const drain = () => out.splice(0, out.length);
  return {
    ...(rows.rowSql ? { rowSql: rows.rowSql } : {}),
    // Small batches: a row group's values outlive many batches (and are promoted while the group is gathered), so a
    // batch's own rows are best let go of soon; the row groups, not the batches, set this writer's memory.
    batchBytes: 256 * 1024,
    start: () => {
      flush();
      return drain();
    },
    write(texts) {
      for (const text of texts) {
        if (rows.values) {
          const values = rows.values(text);
          const xy = rows.point(values);
          add(values);
          geometries.push(xy ? point(xy[0], xy[1]) : null);
          boxes.push(xy ? { xmin: xy[0], ymin: xy[1], xmax: xy[0], ymax: xy[1] } : null);
        } else {
          const row = rows.feature(text);
          add(row.values);
          geometries.push(row.geometry ? geojsonToWkb(row.geometry as never) : null);
          boxes.push(boundsOf(row.geometry, row.bbox));
        }
        groupBytes += text.length;
        if (geometries.length >= ROW_GROUP_ROWS || groupBytes >= ROW_GROUP_BYTES) writeGroup();
      }
      return drain();
    },
    finish() {
      writeGroup();
      parquet.finish();
      flush();
      return drain();
    },
  };
}

/** The bytes of a point's WKB. */
const POINT_WKB_BYTES = 21;

/**
 * A point's WKB (ISO, little-endian: byte order 1, type 1, x, y), as geojsonToWkb would write it, at `at` in `into`:
 * a row group's points share one buffer, as its text does (utf8Views).
 */
function pointWkb(into: Buffer, at: number, x: number, y: number): Buffer {
  into[at] = 1;
  into.writeUInt32LE(1, at + 1);
  into.writeDoubleLE(x, at + 5);
  into.writeDoubleLE(y, at + 13);
  return into.subarray(at, at + POINT_WKB_BYTES);
}

type Bounds = { xmin: number; ymin: number; xmax: number; ymax: number };

/**
 * A feature's bounds: its GeoJSON `bbox` member where it has one (the stored bounds, west > east across the
 * antimeridian), else its positions' (a point's own), or null without geometry.
 */
function boundsOf(geometry: Geometry | null, bbox: unknown): Bounds | null {
  if (!geometry) return null;
  if (Array.isArray(bbox) && bbox.length === 4) {
    const [xmin, ymin, xmax, ymax] = bbox as number[];
    return { xmin: xmin!, ymin: ymin!, xmax: xmax!, ymax: ymax! };
  }
  const b = { xmin: Infinity, ymin: Infinity, xmax: -Infinity, ymax: -Infinity };
  const visit = (g: Geometry) => {
    if (g.geometries) for (const child of g.geometries) visit(child);
    else walk(g.coordinates);
  };
  const walk = (c: unknown) => {
    if (!Array.isArray(c)) return;
    if (typeof c[0] === "number") {
      const [x, y] = c as number[];
      if (x! < b.xmin) b.xmin = x!;
      if (x! > b.xmax) b.xmax = x!;
      if (y! < b.ymin) b.ymin = y!;
      if (y! > b.ymax) b.ymax = y!;
    } else for (const item of c) walk(item);
  };
  visit(geometry);
  return Number.isFinite(b.xmin) ? b : null;
}
