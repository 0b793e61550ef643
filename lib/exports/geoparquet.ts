import * as zlib from "node:zlib";
import type { SchemaElement } from "hyparquet";
import { ByteWriter, geojsonToWkb, ParquetWriter } from "hyparquet-writer";
import { useLeanAppendBytes } from "./byte-writer.js";
import type { ExportColumn, Geometry } from "./columns.js";
import { columnStore, GeometryStore } from "./parquet-columns.js";
import { tableRows } from "./table-row.js";
import type { InlineWriter, WriterOptions } from "./writer.js";

/** Rows per row group at most: a reader skips or reads a group whole (and its bbox statistics are kept per group). */
export const ROW_GROUP_ROWS = 10_000;

/**
 * The most text (the rows as PostgreSQL wrote them) a row group is gathered from: a group is held whole, its values
 * parsed, until it is written, so its size in bytes, not in rows, is what the server's memory holds; wide rows (long
 * locations, media) make smaller groups.
 */
export const ROW_GROUP_BYTES = 4 * 1024 * 1024;

useLeanAppendBytes();

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
 *
 * It renders no SQL (its thread, parquet-worker.ts, loads none): the row text it reads and its batch size are set
 * where a download picks its writer (lib/exports/response.ts, writerOf).
 */
export function geoparquetWriter({ columns, points }: WriterOptions): InlineWriter {
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
  // The row group being gathered, column by column (lib/exports/parquet-columns.ts): each row's values go straight
  // into their columns' stores as it is parsed.
  const stores = columns.map((c) => columnStore(c, ROW_GROUP_ROWS, DISTINCT.has(c.name)));
  const geometry = new GeometryStore(ROW_GROUP_ROWS);
  let groupBytes = 0;
  /** Whether a group of `rows` rows and `bytes` of row text is as large as a group may be. */
  const full = (rows: number, bytes: number) => rows >= ROW_GROUP_ROWS || bytes >= ROW_GROUP_BYTES;
  const writeGroup = () => {
    if (!geometry.n) return;
    // Each column's values are made when the writer reaches the column (it reads `data` once a column, in order, and
    // the first column's once more, before, for the group's length), so one column's values are alive at a time. The
    // first column's are made at that first read and let go of at the second: held for the whole group, they would
    // outlive its young collections and be promoted.
    let first: unknown[] | undefined;
    parquet.write({
      rowGroupSize: geometry.n,
      columnData: [
        ...columns.map((column, i) => {
          const store = stores[i]!;
          const plain = store.plain();
          return {
            name: column.name,
            get data() {
              if (i > 0) return store.values(plain);
              // The first read makes them and keeps them; the second hands them over and lets go of them.
              const made = first ?? store.values(plain);
              first = first === undefined ? made : undefined;
              return made;
            },
            statistics: STATISTICS.has(column.type),
            ...(plain ? { encoding: "PLAIN" as const } : {}),
          };
        }),
        {
          name: "geometry",
          get data() {
            return geometry.geometries();
          },
          statistics: false,
        },
        {
          name: "bbox",
          get data() {
            return geometry.boxes();
          },
        },
      ],
    });
    geometry.reset();
    groupBytes = 0;
  };
  const drain = () => out.splice(0, out.length);
  return {
    start: () => {
      flush();
      return drain();
    },
    write(texts) {
      let bytes = 0;
      for (let t = 0; t < texts.length; t++) {
        const text = texts[t]!;
        // Each row's text let go of once parsed: the rest of the batch is all that survives a collection meanwhile.
        (texts as unknown[])[t] = undefined;
        if (rows.values) {
          const values = rows.values(text);
          for (let i = 0; i < stores.length; i++) stores[i]!.push(values[i]);
          const xy = rows.point(values);
          if (xy) geometry.point(xy[0], xy[1]);
          else geometry.none();
        } else {
          const row = rows.feature(text);
          for (let i = 0; i < stores.length; i++) stores[i]!.push(row.values[i]);
          if (row.geometry)
            geometry.shape(geojsonToWkb(row.geometry as never), boundsOf(row.geometry, row.bbox));
          else geometry.none();
        }
        groupBytes += text.length;
        bytes += text.length;
        // Full within the batch (one larger than the one before): written now.
        if (full(geometry.n, groupBytes)) writeGroup();
      }
      // Written now, with the whole batch parsed, when another batch like this one would fill it: a group written as
      // a row fills it leaves the rest of the batch alive through the young collections of its writing, and promoted.
      if (full(geometry.n + texts.length, groupBytes + bytes)) writeGroup();
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

/**
 * A feature's bounds: its GeoJSON `bbox` member where it has one (the stored bounds, west > east across the
 * antimeridian), else its positions' (a point's own), or null without geometry.
 */
function boundsOf(geometry: Geometry, bbox: unknown): [number, number, number, number] | null {
  if (Array.isArray(bbox) && bbox.length === 4) return bbox as [number, number, number, number];
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
  return Number.isFinite(b.xmin) ? [b.xmin, b.ymin, b.xmax, b.ymax] : null;
}
