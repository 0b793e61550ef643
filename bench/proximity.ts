/**
 * Proximity at a million proofs, as deployed: `npm run bench:proximity [-- options]`.
 *
 * 1. Uses bench:scale's database of synthetic proofs (`lpqs_bench_scale` on BENCH_DATABASE_URL's server, loaded when
 *    absent or stale: lib/local/synthetic-proofs.ts, 70% of the points crowding 30 cities) and, when PostGIS is
 *    installed (`bash bench/peers.sh` installs it, or `apt-get install postgresql-15-postgis-3`), a table of its own
 *    there, proximity_peer_points: the same points as `geography` with a GiST index (and, when the earthdistance
 *    extension is available, a GiST index on ll_to_earth of the same points: the cube/earthdistance alternative).
 * 2. Builds the functions (`npm run build`'s output) and serves them on Node 24 as Vercel invokes them.
 * 3. For each request (a 1 km and a 50 km radius around a city, the 100 nearest to a point, nearest first): the
 *    statements the service issues for it, recorded from the same code in this process (bench/statements.ts), are
 *    replayed with node-postgres after each HTTP request: p50 of both and their ratio (goal: HTTP p50 ≤ 1.5 × SQL
 *    p50 + 1 ms). Beside them, PostGIS answering the same page in the same PostgreSQL (ST_DWithin on geography on the
 *    sphere, ordered by `<->`, the same record JSON built for its 100 rows) and earthdistance doing the same: p50 and
 *    the ratio of ours (SQL) to each (goal: within 1.5× of PostGIS).
 * 4. Exactness: for each circle, the set of proofs (revoked included) our filter model's SQL returns equals the set
 *    PostGIS's ST_DWithin returns over the same points (the sphere, use_spheroid false: the sphere ours measures on);
 *    for the 100 nearest, the distances of the page equal PostGIS's (ties at one distance may order differently).
 *
 * Options: --rows N (1,000,000), --iterations K (60 per request), --keep (the database is bench:scale's: it is always
 * kept, and reused while it holds the same data; reloaded only when absent or stale, as bench:scale does).
 */
import http from "node:http";
import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import pg from "pg";
import { connect, MAINTENANCE_BUDGETS, queryRows } from "../db/client.js";
import { locationProofs as p } from "../db/schema.js";
import { SYNTHETIC_CITIES } from "../lib/local/synthetic-proofs.js";
import { whereClause } from "../lib/proofs/filter.js";
import { recordJson } from "../lib/proofs/json-sql.js";
import { MAX_RADIUS_M, type Near } from "../lib/proofs/near.js";
import {
  availableExtensions,
  benchArgs,
  benchDatabaseUrl,
  getOk,
  SCALE_DB,
  serveBenchDatabase,
  serverVersions,
  tableTag,
} from "./common.js";
import { f1, lpad, pad, percentile } from "./figures.js";
import { connectInProcess, replay, statementsOf, V0 } from "./statements.js";

const ARGS = benchArgs({ numbers: { rows: 1_000_000, iterations: 60 }, flags: ["keep"] });
const ROWS = ARGS.rows;
const ITERATIONS = ARGS.iterations;
const KEEP = ARGS.keep;
/** Rounds of earthdistance timed per case (after the warm-up's). */
const EARTH_ROUNDS = 9;
const dbUrl = benchDatabaseUrl(SCALE_DB);
const PEER_TAG = "lpqs proximity: PostGIS copy of the points";

const city = (name: string) => {
  const c = SYNTHETIC_CITIES.find(([n]) => n === name)!;
  return { lon: c[1], lat: c[2] };
};
const TOKYO = city("Tokyo");
const BERLIN = city("Berlin");

