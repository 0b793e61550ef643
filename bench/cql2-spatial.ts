/**
 * CQL2 over HTTP on PostgreSQL, in one run (issue 34's goals):
 * - the spatial functions on location-proof-shapes through the real route handler (parse, compile, the page plan,
 *   numberMatched, the GeoJSON features) against the same PostGIS predicate written by hand doing the same work: the
 *   page of 10 in the collection's order written as GeoJSON features by PostgreSQL (json_build_object, the geometry
 *   by ST_AsGeoJSON, every property the route writes) and its count. Goal: the route's p50 ≤ 1.5 × the hand's. The
 *   route reads the count from memory once it has counted (lib/proofs/count.ts, per data version), so it issues
 *   fewer statements than the hand, which counts every time; the statements it issued, replayed on a bare
 *   connection, are timed beside (what of the route's time is its SQL).
 * - "predicate only": the predicate CQL2 compiles to, put in place of the hand-written one in those same queries,
 *   against the hand-written predicate: what the compiled predicate costs, apart from the route around it.
 * - one filter of each conformance class through the route against the statements it issues, recorded and replayed
 *   on a bare connection (bench/statements.ts): the route's p50 ≤ 1.5 × the statements' p50 + 1 ms. Beside them the
 *   floors of this process: the conformance document's handler (a constant: a request with no statement), and one
 *   round trip of `select 1` through the service's pool and on the bare connection.
 * The variants take turns, request by request, so a load on the machine falls on all of them alike.
 *
 *   npm run bench:cql2-spatial                 # 100,000 proofs in lpqs_bench_postgis (kept between runs)
 *   BENCH_ROWS=1000000 npm run bench:cql2-spatial -- --reload
 *   BENCH_POSTGIS_DB=lpqs_mine_postgis npm run bench:cql2-spatial   # a database of your own
 *
 * Data: a third points, a third two-vertex lines, a third small squares, over the inhabited latitudes; 5% revoked.
 */
import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import pg from "pg";
import { GET } from "../api/ogc/collections/location-proof-shapes/items/index.js";
import { GET as pointsGET } from "../api/ogc/collections/location-proofs/items/index.js";
import { GET as conformanceGET } from "../api/ogc/conformance.js";
import { connect, type DbHandle, setDatabase } from "../db/client.js";
import { loadConfig, setConfig } from "../lib/config.js";
import { cql2Filter } from "../lib/ogc/cql2/index.js";
import { generatedDatabase, insertGenerated } from "./common.js";
import { ITEMS, replay, SHAPES, statementsOf } from "./statements.js";

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 100);
const SLICE = 100_000;
const DIALECT = new PgDialect();
const DB_NAME = process.env.BENCH_POSTGIS_DB ?? "lpqs_bench_postgis";

/** Proofs `from`…`to`: loaded a slice at a time, so each statement stays within its budget on a loaded machine. */
const LOAD = (from: number, to: number) =>
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
      round((random() * 130 - 60)::numeric, 6)::float8 as lat from generate_series(${from}, ${to}) as i) s
  ) s2
) g`);

/** The shapes' database, its proofs loaded with a seed of their own. */
const prepare = () =>
  generatedDatabase(DB_NAME, ROWS, async (handle) => {
    await handle.db.execute(sql`select setseed(0.34)`);
    for (let from = 1; from <= ROWS; from += SLICE)
      await handle.db.execute(LOAD(from, Math.min(from + SLICE - 1, ROWS)));
  });

const GET_OF: Record<string, (request: Request) => Promise<Response>> = { [ITEMS]: pointsGET, [SHAPES]: GET };

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The p50 of each of `fns`, timed in turns (one call of each per round), after five rounds of warming up. */
async function timed(...fns: (() => Promise<unknown>)[]): Promise<number[]> {
  const times = fns.map((): number[] => []);
  for (let round = -5; round < ITERATIONS; round++) {
    for (const [i, fn] of fns.entries()) {
      const t = performance.now();
      await fn();
      if (round >= 0) times[i]!.push(performance.now() - t);
    }
  }
  return times.map(p50);
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
  const properties = await featureProperties(raw);
  for (const [name, filter, predicate] of cases) {
    const path = `${SHAPES}?filter=${encodeURIComponent(filter)}`;
    const request = `http://bench${path}`;
    const recorded = await statementsOf(path);
    let matched = 0;
    const route = async () => {
      const res = await GET(new Request(request));
      const body = (await res.json()) as { numberMatched: number };
      if (res.status !== 200) throw new Error(`${name}: ${res.status} ${JSON.stringify(body)}`);
      matched = body.numberMatched;
    };
    // By hand, the same work: the page (same order, one row more to know whether a next page exists, as the route
    // reads) written as GeoJSON features, and the count of every match, revoked proofs included as the collection
    // serves them.
    const feature = `json_build_object('type', 'Feature', 'id', uid, 'geometry', ST_AsGeoJSON(shape)::json,
      'bbox', json_build_array(min_lon, min_lat, max_lon, max_lat), 'properties', json_build_object(${properties}))::text`;
    const page = (where: string) => `select ${feature} as feature from location_proofs
      where ${where} order by event_timestamp desc nulls last, uid, chain_id limit 11`;
    const count = (where: string) => `select count(*)::int as n from location_proofs where ${where}`;
    // The same with the predicate CQL2 compiles to in place of the hand-written one.
    const compiled = DIALECT.sqlToQuery(cql2Filter(filter, "bounds"));
    let handCount = 0;
    let compiledCount = 0;
    const [http, itsSql, hand, asCompiled] = await timed(
      route,
      () => replay(raw, recorded.statements),
      async () => {
        await raw.query(page(predicate));
        handCount = (await raw.query(count(predicate))).rows[0].n;
      },
      async () => {
        await raw.query(page(compiled.sql), compiled.params);
        compiledCount = (await raw.query(count(compiled.sql), compiled.params)).rows[0].n;
      },
    );
    if (handCount !== matched || compiledCount !== matched)
      throw new Error(
        `${name}: the route matched ${matched}, the SQL ${handCount}, the compiled SQL ${compiledCount}`,
      );
    console.log(
      `${name.padEnd(22)} route p50 ${http!.toFixed(2).padStart(7)} ms (its ${recorded.statements.length} statements replayed: ${itsSql!.toFixed(2)} ms)   by hand ${hand!.toFixed(2).padStart(7)} ms (2 statements)   ratio ${(http! / hand!).toFixed(2)} (goal ≤ 1.5)   predicate only: compiled ${asCompiled!.toFixed(2).padStart(7)} ms, ratio ${(asCompiled! / hand!).toFixed(2)}   matched ${matched}`,
    );
  }
  await eachClass(raw, handle);
  await raw.end();
  await handle.close();
}

