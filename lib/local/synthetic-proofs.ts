import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { type Db, type DbHandle, queryRows, transactionWithBudget } from "../../db/client.js";
import { LOCATION_SCHEMA_UID } from "../chains/schema.js";
import { DEVNET_SCHEMA_UIDS } from "../devnet/schemas.js";

/**
 * Realistic synthetic proofs generated inside the database (`npm run db:seed -- --synthetic N`, `npm run
 * bench:scale`): one INSERT … SELECT over generate_series per batch, so a million proofs take seconds to a minute,
 * not the hours a client-side loop would. Every value is a deterministic function of the row number and the seed
 * (hashint8extended, not random(), so batches and connections do not matter): loading the same count twice adds
 * nothing (ON CONFLICT DO NOTHING on the primary key).
 *
 * What the data looks like (the shapes of what a real deployment indexes):
 * - chains: base 40%, arbitrum 25%, celo 20%, sepolia 15%;
 * - provers: 20,000 addresses, Zipf-distributed (rank k with probability ~ 1/k: the top prover attests ~7%, most
 *   attest a handful); subjects: the prover itself for 60% (self-attested), else one of 200,000 Zipf-distributed
 *   addresses. Every address is 0x + 40 lowercase hex digits (syntheticAddress gives the one of a rank);
 * - event times: over `days` days before `end`, denser towards the present (the density grows linearly, as an
 *   adopted service does), whole seconds; 2% have no event time (and the `appendix` schema's none); the attestation
 *   follows the event by 5-600 s;
 * - revocations: 3%, 0-30 days after the attestation;
 * - schemas: 85% the v0.1 schema; 13% a Location Protocol schema with an application's fields (the devnet's `dart`
 *   variant: lp_version 1.0.0, an event time, a memo, application fields) and 2% one without (`appendix`: lp_version 2,
 *   no event time); their locations are GeoJSON typed geojson-point/-line/-polygon (address without coordinates), in
 *   CRS84 written as the protocol's URI, and carry their normalised location type as the decoder derives it;
 * - locations: 5% without coordinates (a street address), 80% points (70% of them around 30 cities, Zipf-weighted,
 *   the rest spread over the inhabited latitudes), 10% small polygons, 3% lines, 1.9% multipoints and 0.1% lines
 *   that cross the antimeridian near Fiji (bounds stored west > east). The location columns are exactly what the
 *   indexer's decoder stores for the generated location string (tests/proofs/synthetic.test.ts decodes a sample).
 * The trigger-maintained totals (proof_counts) are updated by the inserts themselves.
 *
 * Each batch writes its rows in the order of their attestation times, as the sync writes a chain's proofs in block
 * order: a real table's rows lie on disk roughly in time order, so a read in time order (the lists' default) reads
 * its pages one after another. Rows written in the order of their row numbers, whose times are random, would make
 * every such read fetch a page per row, which no indexed deployment does. The order changes where a row is stored,
 * never its values.
 */

export const SYNTHETIC_CHAINS = [
  { name: "base", chainId: 8453, share: 0.4, blockSeconds: 2 },
  { name: "arbitrum", chainId: 42161, share: 0.25, blockSeconds: 0.25 },
  { name: "celo", chainId: 42220, share: 0.2, blockSeconds: 5 },
  { name: "sepolia", chainId: 11155111, share: 0.15, blockSeconds: 12 },
] as const;

export const SYNTHETIC_PROVERS = 20_000;
const SUBJECTS = 200_000;