type Case = { name: string; near: Near; limit: number; within: boolean };
const CASES: Case[] = [
  { name: "1 km around Tokyo", near: { ...TOKYO, radius: 1000 }, limit: 100, within: true },
  { name: "50 km around Tokyo", near: { ...TOKYO, radius: 50_000 }, limit: 100, within: true },
  { name: "1 km around Berlin", near: { ...BERLIN, radius: 1000 }, limit: 100, within: true },
  { name: "50 km around Berlin", near: { ...BERLIN, radius: 50_000 }, limit: 100, within: true },
  // The 100 nearest to a point: no bound but the sphere (the largest radius), as PostGIS's `<->` alone.
  {
    name: "100 nearest to a point in Tokyo",
    near: { ...TOKYO, radius: MAX_RADIUS_M },
    limit: 100,
    within: false,
  },
  {
    name: "100 nearest to a point in the Pacific",
    near: { lon: -179.5, lat: -10, radius: MAX_RADIUS_M },
    limit: 100,
    within: false,
  },
];
/** Circles whose sets are compared with PostGIS's: the bench's, two across the antimeridian, one round each pole. */
const SET_CIRCLES: Near[] = [
  ...CASES.filter((c) => c.within).map((c) => c.near),
  { lon: 179.9, lat: 0, radius: 300_000 },
  { ...city("Suva"), radius: 500_000 },
  { lon: 0, lat: 90, radius: 4_500_000 },
  { lon: 120, lat: -90, radius: 5_000_000 },
];

const pathOf = (c: Case) =>
  `${V0}?near=${c.near.lon},${c.near.lat}&radius=${c.near.radius}&sort=distance&limit=${c.limit}`;

/** The PostGIS (and earthdistance) copy of the points, with their GiST indexes; false without PostGIS. */
async function preparePeers(): Promise<{ postgis: boolean; earth: boolean }> {
  const available = await availableExtensions("postgis", "cube", "earthdistance");
  const has = (n: string) => available.has(n);
  if (!has("postgis")) {
    console.log("PostGIS is not installed: no side-by-side figures (`bash bench/peers.sh` installs it)");
    return { postgis: false, earth: false };
  }
  const earth = has("cube") && has("earthdistance");
  if ((await tableTag(dbUrl, "proximity_peer_points")) === PEER_TAG) return { postgis: true, earth };
  const handle = await connect(dbUrl, "pg", MAINTENANCE_BUDGETS);
  try {
    process.stdout.write("copying the points for PostGIS");
    await handle.db.execute(sql`create extension if not exists postgis`);
    if (earth) {
      await handle.db.execute(sql`create extension if not exists cube`);
      await handle.db.execute(sql`create extension if not exists earthdistance`);
    }
    await handle.db.execute(sql`drop table if exists proximity_peer_points`);
    await handle.db.execute(
      sql.raw(`create table proximity_peer_points as
        select chain_id, uid, revoked, longitude, latitude,
          ST_SetSRID(ST_MakePoint(longitude, latitude), 4326)::geography as geog
        from location_proofs where longitude is not null`),
    );
    await handle.db.execute(sql.raw("alter table proximity_peer_points add primary key (chain_id, uid)"));
    await handle.db.execute(
      sql.raw("create index proximity_peer_points_geog on proximity_peer_points using gist (geog)"),
    );
    if (earth) {
      await handle.db.execute(
        sql.raw(
          "create index proximity_peer_points_earth on proximity_peer_points using gist (ll_to_earth(latitude, longitude))",
        ),
      );
    }
    await handle.db.execute(sql`vacuum analyze proximity_peer_points`);
    await handle.db.execute(sql.raw(`comment on table proximity_peer_points is '${PEER_TAG}'`));
    console.log("\rcopied the points for PostGIS          ");
    return { postgis: true, earth };
  } finally {
    await handle.close();
  }
}

/** The record JSON ours writes, ending with the distance a peer computes (`distance`, SQL text). */
const recordWith = (distance: string) => new PgDialect().sqlToQuery(recordJson(sql.raw(distance))).sql;
/** earthdistance's distance from the point ($1 lon, $2 lat) to a peer point `g`. */
const EARTH_DISTANCE = "earth_distance(ll_to_earth($2, $1), ll_to_earth(g.latitude, g.longitude))";

/**
 * PostGIS answering the same page: the nearest `limit` unrevoked proofs (within the radius), as the same records
 * (the 100 keys first, then their records). Two forms, the faster of which counts (generous to PostGIS): the radius
 * as ST_DWithin, which the planner may read through the index and then sort; and the radius as a plain test on a
 * `<->` nearest-neighbour scan of the index, which stops after the page (fast where the circle holds more than a
 * page, a scan of everything where it holds less).
 */
