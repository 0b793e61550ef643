/**
 * CQL2's spatial functions on location-proof-shapes over HTTP (the real route handler: parse, compile, the page plan,
 * numberMatched, serialisation) against the same PostGIS predicate written by hand (the page of 10 in the
 * collection's order and its count, on the indexed `shape` column), in one run, on PostgreSQL. Goal (issue 34):
 * the route's p50 ≤ 1.5 × the hand-written SQL's.
 *
 *   npm run bench:cql2-spatial                 # 100,000 proofs in lpqs_bench_postgis (kept between runs)
 *   BENCH_ROWS=1000000 npm run bench:cql2-spatial -- --reload
 *
 * Data: a third points, a third two-vertex lines, a third small squares, over the inhabited latitudes; 5% revoked.
 */
import { sql } from "drizzle-orm";
import pg from "pg";
import { GET } from "../api/ogc/collections/location-proof-shapes/items/index.js";
import { connect, setDatabase } from "../db/client.js";
import { loadConfig, setConfig } from "../lib/config.js";
import { generatedDatabase, insertGenerated } from "./common.js";

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 100);
const DB_NAME = "lpqs_bench_postgis";

const LOAD = (rows: number) =>
  insertGenerated(`
select 8453, g.uid, 'base', '0x' || repeat('ab', 32), g.prover, g.prover, g.t + interval '5 seconds', true,
  g.revoked, case when g.revoked then g.t + interval '1 minute' end, 1000000 + g.i, g.hash, g.hash, 0, '0x', g.t,
  extract(epoch from g.t)::bigint, 'EPSG:4326', 'geojson', g.geom::text, g.geom, g.lon, g.lat,
  least(g.lon, g.lon2), least(g.lat, g.lat2), greatest(g.lon, g.lon2), greatest(g.lat, g.lat2), 'bench ' || g.i
from (
  select i, uid, prover, hash, t, revoked, lon, lat, lon2, lat2,
    case kind
      when 0 then jsonb_build_object('type', 'Point', 'coordinates', jsonb_build_array(lon, lat))
      when 1 then jsonb_build_object('type', 'LineString', 'coordinates', jsonb_build_array(jsonb_build_array(lon, lat), jsonb_build_array(lon2, lat2)))
      else jsonb_build_object('type', 'Polygon', 'coordinates', jsonb_build_array(jsonb_build_array(
        jsonb_build_array(lon, lat), jsonb_build_array(lon2, lat), jsonb_build_array(lon2, lat2),
        jsonb_build_array(lon, lat2), jsonb_build_array(lon, lat))))
    end as geom
  from (
    select i, i % 3 as kind,
      '0x' || md5('u' || i) || md5('v' || i) as uid,
      '0x' || substr(md5('p' || (i % 2000)), 1, 40) as prover,
      '0x' || md5('h' || i) || md5('k' || i) as hash,
      date_trunc('second', timestamptz '2025-06-01' - random() * interval '365 days') as t,
      random() < 0.05 as revoked, lon, lat,
      case when i % 3 = 0 then lon else least(lon + random() * 0.5, 180) end as lon2,
      case when i % 3 = 0 then lat else least(lat + random() * 0.5, 90) end as lat2
    from (select i, round((random() * 340 - 170)::numeric, 6)::float8 as lon,
      round((random() * 130 - 60)::numeric, 6)::float8 as lat from generate_series(1, ${rows}) as i) s
  ) s2
) g`);

/** The shapes' database, its proofs loaded with a seed of their own. */
const prepare = () =>
  generatedDatabase(DB_NAME, ROWS, async (handle) => {
    await handle.db.execute(sql`select setseed(0.34)`);
    await handle.db.execute(LOAD(ROWS));
  });

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 5; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return p50(times);
}

async function main() {
  const url = await prepare();
  setConfig(loadConfig({ DATABASE_URL: url, LOG_LEVEL: "silent", RATE_LIMIT_PER_MINUTE: "0" }));
  const handle = await connect(url, "pg");
  setDatabase(handle);
  const raw = new pg.Client({ connectionString: url });
  await raw.connect();
  console.log(
    `CQL2 spatial functions on location-proof-shapes, ${ROWS.toLocaleString("en")} proofs, p50 of ${ITERATIONS}`,
  );
  // [name, CQL2 filter, the same predicate in PostGIS]
  const poly = "POLYGON((10 40, 14 40, 14 44, 10 44, 10 40))";
  const line = "LINESTRING(-20 10, 20 14)";
  const cases: [string, string, string][] = [
    [
      "S_INTERSECTS polygon",
      `S_INTERSECTS(geometry, ${poly})`,
      `ST_Intersects(shape, ST_GeomFromText('${poly}', 4326))`,
    ],
    ["S_WITHIN polygon", `S_WITHIN(geometry, ${poly})`, `ST_Within(shape, ST_GeomFromText('${poly}', 4326))`],
    ["S_CROSSES line", `S_CROSSES(geometry, ${line})`, `ST_Crosses(shape, ST_GeomFromText('${line}', 4326))`],
    [
      "S_TOUCHES polygon",
      `S_TOUCHES(geometry, ${poly})`,
      `ST_Touches(shape, ST_GeomFromText('${poly}', 4326))`,
    ],
  ];
  for (const [name, filter, predicate] of cases) {
    const request = `http://localhost/api/ogc/collections/location-proof-shapes/items?filter=${encodeURIComponent(filter)}`;
    let matched = 0;
    const http = await timed(async () => {
      const res = await GET(new Request(request));
      const body = (await res.json()) as { numberMatched: number };
      if (res.status !== 200) throw new Error(`${name}: ${res.status} ${JSON.stringify(body)}`);
      matched = body.numberMatched;
    });
    // Hand-written: the page (same order and limit, the columns a feature needs) and its count.
    const page = `select uid, chain, geometry, event_timestamp, memo from location_proofs
      where revoked = false and ${predicate} order by event_timestamp desc nulls last, uid, chain_id limit 10`;
    const countSql = `select count(*)::int as n from location_proofs where revoked = false and ${predicate}`;
    let handCount = 0;
    const hand = await timed(async () => {
      await raw.query(page);
      handCount = (await raw.query(countSql)).rows[0].n;
    });
    if (handCount !== matched) throw new Error(`${name}: the route matched ${matched}, the SQL ${handCount}`);
    console.log(
      `${name.padEnd(22)} HTTP p50 ${http.toFixed(2).padStart(7)} ms   PostGIS by hand ${hand.toFixed(2).padStart(7)} ms   ratio ${(http / hand).toFixed(2)} (goal ≤ 1.5)   matched ${matched}`,
    );
  }
  await raw.end();
  await handle.close();
}

await main();
