import * as flatbuffers from "flatbuffers";
import { magicbytes } from "flatgeobuf/lib/mjs/constants.js";
import { ColumnType } from "flatgeobuf/lib/mjs/flat-geobuf/column-type.js";
import { Feature } from "flatgeobuf/lib/mjs/flat-geobuf/feature.js";
import { GeometryType } from "flatgeobuf/lib/mjs/flat-geobuf/geometry-type.js";
import { buildHeader } from "flatgeobuf/lib/mjs/generic/featurecollection.js";
import { buildGeometry, type IParsedGeometry } from "flatgeobuf/lib/mjs/generic/geometry.js";
import { parseGC, parseGeometry } from "flatgeobuf/lib/mjs/geojson/geometry.js";
import type { HeaderMeta } from "flatgeobuf/lib/mjs/header-meta.js";
import type { ExportColumn, Geometry } from "./columns.js";
import { tableRows } from "./table-row.js";
import type { InlineWriter, WriterOptions } from "./writer.js";

/** A property type as a FlatGeobuf column: integers as Long, arrays and objects as Json, the rest text. */
const COLUMN_TYPE: Record<ExportColumn["type"], ColumnType> = {
  string: ColumnType.String,
  address: ColumnType.String,
  hash: ColumnType.String,
  integer: ColumnType.Long,
  number: ColumnType.Double,
  boolean: ColumnType.Bool,
  timestamp: ColumnType.DateTime,
  decimal: ColumnType.String,
  strings: ColumnType.Json,
  geometry: ColumnType.Json,
  bbox: ColumnType.Json,
  object: ColumnType.Json,
};

/**
 * FlatGeobuf, written with the `flatgeobuf` package: its header builder, its Feature and Geometry tables (the format's
 * own FlatBuffers schema code) and geometry builder, on one FlatBuffers builder cleared for each feature. No spatial
 * index (an index needs every feature before the first byte); CRS EPSG:4326 (longitude first, as FlatGeobuf's
 * readers take it); the header's feature count is the exact number of rows the response holds, so a reader that meets
 * the end of the bytes before that many features knows the file is cut short (GDAL reports it). A feature without
 * geometry (a proof without coordinates) has no geometry field, as the format allows.
 *
 * The properties are FlatGeobuf's property buffer (each value after its column's index, little-endian, strings and
 * JSON as length-prefixed UTF-8), as the package's own buildFeature writes it, but into one buffer kept across
 * features, strings encoded in place: the package's per-feature builder allocates a builder, a buffer and an array
 * per string for every feature, and on a large download the garbage collector's work was most of the cost. A batch's
 * features are written into one output buffer.
 */
export function flatgeobufWriter({ columns, points }: WriterOptions): InlineWriter {
  const header = (featuresCount: number): HeaderMeta => ({
    geometryType: points ? GeometryType.Point : GeometryType.Unknown,
    columns: columns.map((c) => ({
      name: c.name,
      type: COLUMN_TYPE[c.type],
      title: null,
      description: null,
      width: -1,
      precision: -1,
      scale: -1,
      nullable: c.nullable,
      unique: c.name === "id",
      primary_key: false,
    })),
    envelope: null,
    featuresCount,
    indexNodeSize: 0,
    crs: null,
    title: null,
    description: null,
    metadata: null,
  });
  let meta = header(0);
  const rows = tableRows(points, columns);
  const kinds = columns.map((c) => COLUMN_TYPE[c.type]);
  const builder = new flatbuffers.Builder(4096);
  const properties = new PropertyBuffer();
  let bytesPerRow = 512;
  /** A feature (size-prefixed, as a FlatGeobuf file holds it) in the builder, from its values and geometry. */
  const build = (values: unknown[], geometry: IParsedGeometry | null): Uint8Array => {
    builder.clear();
    properties.reset();
    for (let i = 0; i < kinds.length; i++) {
      const value = values[i];
      if (value !== null && value !== undefined) properties.add(i, kinds[i]!, value);
    }
    const propertiesOffset = properties.length ? builder.createByteVector(properties.bytes()) : 0;
    const geometryOffset = geometry ? buildGeometry(builder, geometry) : 0;
    Feature.startFeature(builder);
    if (geometryOffset) Feature.addGeometry(builder, geometryOffset);
    if (propertiesOffset) Feature.addProperties(builder, propertiesOffset);
    builder.finishSizePrefixed(Feature.endFeature(builder));
    return builder.asUint8Array();
  };
  return {
    start(count) {
      meta = header(count);
      return [magicbytes, buildHeader(meta, 4326)];
    },
    write(texts) {
      // Sized from the last batch's bytes per row, so that a batch's buffer is allocated about once.
      const out = new Output(Math.ceil(texts.length * bytesPerRow * 1.1) + 1024);
      for (const text of texts) {
        if (rows.values) {
          const values = rows.values(text);
          const xy = rows.point(values);
          out.add(build(values, xy ? pointGeometry(xy) : null));
        } else {
          const row = rows.feature(text);
          out.add(build(row.values, row.geometry ? parsed(row.geometry) : null));
        }
      }
      if (texts.length) bytesPerRow = out.bytes().length / texts.length;
      return [out.bytes()];
    },
    finish: () => [],
  };
}