const postgisPage = (c: Case, knn: boolean) => ({
  text: `select ${recordWith("n.distance")} as json, n.distance from (
      select chain_id, uid, ST_Distance(geog, $1::geography, false) as distance, geog <-> $1::geography as o
      from proximity_peer_points
      where not revoked ${c.within ? (knn ? "and ST_Distance(geog, $1::geography, false) <= $2" : "and ST_DWithin(geog, $1::geography, $2, false)") : ""}
      order by geog <-> $1::geography limit ${c.limit}) n
    join location_proofs on location_proofs.chain_id = n.chain_id and location_proofs.uid = n.uid
    order by n.o`,
  values: [`SRID=4326;POINT(${c.near.lon} ${c.near.lat})`, ...(c.within ? [c.near.radius] : [])],
});

/**
 * earthdistance answering the same page: candidates by earth_box on the ll_to_earth index, the exact test and order
 * by earth_distance (earthdistance's sphere has its own radius, earth(): close to, not the same as, ours).
 */
const earthPage = (c: Case) => ({
  text: `select ${recordWith(EARTH_DISTANCE)} as json, ${EARTH_DISTANCE} as distance
    from proximity_peer_points g join location_proofs on location_proofs.chain_id = g.chain_id and location_proofs.uid = g.uid
    where not g.revoked and earth_box(ll_to_earth($2, $1), $3) @> ll_to_earth(g.latitude, g.longitude)
      and ${EARTH_DISTANCE} <= $3
    order by 2 limit ${c.limit}`,
  values: [c.near.lon, c.near.lat, c.within ? c.near.radius : 20_000_000],
});

