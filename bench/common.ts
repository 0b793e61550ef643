/**
 * What the benchmarks share: options, their own databases, the synthetic data set of bench:scale and bench:peers
 * (seed 1, ending at END, so both measure the same proofs), Node 24, and the figures' formatting.
 */
import http from "node:http";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import pg from "pg";
import { connect, type DbHandle, MAINTENANCE_BUDGETS, queryRows } from "../db/client.js";
import { migrate } from "../db/migrate.js";
import { bulkLoadSynthetic } from "../lib/local/synthetic-proofs.js";
import { node24Binary } from "../scripts/build-output.js";
import { builtOutputCopy, serveOutput } from "../scripts/vercel-output/emulate.js";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The Node 24 binary the built functions are served on, as in production; throws without one. */
export function requireNode24(): string {
  const node = node24Binary(ROOT);
  if (!node) throw new Error("Node 24 not found: npm ci --prefix .ci/node24 (or set NODE24)");
  return node;
}

/**
 * A benchmark's command line (node:util's parseArgs): numeric options (`--name N`, else the default), flags and text
 * options (`--name value`, else undefined). An option the benchmark does not know, or a number that is not one, stops
 * it with a message instead of measuring something else than was asked.
 */
export function benchArgs<N extends string, F extends string = never, T extends string = never>(spec: {
  numbers: Record<N, number>;
  flags?: readonly F[];
  texts?: readonly T[];
}): Record<N, number> & Record<F, boolean> & Record<T, string | undefined> {
  const numbers = Object.keys(spec.numbers) as N[];
  const options: Record<string, { type: "string" | "boolean" }> = {};
  for (const name of [...numbers, ...(spec.texts ?? [])]) options[name] = { type: "string" };
  for (const name of spec.flags ?? []) options[name] = { type: "boolean" };
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: process.argv.slice(2), options, strict: true }).values;
  } catch (error) {
    console.error(
      `${(error as Error).message}\noptions: ${Object.keys(options)
        .map((o) => `--${o}`)
        .join(" ")}`,
    );
    process.exit(2);
  }
  const out: Record<string, number | boolean | string | undefined> = { ...values };
  for (const name of numbers) {
    const given = values[name];
    out[name] = given === undefined ? spec.numbers[name] : Number(given);
    if (!Number.isFinite(out[name])) {
      console.error(`--${name} takes a number, not ${String(given)}`);
      process.exit(2);
    }
  }
  for (const name of spec.flags ?? []) out[name] = values[name] === true;
  return out as Record<N, number> & Record<F, boolean> & Record<T, string | undefined>;
}

/** The PostgreSQL server the benchmarks create their databases on (never DATABASE_URL's data). */
export const BENCH_SERVER = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** The URL of database `name` on the server of `server` (a connection URL). */
export function databaseUrl(server: string, name: string): string {
  const u = new URL(server);
  u.pathname = `/${name}`;
  return u.toString();
}
/** The URL of a benchmark's own database on BENCH_SERVER. */
export const benchDatabaseUrl = (name: string) => databaseUrl(BENCH_SERVER, name);

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

/** What a loaded database's comment says of its data: a later run reuses only the same data. */
const dataTag = (rows: number) => `lpqs bench: ${rows} synthetic proofs, seed 1, end ${END.toISOString()}`;

/**
 * Whether database `name` on BENCH_SERVER holds exactly the data loadBenchDatabase would load (the same size and end
 * date, and still `rows` proofs); it gets the migrations added since.
 */
export async function holdsBenchData(name: string, rows: number): Promise<boolean> {
  const [db] = await admin(
    `select shobj_description(oid, 'pg_database') as tag from pg_database where datname = '${name}'`,
  );
  if (db?.tag !== dataTag(rows)) return false;
  const handle = await connect(benchDatabaseUrl(name), "pg", MAINTENANCE_BUDGETS);
  try {
    await migrate(handle);
    const [row] = await queryRows<{ n: number }>(
      handle.db,
      sql`select count(*)::int as n from location_proofs`,
    );
    return row?.n === rows;
  } finally {
    await handle.close();
  }
}