/**
 * A point as the package's parseGeometry makes it (its declared type asks for `ends` and `parts`, which a point has
 * not: parseGeometry leaves them undefined too), made straight from the row's coordinates.
 */
const pointGeometry = (xy: number[]): IParsedGeometry =>
  ({ xy, type: GeometryType.Point }) as unknown as IParsedGeometry;

const parsed = (geometry: Geometry): IParsedGeometry =>
  geometry.type === "GeometryCollection"
    ? parseGC(geometry as Parameters<typeof parseGC>[0])
    : parseGeometry(geometry as Parameters<typeof parseGeometry>[0]);

const TWO_32 = 2 ** 32;

/** A growing byte buffer, reused: FlatGeobuf's property encoding (the package's buildFeature's) written into it. */
class PropertyBuffer {
  // A Buffer for its write(): UTF-8 straight into place (TextEncoder's encodeInto needs a view per string).
  private buffer = Buffer.allocUnsafe(4096);
  private view = new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.length);
  length = 0;
  reset() {
    this.length = 0;
  }
  bytes() {
    return this.buffer.subarray(0, this.length);
  }
  private room(n: number) {
    if (this.length + n <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + n));
    grown.set(this.buffer.subarray(0, this.length));
    this.buffer = grown;
    this.view = new DataView(grown.buffer, grown.byteOffset, grown.length);
  }
  add(column: number, kind: ColumnType, value: unknown) {
    this.room(10);
    this.view.setUint16(this.length, column, true);
    this.length += 2;
    switch (kind) {
      case ColumnType.Bool:
        this.view.setUint8(this.length, value ? 1 : 0);
        this.length += 1;
        return;
      case ColumnType.Long: {
        // A safe integer as two's complement in 64 bits, without a BigInt per value.
        const n = value as number;
        const high = Math.floor(n / TWO_32);
        this.view.setUint32(this.length, n - high * TWO_32, true);
        this.view.setInt32(this.length + 4, high, true);
        this.length += 8;
        return;
      }
      case ColumnType.Double:
        this.view.setFloat64(this.length, value as number, true);
        this.length += 8;
        return;
      case ColumnType.Json:
        return this.text(JSON.stringify(value));
      default:
        return this.text(String(value));
    }
  }
  /** UTF-8 after its byte length (uint32). */
  private text(text: string) {
    this.room(4 + text.length * 3);
    const written = this.buffer.write(text, this.length + 4, "utf8");
    this.view.setUint32(this.length, written, true);
    this.length += 4 + written;
  }
}

/** A batch's features, copied one after the other into one buffer. */
class Output {
  private buffer: Uint8Array;
  private length = 0;
  constructor(size: number) {
    this.buffer = new Uint8Array(size);
  }
  add(bytes: Uint8Array) {
    if (this.length + bytes.length > this.buffer.length) {
      const grown = new Uint8Array(Math.max(this.buffer.length * 2, this.length + bytes.length));
      grown.set(this.buffer.subarray(0, this.length));
      this.buffer = grown;
    }
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
  }
  bytes() {
    return this.buffer.subarray(0, this.length);
  }
}
