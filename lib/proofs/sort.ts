import { type AnyColumn, and, or, type SQL, sql } from "drizzle-orm";
import { unindexed } from "../../db/index-steering.js";
import { BoundedMap } from "../cache/bounded-map.js";
import { type PropertyType, proofProperty } from "./properties.js";
import type { ProofRow } from "./rows.js";
import { renderedOnce } from "./sql-once.js";

/** `field` is a sortable property of the catalogue (lib/proofs/properties.ts); sortby checks it. */
export type SortSpec = { field: string; descending: boolean };

/** Newest first: the default order of every list. */
export const DEFAULT_SORT: SortSpec[] = [{ field: "event_timestamp", descending: true }];

/**
 * The nearest-first order's one key (native `sort=distance`, OGC `sortby=distance`): the distance from the query's
 * point, not a property. Its pages are read by lib/proofs/nearest.ts, never from an order index.
 */
export const DISTANCE = "distance";

/** Whether the sort is the nearest-first order. */
export const isDistanceSort = (sort: SortSpec[] | undefined): boolean =>
  sort?.length === 1 && sort[0]!.field === DISTANCE;

/** One key of a total order: a catalogue property, its direction; nulls always sort last. */
export type SortKey = {
  field: string;
  /** the column; for the distance, the name the statement reads it as (RowsQuery.distance) */
  column: AnyColumn | SQL;
  descending: boolean;
  nullable: boolean;
  type: PropertyType;
  /** the key's value in a row, as the catalogue serialises it (timestamps as ISO strings): what a cursor holds */
  value: (row: ProofRow) => unknown;
};

function key(field: string, descending: boolean): SortKey {
  if (field === DISTANCE) {
    return {
      field,
      column: sql`"distance"`,
      descending,
      nullable: false,
      type: "number",
      value: (row) => row.distance ?? null,
    };
  }
  const q = proofProperty(field);
  if (!q?.column || !(q.sortable || field === "chain_id"))
    throw new Error(`not a sortable property: ${field}`);
  return { field, column: q.column, descending, nullable: q.nullable, type: q.type, value: q.value };
}

/**
 * The total order of a sort: its keys, then uid and chain id ascending (the primary key), so that no two proofs tie
 * and paging never skips or repeats one. Nulls sort last in either direction.
 */
export function sortKeys(sort: SortSpec[] = DEFAULT_SORT): SortKey[] {
  const keys = sort.map((s) => key(s.field, s.descending));
  if (!sort.some((s) => s.field === "uid")) keys.push(key("uid", false));
  keys.push(key("chain_id", false));
  return keys;
}

/**
 * An order as a plan holds it (lib/proofs/plan.ts): its total order's keys (sortKeys), worked out once, and a
 * signature that names its shape (orderSignature, or sortSignature). The statements of a page read it.
 */
export type OrderKeys = { keys: SortKey[]; signature: string };

/** The OrderKeys of a sort, for a caller without a plan. */
export const orderKeys = (sort: SortSpec[] = DEFAULT_SORT): OrderKeys => ({
  keys: sortKeys(sort),
  signature: sortSignature(sort),
});

/** The sort as sortby writes it (`-event_timestamp`, `block_number,-chain`). */
export const sortSignature = (sort: SortSpec[] = DEFAULT_SORT): string =>
  sort.map((s) => `${s.descending ? "-" : ""}${s.field}`).join(",");

/**
 * What a page puts before the sort: the features that have a geometry, an event time, or both (the OGC items with
 * a bbox or a datetime: lib/proofs/count.ts, locatedFirst). Empty: the sort alone.
 */
export type Located = readonly ("geometry" | "time")[];

/** A page's whole order: what comes first (located), then the sort. */
export type Order = { sort?: SortSpec[] | undefined; located?: Located };

/**
 * The order as a cursor names it (`-event_timestamp`; `located(geometry),-event_timestamp`): a cursor is refused
 * by a request of another order.
 */
export const orderSignature = (order: Order): string =>
  `${order.located?.length ? `located(${order.located.join(",")}),` : ""}${sortSignature(order.sort)}`;

/** A key's value as a bound parameter of its column's type (cursor values arrive as JSON). */
function param(k: SortKey, value: unknown): SQL {
  switch (k.type) {
    case "timestamp":
      return sql`${value}::timestamptz`;
    case "number":
      return sql`${value}::float8`;
    case "integer":
      return sql`${value}::bigint`;
    default:
      return sql`${value}`;
  }
}

