import { type SQL, sql } from "drizzle-orm";
import { SUBQUERY_FENCE } from "../../db/index-steering.js";
import { locationProofs as p } from "../../db/schema.js";
import { listGeometry, listSource, truncatedMarker } from "../bounds/bounded-sql.js";
import { OGC_PROPERTIES, PROOF_PROPERTIES, type ProofProperty, proofProperty } from "./properties.js";
import { renderedOnce as once } from "./sql-once.js";

/** JSON-FG's featureType of a proof (lib/jsonfg/vocabulary.ts says so too; lib/proofs knows no HTTP). */
export const FEATURE_TYPE = "LocationProof";

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
 * In a proximity query the JSON carries the distance too (RowJson), so the writers copy each row's text as it came.
 * Everything but the distance holds no parameters, and is rendered to SQL text once, here.
 */

/**
 * A row's JSON text as a page reads it (lib/proofs/query.ts), given the distance of a proximity query when it has
 * one (an SQL expression, metres from `near`: lib/proofs/near.ts), which it then writes as the last member of the
 * record, or of the feature's properties: `distance`.
 */
export type RowJson = (distance?: SQL) => SQL;

/** A RowJson from its builder; without a distance it has no parameter, and is rendered once. */
function rowJson(build: (distance?: SQL) => SQL): RowJson {
  const plain = once(build());
  return (distance) => (distance ? build(distance) : plain);
}

/** The members of a JSON object (a name and its SQL source each), in their order, as a select list. */
const membersOf = (members: readonly Pick<ProofProperty, "name" | "source">[]): SQL =>
  once(
    sql.join(
      members.map((q) => sql`${q.source} as ${sql.identifier(q.name)}`),
      sql`, `,
    ),
  );

/**
 * A distance in metres (never negative, at most half the circumference) as the JSON number JSON.stringify writes
 * for it: the same bytes whether PostgreSQL or Node writes a record. float8's text has the same digits (both the shortest that read
 * back exactly), but writes a distance under 0.1 mm with an exponent of at least two digits: 3.5e-05 where
 * JavaScript writes 0.000035, 1.5e-07 where it writes 1.5e-7 (such a distance is a point within a hair of `near`).
 * Both switch to exponents for large numbers only far beyond any distance. SUBQUERY_FENCE keeps the planner from
 * copying the distance's expression into each of its uses: it is computed once.
 */
const DISTANCE_HEAD = once(
  sql`(select case when d = 0 or d >= 1e-4::float8 then to_json(d) when d >= 1e-6::float8 then ('0.' || repeat('0', -1 - split_part(d::text, 'e', 2)::int) || replace(split_part(d::text, 'e', 1), '.', ''))::json else replace(d::text, 'e-0', 'e-')::json end from (select `,
);
const DISTANCE_TAIL = once(sql` as d ${SUBQUERY_FENCE}) x)`);
export const distanceJson = (distance: SQL): SQL => sql`${DISTANCE_HEAD}${distance}${DISTANCE_TAIL}`;

/** One JSON object of the members (membersOf), in their order, then `distance` when given: row_to_json over a row. */
const objectOf = (members: SQL, distance?: SQL): SQL =>
  sql`(select row_to_json(r) from (select ${members}${distance ? sql`, ${distanceJson(distance)} as "distance"` : sql``}) r)`;

const RECORD_MEMBERS = membersOf(PROOF_PROPERTIES);
const OGC_MEMBERS = membersOf(OGC_PROPERTIES);

/**
 * An object of the members as a list carries them (lib/bounds/): each value within its bound (a value within it is
 * the value itself), then `distance` when given, then, only in a row the list cut, `truncated`: the marker naming
 * the values cut and where the full record is (`href`, the uid appended). One object, the marker spliced into its
 * text where there is one: a row is written once, whether or not a value was cut.
 */
function boundedObjectOf(members: readonly ProofProperty[], href: string): (distance?: SQL) => SQL {
  const bounded = membersOf(members.map((q) => ({ name: q.name, source: listSource(q) })));
  const head = once(
    sql`(select case when m is null then o else (left(o::text, -1) || ',"truncated":' || m::text || '}')::json end from (select `,
  );
  const tail = once(sql` as o, ${truncatedMarker(href)} as m ${SUBQUERY_FENCE}) x)`);
  return (distance) => sql`${head}${objectOf(bounded, distance)}${tail}`;
}

/** The native record (serializeProof), as text. */
export const recordJson: RowJson = rowJson((distance) => sql`${objectOf(RECORD_MEMBERS, distance)}::text`);

/**
 * The native record as a list carries it (lib/bounds/limits.ts): each value within its bound, a record with a value
 * cut marked `truncated`, pointing at `href` + uid (the record by uid, whole).
 */
export function recordListJson(href: string): RowJson {
  const object = boundedObjectOf(PROOF_PROPERTIES, href);
  return rowJson((distance) => sql`${object(distance)}::text`);
}

/**
 * A JSON object of the given members (a name and its SQL source each, e.g. the catalogue's), in their order, as text:
 * a projection of a proof, such as a GraphQL selection of its fields (lib/graphql/nodes-plan.ts).
 */
export const jsonTextOf = (members: readonly Pick<ProofProperty, "name" | "source">[]): SQL =>
  once(sql`${objectOf(membersOf(members))}::text`);

