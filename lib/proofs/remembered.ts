import { sql } from "drizzle-orm";
import { type Db, queryRows } from "../../db/client.js";
import { databaseErrorOf } from "../../db/errors.js";
import { BoundedMap } from "../cache/bounded-map.js";
import { SNAPSHOT_TEXT } from "./rows.js";

/*
 * What is remembered while the database provably has not changed: a value kept with the MVCC snapshot read before
 * (or inside) the statements that computed it, served again while a later statement reads the same snapshot. Why a
 * snapshot is such a key, and the invariant, are mechanism 3 of lib/proofs/count.ts; the counts and the statistics
 * (lib/proofs/stats.ts) are remembered this way. Per process, per database handle, bounded.
 */

/** SQLSTATE 42883 undefined_function: what PostgreSQL before 13 answers to pg_current_snapshot(). */
const isUndefinedFunction = (error: unknown) => databaseErrorOf(error)?.code === "42883";

/** The database handles whose server has no pg_current_snapshot(). */
const withoutSnapshots = new WeakSet<Db>();

/**
 * Runs `read` with the snapshot asked for (`true`) unless the server is known to lack pg_current_snapshot(); a
 * server that answers it does not is remembered as such, and `read` runs again without it. For a statement that
 * reads the snapshot beside its own work (the data version's: lib/data-version/version.ts).
 */
export async function withSnapshotIfAny<T>(db: Db, read: (snapshot: boolean) => Promise<T>): Promise<T> {
  if (withoutSnapshots.has(db)) return read(false);
  try {
    return await read(true);
  } catch (error) {
    if (!isUndefinedFunction(error)) throw error;
    withoutSnapshots.add(db);
    return read(false);
  }
}

/** The database's snapshot now, and whether `until` (a timestamptz as PostgreSQL writes it) is still ahead of now. */
export type SnapshotNow = { snapshot: string; before: boolean };

/**
 * The current snapshot, in a statement of its own; with `until`, also whether the database's clock has not reached
 * it. Undefined on a server without pg_current_snapshot() (PostgreSQL before 13), where nothing is remembered.
 */
export async function readSnapshot(db: Db, until?: string): Promise<SnapshotNow | undefined> {
  if (withoutSnapshots.has(db)) return undefined;
  try {
    const [row] = await queryRows<{ snapshot: string; before: boolean | null }>(
      db,
      until === undefined
        ? sql`select ${SNAPSHOT_TEXT} as snapshot`
        : sql`select ${SNAPSHOT_TEXT} as snapshot, now() < ${until}::timestamptz as before`,
    );
    return row ? { snapshot: row.snapshot, before: row.before === true } : undefined;
  } catch (error) {
    // Only a server without the function turns remembering off; an outage is the caller's.
    if (!isUndefinedFunction(error)) throw error;
    withoutSnapshots.add(db);
    return undefined;
  }
}

/** A remembered value, the snapshot it holds under, and the instant it stops holding even so (absent: never). */
export type Remembered<T> = { snapshot: string; value: T; until?: string | undefined };

/** Remembered values per database handle and key; the least recently used goes when there are more than `maxEntries`. */
export function rememberedPerDb<T>(maxEntries: number) {
  const byDb = new WeakMap<Db, BoundedMap<string, Remembered<T>>>();
  const entriesOf = (db: Db) => {
    let entries = byDb.get(db);
    if (!entries) {
      entries = new BoundedMap(maxEntries);
      byDb.set(db, entries);
    }
    return entries;
  };
  return {
    get: (db: Db, key: string): Remembered<T> | undefined => byDb.get(db)?.get(key),
    set: (db: Db, key: string, entry: Remembered<T>): void => entriesOf(db).set(key, entry),
  };
}
