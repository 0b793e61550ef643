import type { ExportColumn, Geometry, ParsedFeature } from "./columns.js";

/**
 * A row of a tabular download (FlatGeobuf, GeoParquet) as the writers take it: the columns' values in exportColumns'
 * order, and the feature's geometry (GeoJSON, null without one) with its bounds when the feature has a `bbox` member.
 */
export type TableRow = { values: unknown[]; geometry: Geometry | null; bbox?: unknown };

/**
 * How a writer reads its rows: how the text PostgreSQL writes for each (tableRowSql, lib/exports/table-sql.ts) becomes
 * values. Nothing here renders SQL: the GeoParquet encoder's thread (lib/exports/parquet-worker.ts) loads it.
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
    values: undefined,
    point: undefined,
    feature: (text: string): TableRow => {
      const feature = JSON.parse(text) as ParsedFeature & { bbox?: unknown };
      const values = columns.map((column) => columnValue(feature, column) ?? null);
      return { values, geometry: feature.geometry, bbox: feature.bbox };
    },
  };
}

/** A feature's value of a column: `id` is the feature's, every other one a property. */
export const columnValue = (feature: ParsedFeature, column: ExportColumn): unknown =>
  column.name === "id" ? feature.id : feature.properties[column.name];
