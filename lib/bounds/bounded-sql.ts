import { type SQL, sql } from "drizzle-orm";
import { SUBQUERY_FENCE } from "../../db/index-steering.js";
import { locationProofs as p } from "../../db/schema.js";
import { type ProofProperty, proofProperty } from "../proofs/properties.js";
import { renderedOnce as once } from "../proofs/sql-once.js";
import {
  GEOMETRY_BYTES,
  GEOMETRY_FIELDS,
  JSON_BYTES,
  JSON_FIELDS,
  TEXT_CHARS,
  TEXT_FIELDS,
} from "./limits.js";

/**
 * The list's bounds on a record's values (lib/bounds/limits.ts) as SQL, for the writers that build a page's JSON in
 * PostgreSQL (lib/proofs/json-sql.ts, lib/graphql/nodes-plan.ts): a long value is cut there, so it never reaches
 * the driver or the function whole.
 *
 * Each bounded property has `over` (the value is longer than its bound) and `value` (the value as a list carries
 * it: a text's first TEXT_CHARS characters; a structured value whole, or null past its bound).
 */
type Bound = { name: string; over: SQL; value: SQL };

const n = (x: number) => sql.raw(String(x));
const sourceOf = (name: string): SQL => {
  const q = proofProperty(name);
  if (!q) throw new Error(`bounded property ${name} is not in the catalogue`);
  return q.source;
};

/**
 * A text's bound, in characters. Its byte length (octet_length, which PostgreSQL reads from the value's header
 * without decompressing it) is at least its number of characters, so a short text is passed without counting them.
 */
function textBound(name: string): Bound {
  const c = sourceOf(name);
  return {
    name,
    over: sql`coalesce(octet_length(${c}) > ${n(TEXT_CHARS)} and char_length(${c}) > ${n(TEXT_CHARS)}, false)`,
    value: sql`left(${c}, ${n(TEXT_CHARS)})`,
  };
}

/** A structured value's bound, in bytes of its JSON text. */
function jsonBound(name: string, bytes: number): Bound {
  const c = sourceOf(name);
  const over = sql`coalesce(octet_length(${c}::text) > ${n(bytes)}, false)`;
  return { name, over, value: sql`case when ${over} then null else ${c} end` };
}

const BOUNDS: Bound[] = [
  ...TEXT_FIELDS.map(textBound),
  ...JSON_FIELDS.map((name) => jsonBound(name, JSON_BYTES)),
  ...GEOMETRY_FIELDS.map((name) => jsonBound(name, GEOMETRY_BYTES)),
];
const BY_NAME = new Map(BOUNDS.map((b) => [b.name, b]));

/** A property's value as a list carries it: bounded, or its catalogue source when it has no bound. */
export const listSource = (q: Pick<ProofProperty, "name" | "source">): SQL =>
  BY_NAME.get(q.name)?.value ?? q.source;

/** The bounded geometry (the shapes collection's feature geometry). */
export const listGeometry: SQL = BY_NAME.get("geometry")!.value;

/** A string constant as SQL text (a path of the service: no parameter, so the expression renders once). */
const literal = (text: string): SQL => sql.raw(`'${text.replaceAll("'", "''")}'`);

/**
 * The marker of a row a list cut, null for a row it did not: `{"fields": [the names of the cut values], "href":
 * <path of the full record>}`, the path being `href` followed by the uid (relative to the service's origin). The
 * names are listed once and counted (SUBQUERY_FENCE keeps the planner from copying the list into each use).
 */
export const truncatedMarker = (href: string): SQL =>
  once(
    sql`(select case when cardinality(a) > 0 then json_build_object('fields', array_to_json(a), 'href', ${literal(href)} || ${p.uid}) end from (select array_remove(array[${sql.join(
      BOUNDS.map((b) => sql`case when ${b.over} then ${literal(b.name)} end`),
      sql`, `,
    )}]::text[], null) as a ${SUBQUERY_FENCE}) c)`,
  );
