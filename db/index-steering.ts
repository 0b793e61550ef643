import { type AnyColumn, type SQL, sql } from "drizzle-orm";

/*
 * Expressions that steer PostgreSQL's planner to one index and away from another, each with the one reason it
 * exists. Each looks like a no-op, which is why it has a name here: a well-meant edit that "simplifies" one away
 * loses its index silently. tests/proofs/index-steering.test.ts reads the plans with EXPLAIN (PGlite and
 * PostgreSQL) and fails when one no longer steers.
 */

/**
 * `x` as an expression no index is built on: coalesce(x, x), equal to x (null where x is). A condition or an order
 * on it is checked on the rows another access path found, never served by x's own index. For a first sort key when
 * a selective filter should find the rows (the page then sorts the few matches), and for a condition the planner
 * would otherwise AND in as a bitmap of a large share of the table.
 */
export const unindexed = (x: AnyColumn | SQL): SQL => sql`coalesce(${x}, ${x})`;

/**
 * A box no GiST index is built on: the box translated by nothing, (box - point(0, 0)). A bbox test on it filters
 * the rows a page finds by walking its order's index, instead of reading the region through the GiST index and
 * sorting it.
 */
export const unindexedBox = (box: SQL): SQL => sql`(${box} - point(0, 0))`;

/**
 * A box in a form of its own, (box + point(0, 0)), translated by nothing: the expression of a partial GiST index
 * (db/schema.ts, spanningBoundsBox), so that a condition on it can only be answered by that index, never by the
 * main one built on the plain box (with the same estimate for both, the planner may read a continent's bounds
 * through the main index to keep a few).
 */
export const distinctBoxForm = (box: SQL): SQL => sql`(${box} + point(0, 0))`;

/**
 * OFFSET 0 ending a subquery: PostgreSQL never pulls up (flattens) a subquery with an OFFSET, so what it selects is
 * computed once per row, not copied into each of its uses in the query above.
 */
export const SUBQUERY_FENCE = sql`offset 0`;