/**
 * A new database `name` on BENCH_SERVER (any old one dropped), migrated, holding `rows` synthetic proofs of seed 1
 * ending at END, vacuumed and analysed as autovacuum would soon after a bulk load (visibility map for index-only
 * scans, statistics for plans), with a progress line. The caller closes the handle.
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
    await handle.db.execute(sql`vacuum analyze`);
    await admin(`comment on database ${name} is '${dataTag(rows)}'`);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The server bench:ogc and bench:cql2-spatial generate their proofs on: DATABASE_URL's, else the local one. */
export const GENERATED_SERVER = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** An INSERT of proofs generated by `select` (an INSERT … SELECT inside PostgreSQL, its randomness seeded there). */
export const insertGenerated = (select: string) =>
  sql.raw(`
insert into location_proofs (chain_id, uid, chain, schema_uid, prover, subject, attestation_time, revocable, revoked,
  revocation_time, block_number, block_hash, tx_hash, log_index, data, event_timestamp, event_timestamp_raw, srs,
  location_type, location, geometry, longitude, latitude, min_lon, min_lat, max_lon, max_lat, memo)
${select.trimStart()}`);

/**
 * The URL of database `name` on GENERATED_SERVER holding `rows` proofs written by `load`: kept between runs while it
 * holds `rows` (it gets the migrations added since, which backfill what they add), made anew with --reload. A new
 * one is migrated, loaded, vacuumed and analysed, with a line that says how long the load took.
 */