/**
 * ORDER BY for a sort (offset paging): the total order of sortKeys, nulls last in either direction. `avoidIndex`
 * (a selective filter, see pageAndCount) makes the planner filter first and sort the few matches, instead of
 * walking the order index hoping to meet them early.
 */
export function orderBy(order: OrderKeys, options: { avoidIndex?: boolean } = {}): SQL[] {
  return shapeOf(`offset\u0000${order.signature}\u0000${!!options.avoidIndex}`, () => [
    renderedOnce(
      sql.join(
        order.keys.map((k, i) => {
          const expr = options.avoidIndex && i === 0 ? unindexed(k.column) : sql`${k.column}`;
          return k.descending ? sql`${expr} desc nulls last` : sql`${expr} asc nulls last`;
        }),
        sql`, `,
      ),
    ),
  ]);
}

/**
 * The parameter-free parts of a sort's statements (ORDER BY lists, null tests), rendered once per sort shape
 * (renderedOnce) and kept: a handful of shapes serve nearly every request. Bounded, as sortby is the client's.
 */
const shapes = new BoundedMap<string, unknown>(500);
function shapeOf<T>(key: string, make: () => T): T {
  return shapes.getOrMake(key, make) as T;
}

/**
 * Where a keyset page continues from: strictly after (next) or strictly before (prev) a row's key, in the sort's
 * order. The key is the sort key values of a row, and `position`, that row's place in the list when the
 * link was made (the first row after it for `next`, the row itself for `prev`). The position is only a hint for
 * telling a reader "51–100 of 120": rows written since may have moved it; the key alone decides the page.
 */
export type Cursor = {
  direction: "next" | "prev";
  position: number;
  /** the row's part, in an order that puts located features first (lib/proofs/count.ts, countParts) */
  part?: number;
  /** the row's sort key values */
  values: unknown[];
};

/** One index range of a keyset page: its condition and its ORDER BY (in the direction the page is read). */
export type Segment = {
  where: SQL | undefined;
  orderBy: SQL[];
  /** For a nullable first key: the field, and whether this is its null part or its non-null part. */
  part?: { field: string; nulls: boolean };
};

/**
 * The columns whose index is built descending with nulls last (location_proofs_order_idx, the default order); every
 * other sortable column has an ascending (nulls last) btree. A scan in the other direction gives the other nulls
 * placement, so the non-null part of a page is ordered the way the index delivers it (its nulls placement is moot
 * there: it holds no null), and the nulls are read as a part of their own.
 */
const DESCENDING_INDEX = new Set(["event_timestamp"]);

/**
 * Rows strictly after (or, `before`, strictly before) `values` in the order of `keys` (nulls last), from key `i` on:
 * lexicographic, a key's tie passing the decision to the next key.
 */
function pastKeys(keys: SortKey[], values: unknown[], before: boolean, i = 0): SQL | undefined {
  if (i >= keys.length) return undefined;
  const k = keys[i]!;
  const v = values[i];
  const rest = pastKeys(keys, values, before, i + 1);
  if (v === null) {
    // Nulls are last: after a null only nulls (tied, decided by the rest) come; before it, every non-null.
    const tied = rest ? and(sql`${k.column} is null`, rest) : undefined;
    if (!before) return tied;
    return k.nullable ? or(sql`${k.column} is not null`, tied) : tied;
  }
  const strictly =
    k.descending !== before ? sql`${k.column} < ${param(k, v)}` : sql`${k.column} > ${param(k, v)}`;
  const tied = rest ? and(sql`${k.column} = ${param(k, v)}`, rest) : undefined;
  const nullsAfter = !before && k.nullable ? sql`${k.column} is null` : undefined;
  return or(strictly, nullsAfter, tied);
}

/**
 * Rows past `values` from key `i` on, written for the index that leads with key `i`: a seek (`k <= v`, or `>=`),
 * which the index starts from, and past it `k <> v` or a tie decided by the further keys. The same rows as
 * pastKeys, each condition written once: PostgreSQL estimates each condition apart and multiplies their
 * selectivities, so a range written twice (the seek `k <= v` and the exact `k < v or …` beside it) or a null test
 * twice made it expect a small part of the rows it reads. Near the end of a list, where the rows left are a few
 * pages, it then expected fewer rows than the page and read them all by a bitmap and sorted them, page after page,
 * instead of reading the page from the index. A nullable key `i` > 0 keeps pastKeys' form (the seek would drop
 * its nulls); the first key's nulls are a part of their own (keysetSegments).
 */