/** The 30 cities points cluster around, most populous first (the Zipf weights follow this order). */
export const SYNTHETIC_CITIES: readonly [string, number, number][] = [
  ["Tokyo", 139.6917, 35.6895],
  ["Delhi", 77.209, 28.6139],
  ["Shanghai", 121.4737, 31.2304],
  ["Sao Paulo", -46.6333, -23.5505],
  ["Mexico City", -99.1332, 19.4326],
  ["Cairo", 31.2357, 30.0444],
  ["Mumbai", 72.8777, 19.076],
  ["New York", -74.006, 40.7128],
  ["Lagos", 3.3792, 6.5244],
  ["Istanbul", 28.9784, 41.0082],
  ["Buenos Aires", -58.3816, -34.6037],
  ["London", -0.1276, 51.5072],
  ["Paris", 2.3522, 48.8566],
  ["Berlin", 13.405, 52.52],
  ["Los Angeles", -118.2437, 34.0522],
  ["Seoul", 126.978, 37.5665],
  ["Singapore", 103.8198, 1.3521],
  ["Nairobi", 36.8219, -1.2921],
  ["Sydney", 151.2093, -33.8688],
  ["Chicago", -87.6298, 41.8781],
  ["San Francisco", -122.4194, 37.7749],
  ["Cape Town", 18.4241, -33.9249],
  ["Toronto", -79.3832, 43.6532],
  ["Madrid", -3.7038, 40.4168],
  ["Bangkok", 100.5018, 13.7563],
  ["Jakarta", 106.8456, -6.2088],
  ["Lima", -77.0428, -12.0464],
  ["Dubai", 55.2708, 25.2048],
  ["Amsterdam", 4.9041, 52.3676],
  ["Suva", 178.4419, -18.1416],
];

/** 0x + 40 lowercase hex digits for a prover ("p") or subject ("s") rank, as the SQL below computes it. */
export function syntheticAddress(kind: "p" | "s", rank: number): string {
  const a = createHash("md5").update(`${kind}${rank}`).digest("hex");
  const b = createHash("md5").update(`${kind}x${rank}`).digest("hex");
  return `0x${(a + b).slice(0, 40)}`;
}

export type SyntheticOptions = {
  count: number;
  /** The first row number (default 1): rows from..from+count-1 of the seed. */
  from?: number;
  /** Different seeds give disjoint uids, so data sets can be added together. */
  seed?: number;
  /** The newest event time (default now, to the second). */
  end?: Date;
  days?: number;
  /** rows per INSERT statement */
  batch?: number;
  onProgress?: (inserted: number) => void;
};

/** A uniform number in [0, 1) for row `i` and stream `n` (52 bits of a 64-bit hash of both). */
const u = (seed: number, n: number) =>
  `((hashint8extended(i, ${seed * 1000 + n}) & 4503599627370495)::float8 / 4503599627370496.0)`;

/** 64 hex digits from four 64-bit hashes of the row number (md5 is several times slower in bulk). */
const hex64 = (seed: number, n: number) =>
  [0, 1, 2, 3]
    .map((k) => `lpad(to_hex(hashint8extended(i, ${seed * 1000 + n * 10 + k})), 16, '0')`)
    .join(" || ");

/**
 * The uids of rows from..from+count-1 of a seed, as loadSyntheticProofs writes them, as a subquery: to take those
 * rows out again (bench:scale removes the proofs its write section added, so that `--keep` finds the data as loaded).
 */
export const syntheticUids = (seed: number, from: number, count: number) =>
  sql.raw(`(select '0x' || ${hex64(seed, 1)} from generate_series(${from}, ${from + count - 1}) as i)`);

/** An address as syntheticAddress computes it. */
const address = (kind: "p" | "s", rank: string) =>
  `'0x' || substr(md5('${kind}' || ${rank}) || md5('${kind}x' || ${rank}), 1, 40)`;

/** v0.1's string arrays (recipes, media): empty arrays as its writers leave them; the other schemas have none. */
const v01Array = "case when sk = 'v01' then '[]'::jsonb end";

