import { geojsonToWKT } from "@terraformer/wkt";
import { type SQL, sql } from "drizzle-orm";
import { locationProofs as p } from "../../db/schema.js";
import { listBytes } from "../http/respond.js";
import { distanceJson, type RowJson } from "../proofs/json-sql.js";
import { OGC_PROPERTIES, type PropertyType } from "../proofs/properties.js";
import { renderedOnce } from "../proofs/sql-once.js";
import type { ExportColumn, Geometry, ParsedFeature } from "./columns.js";
import { columnValue } from "./table-row.js";
import type { InlineWriter, WriterOptions } from "./writer.js";

/**
 * CSV (RFC 4180): a header record of the column names (the GeoJSON's property names, `id` first, then `geometry`
 * as WKT), CRLF line breaks, a field quoted when it holds a comma, a quote or a line break (its quotes doubled).
 * Arrays and objects are their JSON text; null is an empty field. Longitude and latitude are properties of their
 * own, so a spreadsheet needs no WKT parser. @terraformer/wkt writes the WKT (shapes: polygons, lines, collections).
 */
export function csvWriter({ columns, points }: WriterOptions): InlineWriter {
  const encoder = new TextEncoder();
  const rest = columns.filter((c) => c.name !== "id");
  const header = () => [
    encoder.encode(`${["id", "geometry", ...rest.map((c) => c.name)].map(field).join(",")}\r\n`),
  ];
  if (points) {
    // Each record written by PostgreSQL (csvPointRecord): the rows' texts are the file's lines, joined.
    return {
      rowSql: csvPointRecord,
      start: header,
      write: (records) => [listBytes("", records, "", "")],
      finish: () => [],
    };
  }
  return {
    start: header,
    write(features) {
      const records = features.map((json) => {
        const feature = JSON.parse(json) as ParsedFeature;
        let text = field(feature.id);
        text += ",";
        text += field(wktOf(feature.geometry));
        for (const column of rest) {
          text += ",";
          text += field(cell(columnValue(feature, column), column));
        }
        return `${text}\r\n`;
      });
      return [listBytes("", records, "", "")];
    },
    finish: () => [],
  };
}

const wktOf = (geometry: Geometry | null): string =>
  geometry === null
    ? ""
    : geometry.type === "Point"
      ? `POINT (${(geometry.coordinates as number[]).join(" ")})`
      : geojsonToWKT(geometry as Parameters<typeof geojsonToWKT>[0]);

/** A value as CSV text: empty for null, JSON for arrays and objects, the text of the rest. */
function cell(value: unknown, _column: ExportColumn): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

const NEEDS_QUOTES = /[",\r\n]/;

/** RFC 4180 §2: quoted when it holds a comma, a quote or a line break, its quotes doubled. */
const field = (text: string): string => (NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text);

/**
 * A CSV field in SQL, as `field` writes it: quoted (its quotes doubled) when it holds a comma, a quote or a line
 * break. (The expression is read three times: only plain columns are given.)
 */
const quotedSql = (text: SQL): SQL =>
  sql`case when ${text} ~ '[",\r\n]' then '"' || replace(${text}, '"', '""') || '"' else ${text} end`;

/**
 * A property's CSV field in SQL, as `cell` then `field` write it from the feature's JSON: hashes, addresses and
 * timestamps as they are (they hold no comma, quote or line break), numbers and booleans as their text, strings
 * quoted as needed, arrays and objects as their JSON text, quoted. Null is NULL, which concat writes as nothing.
 */
function fieldSql(type: PropertyType, source: SQL): SQL {
  switch (type) {
    case "hash":
    case "address":
    case "timestamp":
      return source;
    case "integer":
    case "number":
    case "decimal":
    case "boolean":
      return sql`(${source})::text`;
    case "string":
      return quotedSql(source);
    default:
      return quotedSql(sql`(${source})::text`);
  }
}

/** The point's WKT, or NULL without coordinates. */
const POINT_WKT = sql`case when ${p.longitude} is null or ${p.latitude} is null then null else 'POINT (' || ${p.longitude}::text || ' ' || ${p.latitude}::text || ')' end`;

/** The record's fields before the distance: id, the point's WKT, the OGC properties in the catalogue's order. */
const POINT_FIELDS = renderedOnce(
  sql.join(
    [sql`${p.uid}`, POINT_WKT, ...OGC_PROPERTIES.map((q) => fieldSql(q.type, q.source))].flatMap((f, i) =>
      i === 0 ? [f] : [sql`','`, f],
    ),
    sql`, `,
  ),
);

/**
 * A CSV record (with its CRLF) of a feature of the point collection, written by PostgreSQL: the same fields as the
 * writer makes from the feature's JSON, so that Node only joins the records. The record's text is all a row reads
 * beside its sort keys. In a proximity query its last field is the distance, written as the JSON writes it. The
 * stored JSON arrays and objects keep jsonb's layout (a space after each `,` and `:`), as in the GeoJSON.
 */
export const csvPointRecord: RowJson = (() => {
  const plain = renderedOnce(sql`concat(${POINT_FIELDS}, E'\r\n')`);
  return (distance?: SQL) =>
    distance ? sql`concat(${POINT_FIELDS}, ',', ${distanceJson(distance)}::text, E'\r\n')` : plain;
})();
