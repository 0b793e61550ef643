import { type SQL, sql } from "drizzle-orm";
import { locationProofs as p } from "../../db/schema.js";
import { distanceJson, type RowJson } from "../proofs/json-sql.js";
import { OGC_PROPERTIES } from "../proofs/properties.js";
import { renderedOnce } from "../proofs/sql-once.js";
import type { ExportColumn, Geometry, ParsedFeature } from "./columns.js";
import { columnValue } from "./columns.js";

/**
 * A row of a tabular download (FlatGeobuf, GeoParquet) as the writers take it: the columns' values in exportColumns'
 * order, and the feature's geometry (GeoJSON, null without one) with its bounds when the feature has a `bbox` member.
 */
export type TableRow = { values: unknown[]; geometry: Geometry | null; bbox?: unknown };

/**
 * How a writer reads its rows: the text PostgreSQL writes for each (`rowSql`, when not the feature's JSON) and how a
 * text becomes values.
 *
 * The point collection (and the native list, which downloads as it): PostgreSQL writes each row as one JSON array of
 * the columns' values (pointTableRow), from the same catalogue sources as the feature's properties, so a row parses
 * into a flat array, not a feature of nested objects, and its point is its own `longitude` and `latitude` columns
 * (the feature's geometry is made from those two). The shapes collection: the feature's JSON (its stored geometry,
 * whatever its type), parsed, its values taken from its properties.
 */
export function tableRows(points: boolean, columns: readonly ExportColumn[]) {
  if (points) {
    const lon = columns.findIndex((c) => c.name === "longitude");
    const lat = columns.findIndex((c) => c.name === "latitude");
    return {
      rowSql: pointTableRow as RowJson | undefined,
      values: (text: string): unknown[] => JSON.parse(text) as unknown[],
      /** The row's point, or null without coordinates (as the feature's geometry). */
      point: (values: unknown[]): [number, number] | null => {
        const x = values[lon];
        const y = values[lat];
        return typeof x === "number" && typeof y === "number" ? [x, y] : null;
      },
      feature: undefined,
    };
  }
  return {
    rowSql: undefined,
    values: undefined,
    point: undefined,
    feature: (text: string): TableRow => {
      const feature = JSON.parse(text) as ParsedFeature & { bbox?: unknown };
      const values = columns.map((column) => columnValue(feature, column) ?? null);
      return { values, geometry: feature.geometry, bbox: feature.bbox };
    },
  };
}

const VALUES = renderedOnce(sql.join([sql`${p.uid}`, ...OGC_PROPERTIES.map((q) => q.source)], sql`, `));

/**
 * A row of the point collection as a JSON array: the feature's id, its properties' values in the catalogue's order
 * (the very expressions the feature's properties are written from, so the same values), then the distance in a
 * proximity query, as the feature's JSON writes it.
 */
export const pointTableRow: RowJson = (() => {
  const plain = renderedOnce(sql`json_build_array(${VALUES})::text`);
  return (distance?: SQL) =>
    distance ? sql`json_build_array(${VALUES}, ${distanceJson(distance)})::text` : plain;
})();