/** The representative point as a GeoJSON Point, or null without coordinates (toFeature, the point collection). */
const point = sql`case when ${p.longitude} is null or ${p.latitude} is null then null else ('{"type":"Point","coordinates":[' || ${p.longitude}::text || ',' || ${p.latitude}::text || ']}')::json end`;

/**
 * JSON-FG's members of a feature (lib/jsonfg/): its type, and its `time`, the event time as an instant (null without
 * one). JSON-FG's time pattern asks for a Z and optional fractions: the catalogue's timestamp text is that.
 */
const JSONFG_TIME = sql`case when ${p.eventTimestamp} is null then null else json_build_object('timestamp', ${proofProperty("event_timestamp")!.source}) end`;

/**
 * A GeoJSON feature: id, geometry, an optional bbox member, and the OGC properties (toFeature), given the distance
 * its properties end with in a proximity query. All but the properties rendered once. As JSON-FG (`jsonfg`,
 * toJsonFgFeature), `featureType` and `time` come before the geometry and `"place":null` after it, which the writer
 * fills when the page asks for another coordinate system (lib/crs/feature-text.ts).
 */
function featureOf(
  geometry: SQL,
  bbox?: SQL,
  jsonfg = false,
  properties: (distance?: SQL) => SQL = (distance) => objectOf(OGC_MEMBERS, distance),
): (distance?: SQL) => SQL {
  const fg = jsonfg
    ? sql`${sql.raw(`'${FEATURE_TYPE}'`)}::text as "featureType", ${JSONFG_TIME} as "time", `
    : sql``;
  const head = once(
    sql`(select row_to_json(f) from (select 'Feature'::text as "type", ${p.uid} as "id", ${fg}${geometry} as "geometry", ${bbox ? sql`${bbox} as "bbox", ` : sql``}${jsonfg ? sql`null::json as "place", ` : sql``}`,
  );
  const tail = once(sql` as "properties") f)`);
  return (distance) => sql`${head}${properties(distance)}${tail}`;
}

/** A feature of the point collection (toFeature: id, the point, the OGC properties), as text. */
const pointFeature = featureOf(point);
export const pointFeatureJson: RowJson = rowJson((distance) => sql`${pointFeature(distance)}::text`);
const pointFeatureFg = featureOf(point, undefined, true);
export const pointFeatureFgJson: RowJson = rowJson((distance) => sql`${pointFeatureFg(distance)}::text`);

/**
 * A feature of the shapes collection (toFeature): the stored geometry, and a `bbox` member [west, south, east,
 * north] only when the geometry is not a point and has bounds: a member left out, not null. The feature is written
 * once, without it, and the member spliced into its text where it belongs (withBboxMember).
 */
const bounds = [p.minLon, p.minLat, p.maxLon, p.maxLat];
const shape = sql`${p.geometry}`;
const hasBboxMember = once(
  sql`jsonb_typeof(${p.geometry}) = 'object' and (${p.geometry}->>'type') is distinct from 'Point' and ${sql.join(
    bounds.map((c) => sql`${c} is not null`),
    sql` and `,
  )}`,
);
const BBOX_TEXT = once(
  sql`'[' || ${sql.join(
    bounds.map((c) => sql`${c}::text`),
    sql` || ',' || `,
  )} || ']'`,
);

/**
 * A shapes feature's text with its `bbox` member where the feature has one (hasBboxMember), right after the geometry:
 * before `"place"` in JSON-FG, else before `"properties"`. The first such name in the text is the member's own: the
 * members before it are the type, the id, JSON-FG's featureType and time, and the geometry, whose texts can hold
 * neither (the geometry is jsonb, written with a space after every comma and colon). One feature's expression,
 * where a CASE between two would make the statement twice as long to send, parse and plan.
 */
function withBboxMember(feature: (distance?: SQL) => SQL, jsonfg: boolean): RowJson {
  const next = jsonfg ? ',"place":' : ',"properties":';
  const head = once(
    sql`(select case when h then overlay(t placing ',"bbox":' || b from position(${sql.raw(`'${next}'`)} in t) for 0) else t end from (select `,
  );
  const tail = once(sql`::text as t, ${hasBboxMember} as h, ${BBOX_TEXT} as b ${SUBQUERY_FENCE}) x)`);
  return rowJson((distance) => sql`${head}${feature(distance)}${tail}`);
}

function shapeFeature(jsonfg: boolean): RowJson {
  return withBboxMember(featureOf(shape, undefined, jsonfg), jsonfg);
}
export const shapeFeatureJson: RowJson = shapeFeature(false);
export const shapeFeatureFgJson: RowJson = shapeFeature(true);

/**
 * A feature as an items page carries it (lib/bounds/limits.ts): its properties within their bounds and, in the
 * shapes collection, its geometry within its bound (null past it); a feature with a value cut carries `truncated` in
 * its properties, pointing at `href` + uid (the feature by id, whole). Every other feature is written as by id.
 */
export function featureListJson(collection: "point" | "shape", jsonfg: boolean, href: string): RowJson {
  const properties = boundedObjectOf(OGC_PROPERTIES, href);
  if (collection === "point") {
    const feature = featureOf(point, undefined, jsonfg, properties);
    return rowJson((distance) => sql`${feature(distance)}::text`);
  }
  return withBboxMember(featureOf(listGeometry, undefined, jsonfg, properties), jsonfg);
}
