import { geojsonToWKT } from "@terraformer/wkt";
import type { ExportColumn, Geometry, ParsedFeature } from "./columns.js";
import { columnValue } from "./columns.js";
import type { ExportWriter, WriterOptions } from "./writer.js";

/**
 * CSV (RFC 4180): a header record of the column names (the GeoJSON's property names, `id` first, then `geometry`
 * as WKT), CRLF line breaks, a field quoted when it holds a comma, a quote or a line break (its quotes doubled).
 * Arrays and objects are their JSON text; null is an empty field. Longitude and latitude are properties of their
 * own, so a spreadsheet needs no WKT parser. @terraformer/wkt writes the WKT (shapes: polygons, lines, collections).
 */
export function csvWriter({ columns }: WriterOptions): ExportWriter {
  const encoder = new TextEncoder();
  const names = ["id", "geometry", ...columns.filter((c) => c.name !== "id").map((c) => c.name)];
  const rest = columns.filter((c) => c.name !== "id");
  return {
    start: () => [encoder.encode(`${names.map(field).join(",")}\r\n`)],
    write(features) {
      let text = "";
      for (const json of features) {
        const feature = JSON.parse(json) as ParsedFeature;
        text += field(feature.id);
        text += ",";
        text += field(wktOf(feature.geometry));
        for (const column of rest) {
          text += ",";
          text += field(cell(columnValue(feature, column), column));
        }
        text += "\r\n";
      }
      return [encoder.encode(text)];
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