/** One filter of each class on the collection whose geometry it tests: CQL2 text, but the JSON class's. */
const SQUARE = "POLYGON((10 40, 14 40, 14 44, 10 44, 10 40))";
const CLASSES: Record<string, [string, string]> = {
  "basic-cql2": [ITEMS, "block_number >= 1090000 AND NOT revoked = true"],
  "advanced-comparison-operators": [
    ITEMS,
    "memo LIKE 'bench 12%' AND block_number BETWEEN 1000000 AND 1050000 AND chain IN ('base', 'celo')",
  ],
  "case-insensitive-comparison": [ITEMS, "CASEI(memo) LIKE CASEI('BENCH 12%')"],
  "accent-insensitive-comparison": [ITEMS, "ACCENTI(memo) = ACCENTI('bénch 12345')"],
  "basic-spatial-functions": [ITEMS, "S_INTERSECTS(geometry, BBOX(10, 40, 14, 44))"],
  "basic-spatial-functions-plus": [
    ITEMS,
    `S_INTERSECTS(geometry, ${SQUARE.slice(0, -1)}, (11 41, 12 41, 12 42, 11 42, 11 41)))`,
  ],
  "spatial-functions": [SHAPES, `S_WITHIN(geometry, ${SQUARE})`],
  "temporal-functions": [ITEMS, "T_DURING(event_timestamp, INTERVAL('2025-01-01', '2025-01-08'))"],
  "array-functions": [ITEMS, "A_CONTAINS(recipe_type, ('gps'))"],
  "property-property": [ITEMS, "latitude > longitude AND latitude > 50"],
  arithmetic: [ITEMS, "latitude * 2 + 10 > 150"],
  "cql2-json": [
    ITEMS,
    JSON.stringify({
      op: "t_after",
      args: [{ property: "event_timestamp" }, { timestamp: "2025-05-25T00:00:00Z" }],
    }),
  ],
};

/** The properties a feature of the route carries, each from the column of its name, as json_build_object's list. */
async function featureProperties(raw: pg.Client): Promise<string> {
  const res = await GET(new Request(`http://bench${SHAPES}?limit=1`));
  const body = (await res.json()) as { features: { properties: Record<string, unknown> }[] };
  const { rows } = await raw.query(
    "select column_name from information_schema.columns where table_name = 'location_proofs'",
  );
  const columns = new Set(rows.map((r: { column_name: string }) => r.column_name));
  const names = Object.keys(body.features[0]!.properties).filter((k) => columns.has(k));
  return names.map((k) => `'${k}', "${k}"`).join(", ");
}

async function eachClass(raw: pg.Client, pool: DbHandle) {
  const [conformance, poolTrip, rawTrip] = await timed(
    async () => (await conformanceGET(new Request("http://bench/api/ogc/conformance"))).arrayBuffer(),
    () => pool.db.execute(sql`select 1`),
    () => raw.query("select 1"),
  );
  console.log(
    `\nOne filter of each class over HTTP (the route handler) against the SQL it issues (recorded, replayed). Floors: the conformance document's handler ${conformance!.toFixed(2)} ms, select 1 through the service's pool ${poolTrip!.toFixed(2)} ms, on the bare connection ${rawTrip!.toFixed(2)} ms`,
  );
  for (const [name, [path, filter]] of Object.entries(CLASSES)) {
    const lang = name === "cql2-json" ? "cql2-json" : "cql2-text";
    const url = `${path}?filter-lang=${lang}&filter=${encodeURIComponent(filter)}`;
    const recorded = await statementsOf(url);
    const [http, statements] = (await timed(
      async () => {
        const res = await GET_OF[path]!(new Request(`http://bench${url}`));
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${name}: ${res.status}`);
      },
      () => replay(raw, recorded.statements),
    )) as [number, number];
    const limit = 1.5 * statements + 1;
    console.log(
      `${name.padEnd(31)} HTTP p50 ${http.toFixed(2).padStart(7)} ms   its SQL ${statements.toFixed(2).padStart(7)} ms (${recorded.statements.length} statements)   HTTP ≤ 1.5 × SQL + 1 ms: ${http <= limit ? "yes" : "NO"} (${(http / statements).toFixed(2)} ×, ${(http - statements).toFixed(2)} ms more)`,
    );
  }
}

await main();