function batchSql(from: number, to: number, seed: number, end: Date, days: number): string {
  const U = (n: number) => u(seed, n);
  const chainCase = (field: "name" | "chainId" | "blockSeconds") => {
    let acc = 0;
    const arms = SYNTHETIC_CHAINS.map((c) => {
      acc += c.share;
      const value = field === "name" ? `'${c.name}'` : String(c[field]);
      return `when c_u < ${acc.toFixed(4)} then ${value}`;
    });
    const last = SYNTHETIC_CHAINS.at(-1)!;
    return `case ${arms.slice(0, -1).join(" ")} else ${field === "name" ? `'${last.name}'` : String(last[field])} end`;
  };
  const cities = SYNTHETIC_CITIES.map(([, lon, lat], n) => `(${n}, ${lon}, ${lat})`).join(", ");
  const spanSeconds = days * 86_400;
  const endIso = new Date(Math.floor(end.getTime() / 1000) * 1000).toISOString();
  // Coordinates are whole micro-degrees (bigint): their float8 (x / 1e6, correctly rounded) is exactly what a
  // client parsing the decimal text gets, and float8's shortest text is that decimal, so the location string, the
  // GeoJSON and the stored columns agree to the bit, as the indexer's decoder would store them.
  return `
with r as (
  select i, ${U(1)} as c_u,
    floor(power(${SYNTHETIC_PROVERS}::float8, ${U(2)}))::int as prover_rank,
    ${U(3)} < 0.6 as self_attested,
    floor(power(${SUBJECTS}::float8, ${U(4)}))::int as subject_rank,
    timestamptz '${endIso}' - make_interval(secs => floor(${spanSeconds} * (1 - sqrt(${U(5)})))) as attested,
    ${U(6)} >= 0.02 as has_time,
    floor(5 + ${U(8)} * 595)::int as delay,
    ${U(9)} < 0.03 as revoked,
    ${U(10)} as revoke_after,
    ${U(11)} as kind_u,
    ${U(12)} < 0.7 as clustered,
    floor(power(${SYNTHETIC_CITIES.length + 1}::float8, ${U(13)}))::int - 1 as city,
    ${U(14)} as a, ${U(15)} as b, ${U(16)} as c, ${U(17)} as d, ${U(18)} as e, ${U(19)} as f,
    ${U(20)} as g, ${U(21)} as h,
    case when ${U(22)} < 0.85 then 'v01' when ${U(23)} < 0.867 then 'dart' else 'appendix' end as sk
  from generate_series(${from}, ${to}) as i
),
k as (
  select r.*,
    ${chainCase("name")} as chain, ${chainCase("chainId")} as chain_id,
    ${chainCase("blockSeconds")}::float8 as block_seconds,
    case when kind_u < 0.05 then 'none' when kind_u < 0.85 then 'point' when kind_u < 0.95 then 'polygon'
      when kind_u < 0.98 then 'line' when kind_u < 0.999 then 'multipoint' else 'crossing' end as kind,
    round(1e6 * greatest(-179.5, least(179.5, case when clustered then city.lon + (a + b + c - 1.5) * 0.4
      else a * 358 - 179 end)))::bigint as lon,
    round(1e6 * greatest(-80, least(80, case when clustered then city.lat + (d + e + f - 1.5) * 0.4
      else d * 125 - 55 end)))::bigint as lat,
    -- polygons: a square of half-size 0.001-0.051 degrees; lines and multipoints: three vertices, the middle one
    -- nearest the bounds' centre (the representative point); crossing lines: 179.5-179.9 via 179.95 to -179.5 to
    -- -179.9, near Fiji
    round(1e6 * (0.001 + g * 0.05))::bigint as half,
    round(1e6 * (case when g < 0.5 then -1 else 1 end) * (0.01 + h * 0.1))::bigint as dx,
    round(1e6 * (case when h < 0.5 then -1 else 1 end) * (0.01 + g * 0.1))::bigint as dy,
    round(1e6 * (-19 + e * 5))::bigint as cy
  from r join (values ${cities}) as city(n, lon, lat) on city.n = least(r.city, ${SYNTHETIC_CITIES.length - 1})
),
v as (
  select k.*,
    (case kind when 'polygon' then lon - half when 'crossing' then round(1e6 * (179.5 + g * 0.4))::bigint else lon end)::float8 / 1e6 as x1,
    (case kind when 'polygon' then lat - half when 'crossing' then cy else lat end)::float8 / 1e6 as y1,
    (case kind when 'polygon' then lon + half when 'crossing' then 179950000 else lon + round(0.4 * dx)::bigint end)::float8 / 1e6 as x2,
    (case kind when 'polygon' then lat + half when 'crossing' then cy + 50000 else lat + round(0.6 * dy)::bigint end)::float8 / 1e6 as y2,
    (case kind when 'crossing' then round(1e6 * (-179.5 - h * 0.4))::bigint else lon + dx end)::float8 / 1e6 as x3,
    (case kind when 'crossing' then cy + 100000 else lat + dy end)::float8 / 1e6 as y3
  from k
),
w as (
  select v.*,
    case kind
      when 'none' then null
      when 'point' then '{"type":"Point","coordinates":[' || x1 || ',' || y1 || ']}'
      when 'polygon' then '{"type":"Polygon","coordinates":[[[' || x1 || ',' || y1 || '],[' || x2 || ',' || y1
        || '],[' || x2 || ',' || y2 || '],[' || x1 || ',' || y2 || '],[' || x1 || ',' || y1 || ']]]}'
      else '{"type":"' || case when kind = 'multipoint' then 'MultiPoint' else 'LineString' end
        || '","coordinates":[[' || x1 || ',' || y1 || '],[' || x2 || ',' || y2 || '],[' || x3 || ',' || y3 || ']]}'
    end as geojson,
    case when kind = 'point' then x1 when kind = 'polygon' then (x1 + x2) / 2 when kind <> 'none' then x2 end as px,
    case when kind = 'point' then y1 when kind = 'polygon' then (y1 + y2) / 2 when kind <> 'none' then y2 end as py,
    -- the protocol's type of the geometry (what the decoder normalises GeoJSON to)
    case kind when 'point' then 'geojson-point' when 'polygon' then 'geojson-polygon' when 'multipoint' then 'geojson'
      else 'geojson-line' end as lp_type
  from v
),
provers as (
  select n as rank, ${address("p", "n")} as address from generate_series(1, ${SYNTHETIC_PROVERS}) as n
)
insert into location_proofs (chain_id, uid, chain, schema_uid, prover, subject, attestation_time, revocable, revoked,
  revocation_time, block_number, block_hash, tx_hash, log_index, data, event_timestamp, event_timestamp_raw, srs,
  location_type, location, recipe_type, recipe_payload, media_type, media_data, memo, geometry, longitude, latitude,
  min_lon, min_lat, max_lon, max_lat, protocol_version, lp_version, location_type_normalized, application_fields)
select chain_id, '0x' || ${hex64(seed, 1)}, chain,
  case sk when 'v01' then '${LOCATION_SCHEMA_UID}' when 'dart' then '${DEVNET_SCHEMA_UIDS.dart}'
    else '${DEVNET_SCHEMA_UIDS.appendix}' end,
  pv.address,
  case when self_attested then pv.address else ${address("s", "subject_rank")} end,
  attested, true, revoked,
  case when revoked then least(timestamptz '${endIso}', attested + make_interval(secs => floor(revoke_after * 2592000))) end,
  floor((extract(epoch from attested) - 1600000000) / block_seconds)::bigint + 1000000,
  '0x' || ${hex64(seed, 2)}, '0x' || ${hex64(seed, 3)},
  i % 7, '0x',
  case when has_time and sk <> 'appendix' then attested - make_interval(secs => delay) end,
  case when sk = 'appendix' then null
    when has_time then extract(epoch from attested - make_interval(secs => delay))::bigint::numeric else 0 end,
  case when sk = 'v01' then 'EPSG:4326' else 'http://www.opengis.net/def/crs/OGC/1.3/CRS84' end,
  case when kind = 'none' then 'address' when sk <> 'v01' then lp_type
    when kind = 'point' then 'DecimalDegrees<string>' when kind = 'polygon' then 'geojson-polygon' else 'geojson' end,
  case kind when 'none' then (array['221B Baker Street, London', 'Alexanderplatz 1, Berlin', 'unknown'])[1 + i % 3]
    when 'point' then case when sk = 'v01' then x1 || ', ' || y1 else geojson end else geojson end,
  ${v01Array}, ${v01Array}, ${v01Array}, ${v01Array},
  case when sk <> 'appendix' then 'synthetic proof ' || i end,
  geojson::jsonb, px, py,
  case when kind = 'none' then null when kind in ('point', 'polygon', 'crossing') then x1 else least(x1, x2, x3) end,
  case when kind = 'none' then null when kind in ('point', 'polygon') then y1 else least(y1, y2, y3) end,
  case when kind = 'none' then null when kind = 'point' then x1 when kind = 'polygon' then x2
    when kind = 'crossing' then x3 else greatest(x1, x2, x3) end,
  case when kind = 'none' then null when kind = 'point' then y1 when kind = 'polygon' then y2
    else greatest(y1, y2, y3) end,
  case sk when 'v01' then '0.1' when 'dart' then '1.0' else '0.2' end,
  case sk when 'v01' then null when 'dart' then '1.0.0' else '2' end,
  case when kind = 'none' then 'address' when kind = 'point' and sk = 'v01' then 'coordinate-decimal+lon-lat'
    when kind = 'multipoint' then 'geojson' else lp_type end,
  case when sk = 'dart' then jsonb_build_object('accuracy_m', 5 + i % 45, 'verified', i % 3 <> 0) end
from w join provers as pv on pv.rank = w.prover_rank
order by attested, i
on conflict do nothing`;
}

