import * as flatbuffers from "flatbuffers";
import { magicbytes } from "flatgeobuf/lib/mjs/constants.js";
import { ColumnType } from "flatgeobuf/lib/mjs/flat-geobuf/column-type.js";
import { Feature } from "flatgeobuf/lib/mjs/flat-geobuf/feature.js";
import { GeometryType } from "flatgeobuf/lib/mjs/flat-geobuf/geometry-type.js";
import { buildFeature, type IProperties } from "flatgeobuf/lib/mjs/generic/feature.js";
import { buildHeader } from "flatgeobuf/lib/mjs/generic/featurecollection.js";
import { parseGC, parseGeometry } from "flatgeobuf/lib/mjs/geojson/geometry.js";
import type { HeaderMeta } from "flatgeobuf/lib/mjs/header-meta.js";
import type { ExportColumn, Geometry, ParsedFeature } from "./columns.js";
import { columnValue } from "./columns.js";
import type { ExportWriter, WriterOptions } from "./writer.js";

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
 * FlatGeobuf, written by the `flatgeobuf` package's own builders (header, features, geometries), one feature at a
 * time: no spatial index (an index needs every feature before the first byte), CRS EPSG:4326 (longitude first, as
 * FlatGeobuf's readers take it), the header's feature count the exact number of rows the response holds. A reader
 * that meets the end of the bytes before that many features knows the file is cut short (GDAL reports it).
 *
 * A feature without geometry (a proof without coordinates) is written without the geometry field, as the format
 * allows; the package's builder requires one, so its properties are built by the package and the feature around them
 * again by FlatGeobuf's generated Feature table.
 */
export function flatgeobufWriter({ columns, points }: WriterOptions): ExportWriter {
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
  return {
    start(rows) {
      meta = header(rows);
      return [magicbytes, buildHeader(meta, 4326)];
    },
    write(features) {
      const out: Uint8Array[] = [];
      for (const json of features) {
        const feature = JSON.parse(json) as ParsedFeature;
        const properties: IProperties = {};
        for (const column of columns) {
          const value = columnValue(feature, column);
          properties[column.name] = value === undefined ? null : (value as IProperties[string]);
        }
        out.push(
          feature.geometry
            ? buildFeature(parsed(feature.geometry), properties, meta)
            : withoutGeometry(buildFeature(parsed(PLACEHOLDER), properties, meta)),
        );
      }
      return out;
    },
    finish: () => [],
  };
}

const PLACEHOLDER: Geometry = { type: "Point", coordinates: [0, 0] };

const parsed = (geometry: Geometry) =>
  geometry.type === "GeometryCollection"
    ? parseGC(geometry as Parameters<typeof parseGC>[0])
    : parseGeometry(geometry as Parameters<typeof parseGeometry>[0]);

/** The same feature without its geometry field: its properties, as the package built them, in a new Feature table. */
function withoutGeometry(built: Uint8Array): Uint8Array {
  const feature = Feature.getSizePrefixedRootAsFeature(new flatbuffers.ByteBuffer(built));
  const builder = new flatbuffers.Builder(built.length);
  const properties = feature.propertiesArray();
  const offset = Feature.createFeature(
    builder,
    0,
    properties ? Feature.createPropertiesVector(builder, properties) : 0,
    0,
  );
  builder.finishSizePrefixed(offset);
  return builder.asUint8Array();
}
