import { getTableColumns, getTableName, type SQL, sql } from "drizzle-orm";
import { offchainRecords as o, locationProofs as p } from "../../db/schema.js";
import { renderedOnce } from "./sql-once.js";

/**
 * Where the records a list reads come from: the on-chain attestations the sync engine indexes (`onchain`, what every
 * list means by default: the spec's endpoints keep their meaning), the off-chain records published to this service
 * (`offchain`, lib/offchain/), or both (`all`).
 */
export const SOURCES = ["onchain", "offchain", "all"] as const;
export type Source = (typeof SOURCES)[number];

/**
 * What a statement reads FROM for a source. On-chain: the table itself. Otherwise a derived table under the
 * on-chain table's own name, with its columns: every condition, order, cursor and JSON writer of the lists
 * (lib/proofs/filter.ts, sort.ts, json-sql.ts) names `"location_proofs"."column"` and reads the off-chain records
 * unchanged, so there is one page plan and one writer, not a second listing path. The off-chain rows have no block,
 * transaction or log (null: what makes a row off-chain, lib/proofs/properties.ts `source`), and their
 * `indexed_at`, when the service stored the row, is when it was published. For `all`, a UNION ALL of both: the
 * planner pushes each condition into both branches, each served by its own table's indexes (the off-chain table has
 * the order and bounds indexes of the on-chain one, db/schema.ts), and merges their ordered rows, so keyset cursors
 * work across both.
 */
export const proofsFrom = (source: Source | undefined): SQL =>
  source === "offchain" ? OFFCHAIN : source === "all" ? ALL : ONCHAIN;

const ONCHAIN = renderedOnce(sql`${p}`);

/**
 * The column `shape`, which db/schema.ts declares on neither table: the PostGIS form of the geometry that CQL2's
 * spatial functions read, generated from geometry and the bounds by proof_shape (migrations 0006 and 0009).
 */
const SHAPE = sql.identifier("shape");

/** The on-chain table's columns, in its order, each read from the off-chain table where it has one, then the shape. */
const offchainColumns = (): SQL => {
  const own = getTableColumns(o) as Record<string, { name: string } | undefined>;
  return sql.join(
    [
      ...Object.entries(getTableColumns(p)).map(([key, column]) => {
        const name = sql.identifier(column.name);
        if (key === "indexedAt") return sql`${o.publishedAt} as ${name}`;
        const same = own[key];
        return same
          ? sql`${sql.identifier(same.name)} as ${name}`
          : sql`null::${sql.raw(column.getSQLType())} as ${name}`;
      }),
      SHAPE,
    ],
    sql`, `,
  );
};

const onchainColumns = (): SQL =>
  sql.join([...Object.values(getTableColumns(p)).map((c) => sql.identifier(c.name)), SHAPE], sql`, `);

const ALIAS = sql.identifier(getTableName(p));
const OFFCHAIN_SELECT = sql`select ${offchainColumns()} from ${o}`;
const OFFCHAIN = renderedOnce(sql`(${OFFCHAIN_SELECT}) ${ALIAS}`);
const ALL = renderedOnce(sql`(select ${onchainColumns()} from ${p} union all ${OFFCHAIN_SELECT}) ${ALIAS}`);

/** A source value of a filter: on-chain (the default) is no condition at all, and is left unset. */
export const sourceOf = (source: Source | undefined): { source?: Exclude<Source, "onchain"> } =>
  source && source !== "onchain" ? { source } : {};
