import type { SchemaElement } from "hyparquet";
import { ByteWriter, geojsonToWkb, ParquetWriter } from "hyparquet-writer";
import type { ExportColumn, Geometry, ParsedFeature } from "./columns.js";
import { columnValue } from "./columns.js";
import type { ExportWriter, WriterOptions } from "./writer.js";

/** Rows per row group: a reader skips or reads a group whole (and its bbox statistics are kept per group). */
export const ROW_GROUP_ROWS = 10_000;

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

/** A value as the writer takes it for its leaf (integers as bigint, instants as Dates, JSON as its text). */
function toParquet(value: unknown, column: ExportColumn): unknown {
  if (value === null || value === undefined) return null;
  switch (column.type) {
    case "integer":
      return BigInt(value as number);
    case "timestamp":
      return new Date(value as string);
    case "strings":
    case "geometry":
    case "bbox":
    case "object":
      return JSON.stringify(value);
    default:
      return value;
  }
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
 * (a struct of xmin, ymin, xmax, ymax: the covering). Rows are gathered into row groups of ROW_GROUP_ROWS and each
 * group is sent as soon as it is written (the writer's buffer is emptied at every flush), so memory holds one group.
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
  });
  let group: ParsedFeature[] = [];
  const writeGroup = () => {
    if (!group.length) return;
    const rows = group;
    group = [];
    parquet.write({
      rowGroupSize: rows.length,
      columnData: [
        ...columns.map((column) => ({
          name: column.name,
          data: rows.map((row) => toParquet(columnValue(row, column), column)),
        })),
        {
          name: "geometry",
          data: rows.map((row) => (row.geometry ? geojsonToWkb(row.geometry as never) : null)),
        },
        { name: "bbox", data: rows.map((row) => boundsOf(row.geometry, (row as { bbox?: unknown }).bbox)) },
      ],
    });
  };
  const drain = () => out.splice(0, out.length);
  return {
    start: () => {
      flush();
      return drain();
    },
    write(features) {
      for (const json of features) {
        group.push(JSON.parse(json) as ParsedFeature);
        if (group.length >= ROW_GROUP_ROWS) writeGroup();
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
