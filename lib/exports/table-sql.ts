import { type SQL, sql } from "drizzle-orm";
import { locationProofs as p } from "../../db/schema.js";
import { distanceJson, type RowJson } from "../proofs/json-sql.js";
import { OGC_PROPERTIES } from "../proofs/properties.js";
import { renderedOnce } from "../proofs/sql-once.js";

/**
 * The text PostgreSQL writes for each row of a tabular download (FlatGeobuf, GeoParquet; lib/exports/table-row.ts
 * reads it): the point collection's table row (and the native list's, which downloads as it), or undefined for the
 * shapes collection, whose rows are the features' own JSON.
 */
export const tableRowSql = (points: boolean): RowJson | undefined => (points ? pointTableRow : undefined);

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