/** Loads `count` synthetic proofs (rows 1..count of the seed) in batches; returns how many were new. */
export async function loadSyntheticProofs(db: Db, options: SyntheticOptions): Promise<number> {
  const seed = options.seed ?? 1;
  const end = options.end ?? new Date();
  const days = options.days ?? 730;
  const batch = options.batch ?? 100_000;
  const first = options.from ?? 1;
  const last = first + options.count - 1;
  let inserted = 0;
  for (let from = first; from <= last; from += batch) {
    const to = Math.min(last, from + batch - 1);
    // JIT would compile the generator's hundreds of expressions for minutes (measured: a 100,000-row batch ran
    // for over 5 minutes with jit on, 3 s without); each batch gets its own budget.
    const result = (await transactionWithBudget(db, 600_000, async (tx) => {
      await tx.execute(sql`set local jit = off`);
      return tx.execute(sql.raw(batchSql(from, to, seed, end, days)));
    })) as unknown as { rowCount?: number | null; affectedRows?: number };
    inserted += Number(result.rowCount ?? result.affectedRows ?? 0);
    options.onProgress?.(to - first + 1);
  }
  return inserted;
}

/** One step of a bulk load and its wall time. */
export type LoadPhase = { name: string; kind: "rows" | "index" | "analyze"; ms: number };