export async function generatedDatabase(
  name: string,
  rows: number,
  load: (handle: DbHandle) => Promise<void>,
): Promise<string> {
  const url = databaseUrl(GENERATED_SERVER, name);
  const exists =
    (await admin(`select 1 from pg_database where datname = '${name}'`, GENERATED_SERVER)).length > 0;
  if (exists && !process.argv.includes("--reload")) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows: held } = await client.query("select count(*)::int as n from location_proofs");
    await client.end();
    if (held[0].n === rows) {
      const handle = await connect(url, "pg", MAINTENANCE_BUDGETS);
      await migrate(handle);
      await handle.close();
      return url;
    }
  }
  await admin(`drop database if exists ${name} with (force)`, GENERATED_SERVER);
  await admin(`create database ${name}`, GENERATED_SERVER);
  const handle = await connect(url, "pg", MAINTENANCE_BUDGETS);
  await migrate(handle);
  const started = performance.now();
  await load(handle);
  await handle.db.execute(sql`vacuum analyze location_proofs`);
  console.log(
    `loaded ${rows.toLocaleString("en")} proofs in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  await handle.close();
  return url;
}

/**
 * bench:scale's database of synthetic proofs, which bench:instructions measures on too; BENCH_SCALE_DB names another
 * (a branch's own, where several people measure on one server).
 */
export const SCALE_DB = process.env.BENCH_SCALE_DB ?? "lpqs_bench_scale";

/**
 * Database `name` holding `rows` synthetic proofs: reused when `reuse` and it already holds them (holdsBenchData),
 * loaded otherwise; a line says which.
 */
export async function benchDatabase(name: string, rows: number, reuse: boolean): Promise<void> {
  if (reuse && (await holdsBenchData(name, rows))) {
    console.log(`reusing ${name} (${rows.toLocaleString("en")} proofs); ${await diskPerProof(name, rows)}`);
    return;
  }
  const started = performance.now();
  const handle = await loadBenchDatabase(name, rows);
  await handle.close();
  console.log(
    `\rloaded ${rows.toLocaleString("en")} synthetic proofs in ${((performance.now() - started) / 1000).toFixed(1)} s; ${await diskPerProof(name, rows)}`,
  );
}

/** The database's size on disk, and per proof: the proofs' table, its indexes, and the count tables. */
export async function diskPerProof(name: string, rows: number): Promise<string> {
  const [size] = await admin(
    `select pg_database_size(current_database()) as database, pg_table_size('location_proofs') as table,
       pg_indexes_size('location_proofs') as indexes,
       (select sum(pg_total_relation_size(c.oid)) from pg_class c where c.relname in
         ('proof_counts', 'proof_day_counts', 'proof_cell_counts', 'proof_tile_counts', 'proof_schema_counts')) as counts`,
    benchDatabaseUrl(name),
  );
  const per = (key: string) => `${Math.round(Number(size?.[key]) / rows).toLocaleString("en")} B`;
  const gb = (Number(size?.database) / 1e9).toFixed(1);
  return `on disk ${gb} GB, ${per("database")} per proof (the table ${per("table")}, its indexes ${per("indexes")}, the count tables ${per("counts")})`;
}

/** The environment the built functions are served with in a benchmark: as deployed, no rate limit, no log lines. */
export const servedEnv = (databaseUrl: string) => ({
  DATABASE_URL: databaseUrl,
  VERCEL: "1",
  RATE_LIMIT_PER_MINUTE: "0",
  LOG_LEVEL: "silent",
});

/**
 * A fresh copy of the built functions, served over `databaseUrl` with servedEnv and `env` on Node 24 (or on `node`, a
 * command such as valgrind given Node 24 in `nodeArgs`). The caller stops the server and removes the copy.
 */
export async function serveBuilt(
  databaseUrl: string,
  options: { env?: Record<string, string>; node?: string; nodeArgs?: string[] } = {},
): Promise<{ output: ReturnType<typeof builtOutputCopy>; server: Awaited<ReturnType<typeof serveOutput>> }> {
  const node = options.node ?? requireNode24();
  const output = builtOutputCopy();
  const server = await serveOutput(
    output.dir,
    node,
    { ...servedEnv(databaseUrl), ...options.env },
    options.nodeArgs ?? [],
  );
  return { output, server };
}

/**
 * The benchmark database `name` holding `rows` synthetic proofs (benchDatabase), served by serveBuilt; without Node 24
 * it stops before the load, not after.
 */
export async function serveBenchDatabase(
  name: string,
  rows: number,
  reuse: boolean,
  options: Parameters<typeof serveBuilt>[1] = {},
): ReturnType<typeof serveBuilt> {
  const node = options.node ?? requireNode24();
  await benchDatabase(name, rows, reuse);
  return serveBuilt(benchDatabaseUrl(name), { ...options, node });
}

/** The server's PostgreSQL version. */
export const postgresVersion = async (): Promise<string> =>
  String((await admin("show server_version"))[0]!.server_version);

/** PostgreSQL's version and PostGIS's in the database at `databaseUrl` ("none" where the benchmark found none). */
export async function serverVersions(
  databaseUrl: string,
  postgis = true,
): Promise<{ postgres: string; postgis: string }> {
  return {
    postgres: await postgresVersion(),
    postgis: postgis ? String((await admin("select postgis_lib_version() as v", databaseUrl))[0]!.v) : "none",
  };
}

/** Which of the extensions `names` the server can install. */
export async function availableExtensions(...names: string[]): Promise<Set<string>> {
  const rows = await admin(
    `select name from pg_available_extensions where name in (${names.map((n) => `'${n}'`).join(", ")})`,
  );
  return new Set(rows.map((r) => String(r.name)));
}

/** The comment on `table` in the database at `databaseUrl`: a benchmark's tag of a copy it completed. */
export async function tableTag(databaseUrl: string, table: string): Promise<unknown> {
  const [row] = await admin(
    `select obj_description(to_regclass('public.${table}'), 'pg_class') as tag`,
    databaseUrl,
  );
  return row?.tag;
}

type RequestInit = { method?: string; headers?: Record<string, string>; body?: string };

/**
 * Sends one request over `agent` (a kept-alive connection, as a client holds one) and reads the whole body, whatever
 * the status.
 */
export function send(
  url: string,
  agent: http.Agent,
  init: RequestInit = {},
): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .request(url, { method: init.method ?? "GET", agent, headers: init.headers ?? {} }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      })
      .on("error", reject)
      .end(init.body);
  });
}

/** send, rejecting unless 200. */
export async function requestOk(url: string, agent: http.Agent, init: RequestInit = {}): Promise<Buffer> {
  const { status, body } = await send(url, agent, init);
  if (status !== 200) throw new Error(`${url}: HTTP ${status} ${body.toString("utf8", 0, 300)}`);
  return body;
}

/** GET `url` over `agent`, the whole body read; rejects unless 200. */
export const getOk = (url: string, agent: http.Agent): Promise<Buffer> => requestOk(url, agent);

/** The newest event time of the data set: the start of today (UTC), so reruns on one day load the same data. */
export const END = new Date(new Date().toISOString().slice(0, 10));
export const DAY = 86_400_000;
/** ISO 8601 to the second, as a client writes it in a URL. */
export const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");
