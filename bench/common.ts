/**
 * What bench:scale and bench:peers share: their options, their database beside BENCH_DATABASE_URL's, the data set's
 * end date and the figures' formatting. Both load the same synthetic data (seed 1, ending at END), so their figures
 * are of the same proofs.
 */
import pg from "pg";
import { connect, type DbHandle, MAINTENANCE_BUDGETS } from "../db/client.js";
import { migrate } from "../db/migrate.js";
import { bulkLoadSynthetic } from "../lib/local/synthetic-proofs.js";

const argv = process.argv.slice(2);
/** A numeric command-line option (`--name N`), or the fallback. */
export const option = (name: string, fallback: number) => {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};
export const flag = (name: string) => argv.includes(name);
/** A text option (`--name value`), or undefined. */
export const textOption = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);

/** The PostgreSQL server the benchmarks create their databases on (never DATABASE_URL's data). */
export const BENCH_SERVER = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** The URL of a benchmark's own database on BENCH_SERVER. */
export function benchDatabaseUrl(name: string): string {
  const u = new URL(BENCH_SERVER);
  u.pathname = `/${name}`;
  return u.toString();
}

/** One statement on its own connection (create/drop database, version, checks), by default on BENCH_SERVER. */
export async function admin(text: string, url = BENCH_SERVER): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

/**
 * A new database `name` on BENCH_SERVER (any old one dropped), migrated, holding `rows` synthetic proofs of seed 1
 * ending at END, with a progress line. The caller closes the handle.
 */
export async function loadBenchDatabase(name: string, rows: number): Promise<DbHandle> {
  await admin(`drop database if exists ${name} with (force)`);
  await admin(`create database ${name}`);
  const handle = await connect(benchDatabaseUrl(name), "pg", MAINTENANCE_BUDGETS);
  try {
    await migrate(handle);
    const total = rows.toLocaleString("en");
    await bulkLoadSynthetic(
      handle,
      rows,
      (n) => process.stdout.write(`\rloading ${n.toLocaleString("en")} / ${total}`),
      { seed: 1, end: END },
    );
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The newest event time of the data set: the start of today (UTC), so reruns on one day load the same data. */
export const END = new Date(new Date().toISOString().slice(0, 10));
export const DAY = 86_400_000;
/** ISO 8601 to the second, as a client writes it in a URL. */
export const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");

export const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
};
/** A millisecond figure: one decimal below 100, none from 100. */
export const f1 = (x: number) => (Number.isFinite(x) ? (x >= 100 ? x.toFixed(0) : x.toFixed(1)) : "-");
export const pad = (s: string, n: number) => s.padEnd(n);
export const lpad = (s: string, n: number) => s.padStart(n);
