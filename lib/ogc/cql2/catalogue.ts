import type { SQL } from "drizzle-orm";
import type { BboxLit, GeometryLit, SpatialOp } from "./ast.js";

/**
 * What a CQL2 filter can name: a catalogue of queryables. The compiler knows nothing of proofs; it asks the
 * catalogue for each property's SQL and type, and for the SQL of a spatial predicate on its geometry. The two
 * collections (proof-catalogue.ts) are catalogues, and so is the data of the standard's test annex (tests/).
 */

/** The types CQL2 compares by. `address`: text compared lowercased (addresses, uids, hashes). */
export type QueryableType =
  | "string"
  | "address"
  | "integer"
  | "number"
  | "boolean"
  | "timestamp"
  /** a calendar day: its SQL is the day's first instant (timestamptz, UTC); compared and related as the whole day */
  | "date"
  /** an array of strings (JSON array in jsonb) */
  | "strings"
  | "geometry";

export type Queryable = {
  /** the SQL that reads it (a column, or an expression over the row) */
  sql: SQL;
  type: QueryableType;
};

export type Catalogue = {
  /** The queryable of this name, if any (own names only: `constructor` names nothing). */
  property(name: string): Queryable | undefined;
  /** Every name, for the message that lists them. */
  names(): string[];
  /**
   * The SQL of `op(geometry property, literal)`, true/false/null (null where the feature has no geometry), or a
   * reason this catalogue cannot test it exactly (then the filter is a 400, never an approximate answer).
   */
  spatial(op: SpatialOp, property: Queryable, literal: BboxLit | GeometryLit): SQL | string;
};