/**
 * Loads `count` synthetic proofs in one transaction (all or nothing). Into an empty table the secondary indexes are
 * dropped first and rebuilt afterwards by their own definitions (one sort each instead of a million insertions
 * each: several times faster); into a table that holds proofs they stay, so readers keep their plans. Then the
 * planner's statistics are refreshed. `handle` should have maintenance budgets (index builds take minutes).
 */
export async function bulkLoadSynthetic(
  handle: DbHandle,
  count: number,
  onProgress?: (inserted: number) => void,
  options: Omit<SyntheticOptions, "count" | "onProgress"> & {
    /** Each phase's wall time: the rows with their count triggers, each index built, the statistics. */
    onPhase?: (phase: LoadPhase) => void;
  } = {},
): Promise<number> {
  const { onPhase, ...synthetic } = options;
  const timed = async <T>(name: string, kind: LoadPhase["kind"], work: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const result = await work();
    onPhase?.({ name, kind, ms: performance.now() - started });
    return result;
  };
  const inserted = await transactionWithBudget(handle.db, 3_600_000, async (tx) => {
    const db = tx as unknown as Db;
    const [{ empty } = { empty: false }] = await queryRows<{ empty: boolean }>(
      db,
      sql`select not exists (select 1 from location_proofs) as empty`,
    );
    const indexes = empty
      ? await queryRows<{ indexname: string; indexdef: string }>(
          db,
          sql`select indexname, indexdef from pg_indexes where tablename = 'location_proofs'
            and indexname <> 'location_proofs_pkey'`,
        )
      : [];
    for (const ix of indexes) await db.execute(sql.raw(`drop index "${ix.indexname}"`));
    const n = await timed("rows, with the primary key and the count triggers", "rows", () =>
      loadSyntheticProofs(db, { ...synthetic, count, ...(onProgress ? { onProgress } : {}) }),
    );
    if (handle.kind !== "pglite") await db.execute(sql`set local maintenance_work_mem = '256MB'`);
    for (const ix of indexes) await timed(ix.indexname, "index", () => db.execute(sql.raw(ix.indexdef)));
    return n;
  });
  await timed("analyze", "analyze", () => handle.db.execute(sql`analyze location_proofs`));
  return inserted;
}
