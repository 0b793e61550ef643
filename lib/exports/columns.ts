import { OGC_PROPERTIES, type PropertyType } from "../proofs/properties.js";

/**
 * The columns of a download: the feature's `id`, then the OGC feature properties under the GeoJSON's own names, in
 * the catalogue's order (lib/proofs/properties.ts), then `distance` in a proximity query (as the GeoJSON's properties
 * end with it). Every tabular format (CSV, FlatGeobuf, GeoParquet) writes these; the geometry is each format's own.
 */
export type ExportColumn = { name: string; type: PropertyType; nullable: boolean };

export function exportColumns(withDistance: boolean): ExportColumn[] {
  return [
    { name: "id", type: "hash", nullable: false },
    ...OGC_PROPERTIES.map((q) => ({ name: q.name, type: q.type, nullable: q.nullable })),
    ...(withDistance ? [{ name: "distance", type: "number" as const, nullable: false }] : []),
  ];
}

/** A GeoJSON geometry as a download reads it from a feature's JSON. */
export type Geometry = { type: string; coordinates?: unknown; geometries?: Geometry[] };

/** A feature as PostgreSQL wrote it (lib/proofs/json-sql.ts), parsed. */
export type ParsedFeature = {
  id: string;
  geometry: Geometry | null;
  properties: Record<string, unknown>;
};
