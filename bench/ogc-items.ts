/**
 * Benchmark of GET /api/ogc/collections/location-proofs/items (and two location-proof-shapes rows) over 1,000,000
 * proofs on PostgreSQL, through the real route handler (parsing, the shared query layer, serialisation, the route
 * wrapper), numberMatched included. Under the OGC rule every bbox also matches the 5% of proofs without geometry.
 *
 *   npm run bench:ogc                 # DATABASE_URL defaults to postgres://postgres@127.0.0.1:5432/postgres
 *   npm run bench:ogc -- --reload     # rebuild the data set
 *   BENCH_ROWS=200000 npm run bench:ogc
 *
 * The data set is generated inside PostgreSQL with generate_series (seconds, not minutes): 45% of the proofs are
 * spread uniformly over the inhabited latitudes, 45% cluster around 20 cities (uniform within ±0.5° of the centre),
 * 5% are small polygons, 5% have no coordinates; 5% are revoked; event times spread over a year. It lives in its own
 * database (lpqs_bench_ogc), kept between runs.
 */
import { sql } from "drizzle-orm";
import { GET as shapesGET } from "../api/ogc/collections/location-proof-shapes/items/index.js";
import { GET } from "../api/ogc/collections/location-proofs/items/index.js";
import { connect, setDatabase } from "../db/client.js";
import { loadConfig, setConfig } from "../lib/config.js";
import { generatedDatabase, insertGenerated } from "./common.js";

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200);
const DB_NAME = "lpqs_bench_ogc";

/** One INSERT … SELECT over generate_series: all randomness comes from PostgreSQL's random(), seeded. */
const LOAD = (rows: number) =>
  insertGenerated(`
select c.chain_id, g.uid, c.chain, '0x' || repeat('ab', 32), g.prover, g.subject, g.t + interval '5 seconds', true,
  g.revoked, case when g.revoked then g.t + interval '1 minute' end, 1000000 + g.i, g.hash, g.hash, 0, '0x', g.t,
  extract(epoch from g.t)::bigint, 'EPSG:4326',
  case when g.kind = 'none' then 'address' when g.kind = 'polygon' then 'geojson-polygon' else 'DecimalDegrees<string>' end,
  case when g.kind = 'none' then '221B Baker Street, London' else g.lon || ', ' || g.lat end,
  case g.kind
    when 'none' then null
    when 'polygon' then jsonb_build_object('type', 'Polygon', 'coordinates', jsonb_build_array(jsonb_build_array(
      jsonb_build_array(g.lon - 0.01, g.lat - 0.01), jsonb_build_array(g.lon + 0.01, g.lat - 0.01),
      jsonb_build_array(g.lon + 0.01, g.lat + 0.01), jsonb_build_array(g.lon - 0.01, g.lat + 0.01),
      jsonb_build_array(g.lon - 0.01, g.lat - 0.01))))
    else jsonb_build_object('type', 'Point', 'coordinates', jsonb_build_array(g.lon, g.lat)) end,
  case when g.kind <> 'none' then g.lon end, case when g.kind <> 'none' then g.lat end,
  case when g.kind = 'polygon' then g.lon - 0.01 when g.kind <> 'none' then g.lon end,
  case when g.kind = 'polygon' then g.lat - 0.01 when g.kind <> 'none' then g.lat end,
  case when g.kind = 'polygon' then g.lon + 0.01 when g.kind <> 'none' then g.lon end,
  case when g.kind = 'polygon' then g.lat + 0.01 when g.kind <> 'none' then g.lat end,
  'bench proof ' || g.i
from (
  select i,
    '0x' || md5('u' || i) || md5('v' || i) as uid,
    '0x' || substr(md5('p' || (i % 2000)), 1, 40) as prover,
    '0x' || substr(md5('s' || i), 1, 40) as subject,
    '0x' || md5('h' || i) || md5('k' || i) as hash,
    date_trunc('second', timestamptz '2025-06-01' - random() * interval '365 days') as t,
    random() < 0.05 as revoked,
    case when r < 0.05 then 'none' when r < 0.10 then 'polygon' else 'point' end as kind,
    round((case when r < 0.55 then random() * 360 - 180 else city.lon + random() - 0.5 end)::numeric, 6)::float8 as lon,
    round((case when r < 0.55 then random() * 130 - 60 else city.lat + random() - 0.5 end)::numeric, 6)::float8 as lat
  from (select i, random() as r from generate_series(1, ${rows}) as i) s
  join (values
    (0, -122.4194, 37.7749), (1, -74.006, 40.7128), (2, -0.1276, 51.5072), (3, 13.405, 52.52), (4, 3.3792, 6.5244),
    (5, 36.8219, -1.2921), (6, 139.6917, 35.6895), (7, 151.2093, -33.8688), (8, -46.6333, -23.5505),
    (9, 2.3522, 48.8566), (10, 77.209, 28.6139), (11, 121.4737, 31.2304), (12, -99.1332, 19.4326),
    (13, 31.2357, 30.0444), (14, 103.8198, 1.3521), (15, -58.3816, -34.6037), (16, 28.9784, 41.0082),
    (17, -87.6298, 41.8781), (18, 18.4241, -33.9249), (19, 126.978, 37.5665)
  ) as city(n, lon, lat) on city.n = s.i % 20
) g
join (values (0, 'sepolia', 11155111), (1, 'base', 8453), (2, 'arbitrum', 42161), (3, 'celo', 42220)) as c(n, chain, chain_id)
  on c.n = g.i % 4`);

