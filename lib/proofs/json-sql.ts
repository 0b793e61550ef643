import { type SQL, sql } from "drizzle-orm";
import { locationProofs as p } from "../../db/schema.js";
import { numberArraySql, OGC_PROPERTIES, PROOF_PROPERTIES, type ProofProperty } from "./properties.js";
import { renderedOnce as once } from "./sql-once.js";

/**
 * Pages of proofs as JSON written by PostgreSQL: each row's native record, or its OGC feature, as one text column,
 * from the catalogue's `source` expressions (lib/proofs/properties.ts), which tests/proofs/json-sql.test.ts holds equal to
 * what serializeProof and toFeature write.
 *
 * Why: on a large page, decoding every column of every row in the driver, building the records and JSON.stringify
 * are most of the request's CPU; PostgreSQL writes the same JSON for a small part of that, and the function then
 * only joins the rows' texts (docs/performance.md, "How a page is made, and why it is cheap"). The JSON is the same value for value. Its
 * text differs in one way: the stored jsonb members (geometry, the recipe and media arrays) keep jsonb's own layout,
 * a space after each `:` and `,` inside them.
 *
 * The expressions hold no parameters, so each is rendered to SQL text once, here.
 */

/** One JSON object of the properties, in their order: row_to_json over a row of them, named as in the catalogue. */
const objectOf = (properties: readonly Pick<ProofProperty, "name" | "source">[]): SQL =>
  sql`(select row_to_json(r) from (select ${sql.join(
    properties.map((q) => sql`${q.source} as ${sql.identifier(q.name)}`),
    sql`, `,
  )}) r)`;

/** The native record (serializeProof), as text. */
export const RECORD_JSON: SQL = once(sql`${objectOf(PROOF_PROPERTIES)}::text`);

/**
 * A JSON object of the given members (a name and its SQL source each, e.g. the catalogue's), in their order, as text:
 * a projection of a proof, such as a GraphQL selection of its fields (lib/graphql/nodes-plan.ts).
 */
export const jsonTextOf = (members: readonly Pick<ProofProperty, "name" | "source">[]): SQL =>
  once(sql`${objectOf(members)}::text`);

/** The representative point as a GeoJSON Point, or null without coordinates (toFeature, the point collection). */
const point = sql`case when ${p.longitude} is null or ${p.latitude} is null then null else ('{"type":"Point","coordinates":[' || ${p.longitude}::text || ',' || ${p.latitude}::text || ']}')::json end`;

/** A GeoJSON feature: id, geometry, an optional bbox member, and the OGC properties (toFeature). */
const featureOf = (geometry: SQL, bbox?: SQL): SQL =>
  sql`(select row_to_json(f) from (select 'Feature'::text as "type", ${p.uid} as "id", ${geometry} as "geometry", ${bbox ? sql`${bbox} as "bbox", ` : sql``}${objectOf(OGC_PROPERTIES)} as "properties") f)`;

/** A feature of the point collection (toFeature: id, the point, the OGC properties), as text. */
export const POINT_FEATURE_JSON: SQL = once(sql`${featureOf(point)}::text`);

/**
 * A feature of the shapes collection (toFeature): the stored geometry, and a `bbox` member [west, south, east,
 * north] only when the geometry is not a point and has bounds — a member left out, not null, hence two branches.
 */
const bounds = [p.minLon, p.minLat, p.maxLon, p.maxLat];
const shape = sql`${p.geometry}`;
const hasBboxMember = sql`jsonb_typeof(${p.geometry}) = 'object' and (${p.geometry}->>'type') is distinct from 'Point' and ${sql.join(
  bounds.map((c) => sql`${c} is not null`),
  sql` and `,
)}`;
export const SHAPE_FEATURE_JSON: SQL = once(
  sql`(case when ${hasBboxMember} then ${featureOf(shape, numberArraySql(bounds))} else ${featureOf(shape)} end)::text`,
);