async function main() {
  const { output, server } = await serveBenchDatabase(SCALE_DB, ROWS, true);
  const peers = await preparePeers();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const handle = await connectInProcess(dbUrl);
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  const timed = async (run: () => Promise<unknown>) => {
    const started = performance.now();
    await run();
    return performance.now() - started;
  };
  try {
    const versions = await serverVersions(dbUrl, peers.postgis);
    console.log(
      `\nbench:proximity: ${ROWS.toLocaleString("en")} synthetic proofs, PostgreSQL ${versions.postgres} (PostGIS ${versions.postgis}); server: built functions on Node ${server.version}; ${ITERATIONS} requests per case, each HTTP request followed by the same SQL; then the same SQL${peers.postgis ? " followed by PostGIS's (the faster of its two forms)" : ""}${peers.earth ? "; earthdistance on a few rounds" : ""}; ms`,
    );
    console.log(
      `\n${pad("request (nearest first, 100 a page)", 38)} ${lpad("matched", 8)} ${lpad("HTTP p50", 9)} ${lpad("SQL p50", 8)} ${lpad("ratio", 6)} ${lpad("goal", 6)} ${lpad("SQL p50", 8)} ${lpad("PostGIS", 8)} ${lpad("ours/PG", 8)} ${lpad("earthd.", 8)} ${lpad("ours/ed", 8)}`,
    );
    for (const c of CASES) {
      const path = pathOf(c);
      const recorded = await statementsOf(path);
      const matched = JSON.parse(recorded.body.toString("utf8")).pagination.total as number;
      const ed = earthPage(c);
      const h: number[] = [];
      const s: number[] = [];
      const s2: number[] = [];
      const g: number[] = [];
      const e: number[] = [];
      // HTTP against the same SQL, interleaved.
      for (let i = -10; i < ITERATIONS; i++) {
        const hm = await timed(() => getOk(`${server.url}${path}`, agent));
        const sm = await timed(() => replay(client, recorded.statements));
        if (i < 0) continue;
        h.push(hm);
        s.push(sm);
      }
      // PostGIS's two forms on a few rounds, the faster of which then runs interleaved with the same SQL (the slower
      // one can read a whole circle or every point, and would disturb what follows it).
      const forms = [postgisPage(c, false), postgisPage(c, true)];
      const trial = async (f: { text: string; values: unknown[] }) => {
        const ms: number[] = [];
        for (let i = 0; i < 4; i++) ms.push(await timed(() => client.query(f.text, f.values)));
        return percentile(ms.slice(1), 0.5);
      };
      const trials = peers.postgis ? [await trial(forms[0]!), await trial(forms[1]!)] : [];
      const pg1 = (trials[1] ?? Number.POSITIVE_INFINITY) < (trials[0] ?? 0) ? forms[1]! : forms[0]!;
      for (let i = -3; peers.postgis && i < ITERATIONS; i++) {
        const sm = await timed(() => replay(client, recorded.statements));
        const gm = await timed(() => client.query(pg1.text, pg1.values));
        if (i < 0) continue;
        s2.push(sm);
        g.push(gm);
      }
      // earthdistance has no nearest-neighbour scan: it sorts every match (every point for the 100 nearest):
      // timed on a few rounds (one for the 100 nearest).
      for (let i = -1; peers.earth && i < (c.within ? EARTH_ROUNDS : 1); i++) {
        const em = await timed(() => client.query(ed.text, ed.values));
        if (i >= 0) e.push(em);
      }
      const [h50, s50, q50, e50] = [h, s, s2, e].map((xs) => percentile(xs, 0.5)) as [
        number,
        number,
        number,
        number,
      ];
      const g50 = percentile(g, 0.5);
      console.log(
        `${pad(c.name, 38)} ${lpad(matched.toLocaleString("en"), 8)} ${lpad(f1(h50), 9)} ${lpad(f1(s50), 8)} ${lpad((h50 / s50).toFixed(2), 6)} ${lpad(h50 <= 1.5 * s50 + 1 ? "met" : "MISSED", 6)} ${lpad(f1(q50), 8)} ${lpad(f1(g50), 8)} ${lpad(peers.postgis ? (q50 / g50).toFixed(2) : "-", 8)} ${lpad(f1(e50), 8)} ${lpad(peers.earth ? (q50 / e50).toFixed(2) : "-", 8)}${peers.postgis ? (q50 / g50 <= 1.5 ? "" : "  (above 1.5x PostGIS)") : ""}`,
      );
      if (peers.postgis && !c.within) {
        // The page's distances equal PostGIS's (ties at one distance may list their proofs in another order).
        const ours = (JSON.parse(recorded.body.toString("utf8")).data as { distance: number }[]).map(
          (r) => r.distance,
        );
        const theirs = (await client.query(pg1.text, pg1.values)).rows.map((r) => Number(r.distance));
        const same =
          ours.length === theirs.length &&
          ours.every((d, i) => Math.abs(d - theirs[i]!) <= 1e-6 * Math.max(1, d));
        console.log(`  ${pad("", 36)} the page's distances ${same ? "equal" : "DIFFER from"} PostGIS's`);
      }
    }
    if (peers.postgis) {
      console.log(
        "\nExactness: the set of proofs (revoked included) within each circle, ours (SQL) and PostGIS's",
      );
      for (const n of SET_CIRCLES) {
        const ours = await queryRows<{ k: string }>(
          handle.db,
          sql`select ${p.chainId}::text || ':' || ${p.uid} as k from ${p} where ${whereClause({ near: n, includeRevoked: true })}`,
        );
        const { rows } = await client.query(
          "select chain_id::text || ':' || uid as k from proximity_peer_points where ST_DWithin(geog, $1::geography, $2, false)",
          [`SRID=4326;POINT(${n.lon} ${n.lat})`, n.radius],
        );
        const a = new Set(ours.map((r) => r.k));
        const b = new Set(rows.map((r: { k: string }) => r.k));
        const onlyOurs = [...a].filter((k) => !b.has(k)).length;
        const onlyTheirs = [...b].filter((k) => !a.has(k)).length;
        console.log(
          `  ${pad(`${n.radius / 1000} km around ${n.lon},${n.lat}`, 40)} ${lpad(a.size.toLocaleString("en"), 9)} proofs: ${onlyOurs || onlyTheirs ? `DIFFER (${onlyOurs} only ours, ${onlyTheirs} only PostGIS's)` : "equal to PostGIS's"}`,
        );
      }
    }
  } finally {
    await client.end();
    await handle.close();
    await server.stop();
    output.remove();
    if (!KEEP) console.log(`(${SCALE_DB} kept all the same: it is bench:scale's)`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