/** The items' database; its proofs are loaded without the secondary indexes, which are rebuilt after. */
const prepare = () =>
  generatedDatabase(DB_NAME, ROWS, async (handle) => {
    // Secondary indexes are dropped during the load and rebuilt after it (one sort each instead of a million
    // insertions each): the same indexes the migrations create, by their own definitions.
    const indexes = (await handle.db.execute(
      sql`select indexname, indexdef from pg_indexes where tablename = 'location_proofs' and indexname <> 'location_proofs_pkey'`,
    )) as unknown as { rows: { indexname: string; indexdef: string }[] };
    for (const ix of indexes.rows) await handle.db.execute(sql.raw(`drop index ${ix.indexname}`));
    await handle.db.execute(sql`select setseed(0.42)`);
    await handle.db.execute(LOAD(ROWS));
    await handle.db.execute(sql`set maintenance_work_mem = '256MB'`);
    for (const ix of indexes.rows) await handle.db.execute(sql.raw(ix.indexdef));
  });

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

/**
 * Each query is measured twice: "exact count cached" is the steady state while the data does not change (see
 * createCountCache in lib/proofs/count.ts: a count is reused only while the database's MVCC snapshot is unchanged);
 * "recounted" forces a fresh COUNT before every request by writing to a scratch table (untimed), which changes the
 * snapshot as a sync run would.
 */
let tick: () => Promise<void> = async () => {};

async function measure(name: string, query: string, recount: boolean) {
  // "shapes:" rows ask the location-proof-shapes collection (bbox on the shapes' bounds).
  const shapes = name.startsWith("shapes:");
  const url = `http://localhost/api/ogc/collections/${shapes ? "location-proof-shapes" : "location-proofs"}/items?${query}`;
  const handler = shapes ? shapesGET : GET;
  const once = async () => {
    const started = performance.now();
    const res = await handler(new Request(url));
    const body = (await res.json()) as { numberMatched: number; numberReturned: number };
    if (res.status !== 200) throw new Error(`${name}: HTTP ${res.status} ${JSON.stringify(body)}`);
    return { ms: performance.now() - started, body };
  };
  for (let i = 0; i < 10; i++) await once();
  const times: number[] = [];
  let last = { numberMatched: 0, numberReturned: 0 };
  for (let i = 0; i < ITERATIONS; i++) {
    if (recount) await tick();
    const r = await once();
    times.push(r.ms);
    last = r.body;
  }
  times.sort((a, b) => a - b);
  console.log(
    `${`${name}${recount ? " [recounted]" : ""}`.padEnd(48)} p50 ${percentile(times, 0.5).toFixed(1).padStart(6)} ms   p95 ${percentile(
      times,
      0.95,
    )
      .toFixed(1)
      .padStart(
        6,
      )} ms   numberMatched ${String(last.numberMatched).padStart(8)}   returned ${last.numberReturned}`,
  );
  return percentile(times, 0.5);
}

async function main() {
  const url = await prepare();
  setConfig(loadConfig({ DATABASE_URL: url, LOG_LEVEL: "silent", RATE_LIMIT_PER_MINUTE: "0" }));
  const handle = await connect(url, "pg");
  setDatabase(handle);
  console.log(
    `GET /api/ogc/collections/location-proofs/items over ${ROWS.toLocaleString("en")} proofs, ${ITERATIONS} requests each`,
  );
  await handle.db.execute(sql`create table if not exists bench_tick (n int)`);
  tick = async () => {
    await handle.db.execute(sql`insert into bench_tick values (1)`);
  };
  const queries: [string, string][] = [
    ["world bbox (goal <= 50 ms)", "bbox=-180,-90,180,90"],
    ["city bbox, Berlin (goal <= 10 ms)", "bbox=13.3,52.45,13.5,52.57"],
    ["no filter", ""],
    ["continent bbox, Europe", "bbox=-10,35,30,60"],
    ["chain=base", "chain=base"],
    ["city bbox + datetime", "bbox=13.3,52.45,13.5,52.57&datetime=2025-03-01T00:00:00Z/.."],
    ["CQL2 chain and revoked", `filter=${encodeURIComponent("chain = 'celo' AND revoked = false")}`],
    ["world bbox, limit=1000", "bbox=-180,-90,180,90&limit=1000"],
    ["world bbox, page 50 (offset=490)", "bbox=-180,-90,180,90&offset=490"],
    ["shapes: city bbox, Berlin", "bbox=13.3,52.45,13.5,52.57"],
    ["shapes: continent bbox, Europe", "bbox=-10,35,30,60"],
  ];
  const p50: Record<string, number> = {};
  for (const recount of [false, true]) {
    for (const [name, query] of queries) p50[`${name}${recount}`] = await measure(name, query, recount);
  }
  await handle.db.execute(sql`drop table bench_tick`);
  await handle.close();
  const [world, city] = queries.map(([name]) => name);
  console.log(
    `\nworld bbox p50 ${p50[`${world}false`]!.toFixed(1)} ms (recounted ${p50[`${world}true`]!.toFixed(1)} ms), goal 50` +
      `\ncity bbox p50 ${p50[`${city}false`]!.toFixed(1)} ms (recounted ${p50[`${city}true`]!.toFixed(1)} ms), goal 10`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