function seekPast(keys: SortKey[], values: unknown[], before: boolean, i: number): SQL | undefined {
  const k = keys[i];
  const v = values[i];
  if (!k || v === null || v === undefined || (i > 0 && k.nullable)) return pastKeys(keys, values, before, i);
  const seek =
    k.descending !== before ? sql`${k.column} <= ${param(k, v)}` : sql`${k.column} >= ${param(k, v)}`;
  return and(seek, or(sql`${k.column} <> ${param(k, v)}`, pastKeys(keys, values, before, i + 1)));
}

/**
 * A keyset page's ORDER BY lists (reading forward or `backward`) and its first key's null tests: the same for every
 * page of a sort, so rendered once (shapeOf).
 */
function segmentOrders(order: OrderKeys, backward: boolean, avoidIndex: boolean) {
  return shapeOf(`keyset\u0000${order.signature}\u0000${backward}\u0000${avoidIndex}`, () => {
    const [first, ...others] = order.keys as [SortKey, ...SortKey[]];
    const dir = (k: SortKey) => (k.descending !== backward ? sql`desc` : sql`asc`);
    const nulls = backward ? sql`nulls first` : sql`nulls last`;
    const restOrder = others.map((k) => sql`${k.column} ${dir(k)} ${nulls}`);
    const firstExpr = avoidIndex ? unindexed(first.column) : sql`${first.column}`;
    // The first key's nulls placement as its index delivers it in the direction read (see DESCENDING_INDEX).
    const indexNullsLast = DESCENDING_INDEX.has(first.field) === (first.descending !== backward);
    const nonNullOrder = [
      sql`${firstExpr} ${dir(first)} ${indexNullsLast ? sql`nulls last` : sql`nulls first`}`,
      ...restOrder,
    ];
    return {
      nonNullOrder: [renderedOnce(sql.join(nonNullOrder, sql`, `))],
      restOrder: [renderedOnce(sql.join(restOrder, sql`, `))],
      isNull: renderedOnce(sql`${first.column} is null`),
      // Avoiding the index, the non-null part's test is on the unindexed form too: it holds nearly every row, and
      // a bitmap of it (an index whose second column is the key) ANDed with a selective filter's reads that index
      // whole.
      isNotNull: renderedOnce(sql`${firstExpr} is not null`),
    };
  });
}

/**
 * A keyset page as index ranges read one after the other until the page is full: every page is an index seek to
 * the cursor on the first key (its ties and further keys are decided by the exact lexicographic condition, and
 * sorted incrementally), whatever its depth — never an OFFSET that reads and discards every row before it.
 *
 * The first key, when nullable, is read in two parts, the non-null values through its index (seek to the cursor)
 * and the nulls (last in either direction) on their own; a `prev` page reads the same ranges in reverse order
 * (nulls first, every key flipped) and is turned round by the caller. Without a cursor the segments give the first
 * page, or with `backward` the last one read backwards (a prev page that continues into an earlier part).
 * `avoidIndex` keeps the filter-first plan for selective filters (see pageAndCount).
 */
export function keysetSegments(
  order: OrderKeys,
  cursor: Cursor | undefined,
  options: { avoidIndex?: boolean; backward?: boolean } = {},
): Segment[] {
  const keys = order.keys;
  const backward = options.backward ?? cursor?.direction === "prev";
  const [first] = keys as [SortKey, ...SortKey[]];
  const { nonNullOrder, restOrder, isNull, isNotNull } = segmentOrders(order, backward, !!options.avoidIndex);
  const values = cursor?.values ?? [];
  const v0 = values[0];
  const onValue = cursor !== undefined && v0 !== null && v0 !== undefined;
  const past = onValue ? seekPast(keys, values, backward, 0) : undefined;
  if (!first.nullable) return [{ where: past, orderBy: nonNullOrder }];
  const nonNull: Segment = {
    where: and(isNotNull, past),
    orderBy: nonNullOrder,
    part: { field: first.field, nulls: false },
  };
  // After (forward) a cursor on a value, every null is past it; after a cursor on a null, the further keys decide,
  // the second one read from the nulls' own index (uid, chain id) by a seek as the first key is.
  const onlyNulls: Segment = {
    where: and(isNull, cursor && !onValue ? seekPast(keys, values, backward, 1) : undefined),
    orderBy: restOrder,
    part: { field: first.field, nulls: true },
  };
  // Reading forward, the nulls come after every value; backward, before. A cursor on a null has no non-null part
  // ahead of it (forward), one with a value no null part behind it (backward).
  if (!backward) return cursor && v0 === null ? [onlyNulls] : [nonNull, onlyNulls];
  return cursor && v0 !== null ? [nonNull] : [onlyNulls, nonNull];
}
