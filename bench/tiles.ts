/**
 * The vector tiles at a million proofs, as deployed: `npm run bench:tiles [-- options]`.
 *
 * 1. Loads N synthetic proofs (lib/local/synthetic-proofs.ts, the data of bench:scale: 70% of the points crowding
 *    30 cities, the densest, Tokyo, ~130,000 proofs within a degree) into a database of its own, `lpqs_bench_tiles`
 *    on BENCH_DATABASE_URL's server, and, when PostGIS is installed (`bash bench/peers.sh` installs it, or
 *    `apt-get install postgresql-15-postgis-3`), a PostGIS copy of their points in Web Mercator (the same points,
 *    latitudes clamped to the map as ours are) with a GiST index.
 * 2. Builds the functions (`npm run build`'s output) and serves them on Node 24 as Vercel invokes them.
 * 3. For every zoom from 0 to 16, the tiles holding a few places (Tokyo's centre, Berlin, São Paulo, a sparse spot)
 *    and a few proofs picked at random (where people look is where proofs are): p50 and p99 of the HTTP request,
 *    interleaved, after a warm-up; then the same tiles right after a write (a proof inserted into the tile before
 *    each request, so the tile has changed); the kind of each tile (points or clusters) and its size.
 * 4. The z0 tile decoded (@mapbox/vector-tile): its clusters' counts against the number of proofs with coordinates.
 * 5. Beside each tile, PostGIS building it with ST_AsMVT over the same points in the same PostgreSQL, and ours built
 *    the same way: each a client's round trip over node-postgres from this process (PostGIS: one statement returning
 *    the tile; ours: the service's statements and its MVT encoding in JavaScript), no HTTP on either side, the three
 *    timed in turn round by round so that the machine's noise falls on all alike. PostGIS
 *    two ways: over the proofs' own table (location_proofs, an expression GiST index on the point in Web Mercator,
 *    the properties computed in the statement as ours are: like for like), and over a narrow copy of the points
 *    with the properties already formatted (PostGIS's best case: a table made for the tiles). Where ours holds
 *    points, both send the same points and the ratios of ours to each are printed; where ours holds clusters,
 *    PostGIS would send every point: both sizes and times are printed.
 * With a chain filter (the map's control) the same, for the tiles of z0–z12 the counts serve.
 *
 * Options: --rows N (1,000,000), --iterations K (15 per tile), --warm-up W (3 rounds), --keep (keep the database
 * for the next run, which reuses it while it holds the same N proofs, loaded the same day), --max-zoom Z (16),
 * --compare-iterations C (45: the rounds beside PostGIS of a tile where both send the same points, each a
 * millisecond or so, where a median of few is at the mercy of a moment's noise).
 */
import http from "node:http";
import { VectorTile } from "@mapbox/vector-tile";
import { sql } from "drizzle-orm";
import { PbfReader } from "pbf";
import pg from "pg";
import { connect, MAINTENANCE_BUDGETS, queryRows } from "../db/client.js";
import { loadConfig, setConfig } from "../lib/config.js";
import { SYNTHETIC_CITIES } from "../lib/local/synthetic-proofs.js";
import { encodeTile } from "../lib/tiles/mvt.js";
import { tileContent } from "../lib/tiles/tile-content.js";
import { COUNTS_MAX_ZOOM } from "../lib/tiles/tile-pyramid.js";
import { CLUSTERS_LAYER, POINTS_LAYER } from "../lib/tiles/tile-rules.js";
import { MAX_LATITUDE, type TileAddress } from "../lib/tiles/web-mercator.js";
import {
  admin,
  availableExtensions,
  benchArgs,
  benchDatabaseUrl,
  getOk,
  serveBenchDatabase,
  serverVersions,
  tableTag,
} from "./common.js";
import { f1, lpad, pad, percentile } from "./figures.js";

const ARGS = benchArgs({
  numbers: { rows: 1_000_000, iterations: 15, "warm-up": 3, "max-zoom": 16, "compare-iterations": 45 },
  flags: ["keep"],
});
const DB = "lpqs_bench_tiles";
const dbUrl = benchDatabaseUrl(DB);
const TILES = "/api/ogc/collections/location-proofs/tiles/WebMercatorQuad";
const GOAL_MS = 50;
const POSTGIS_TAG = "lpqs tiles: PostGIS copy of the points";

/** The tile of zoom z holding a point (as the server computes it, lib/tiles/tile-sql.ts). */
function tileAt(lon: number, lat: number, z: number): TileAddress {
  const n = 2 ** z;
  const s = Math.sin((Math.max(-MAX_LATITUDE, Math.min(MAX_LATITUDE, lat)) * Math.PI) / 180);
  const y = Math.floor((0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * n);
  return { z, x: Math.min(n - 1, Math.floor(((lon + 180) / 360) * n)), y: Math.min(n - 1, Math.max(0, y)) };
}

const name = (t: TileAddress) => `${t.z}/${t.x}/${t.y}`;

type Tile = { t: TileAddress; place: string; query: string };
type Decoded = { points: number; clusters: number; proofs: number };

function decode(bytes: Buffer): Decoded {
  const tile = new VectorTile(new PbfReader(bytes));
  const points = tile.layers[POINTS_LAYER]?.length ?? 0;
  const clusters = tile.layers[CLUSTERS_LAYER];
  let proofs = points;
  for (let i = 0; i < (clusters?.length ?? 0); i++) proofs += Number(clusters!.feature(i).properties.count);
  return { points, clusters: clusters?.length ?? 0, proofs };
}

/** The PostGIS copy: the points of the proofs that have coordinates, in EPSG:3857, with the tile's properties. */
async function preparePostgis(): Promise<boolean> {
  if (!(await availableExtensions("postgis")).has("postgis")) {
    console.log(
      "PostGIS is not installed: no side-by-side figures (`bash bench/peers.sh` installs it, or apt-get install postgresql-15-postgis-3)",
    );
    return false;
  }
  const tag = await tableTag(dbUrl, "tile_peer_points");
  const handle = await connect(dbUrl, "pg", MAINTENANCE_BUDGETS);
  try {
    // PostGIS over the proofs' own table: their point in Web Mercator, indexed as an expression.
    await handle.db.execute(sql`create extension if not exists postgis`);
    await handle.db.execute(
      sql.raw(
        `create index if not exists tile_peer_location_proofs_geom on location_proofs using gist ((${POINT_3857}))`,
      ),
    );
    await handle.db.execute(sql`analyze location_proofs`);
    if (tag === POSTGIS_TAG) return true;
    process.stdout.write("copying the points for PostGIS");
    await handle.db.execute(sql`create extension if not exists postgis`);
    await handle.db.execute(sql`drop table if exists tile_peer_points`);
    await handle.db.execute(
      sql.raw(`create table tile_peer_points as
        select uid, chain, prover, to_char(event_timestamp at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as event_timestamp,
          revoked, left(memo, 40) as memo,
          ST_Transform(ST_SetSRID(ST_MakePoint(longitude, greatest(-${MAX_LATITUDE}, least(${MAX_LATITUDE}, latitude))), 4326), 3857) as geom
        from location_proofs where longitude is not null`),
    );
    await handle.db.execute(sql`create index tile_peer_points_geom on tile_peer_points using gist (geom)`);
    await handle.db.execute(sql`vacuum analyze tile_peer_points`);
    await handle.db.execute(sql.raw(`comment on table tile_peer_points is '${POSTGIS_TAG}'`));
    console.log("\rcopied the points for PostGIS          ");
    return true;
  } finally {
    await handle.close();
  }
}

/** A proof's point in Web Mercator (EPSG:3857), latitudes clamped to the map as ours are. */
const POINT_3857 = `ST_Transform(ST_SetSRID(ST_MakePoint(longitude, greatest(-${MAX_LATITUDE}, least(${MAX_LATITUDE}, latitude))), 4326), 3857)`;

/** PostGIS over the proofs' own table: the properties computed as the service computes them (lib/tiles/). */
const POSTGIS_OWN_TABLE = `select ST_AsMVT(q, '${POINTS_LAYER}', 4096, 'geom') as mvt from (
    select uid, chain, prover, to_char(event_timestamp at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as event_timestamp,
      revoked, left(memo, 40) as memo, ST_AsMVTGeom(${POINT_3857}, ST_TileEnvelope($1, $2, $3), 4096, 0, false) as geom
    from location_proofs where ${POINT_3857} && ST_TileEnvelope($1, $2, $3)) q`;

/** PostGIS over its narrow copy of the points, the properties formatted in advance. */
const POSTGIS_TILE = `select ST_AsMVT(q, '${POINTS_LAYER}', 4096, 'geom') as mvt from (
    select uid, chain, prover, event_timestamp, revoked, memo,
      ST_AsMVTGeom(geom, ST_TileEnvelope($1, $2, $3), 4096, 0, false) as geom
    from tile_peer_points where geom && ST_TileEnvelope($1, $2, $3)) q`;

async function main() {
  const { output, server } = await serveBenchDatabase(DB, ARGS.rows, ARGS.keep);
  const postgis = await preparePostgis();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  const handle = await connect(dbUrl, "pg", MAINTENANCE_BUDGETS);
  const written: string[] = [];
  try {
    const versions = await serverVersions(dbUrl, postgis);
    console.log(
      `\nbench:tiles: ${ARGS.rows.toLocaleString("en")} synthetic proofs, PostgreSQL ${versions.postgres} (PostGIS ${versions.postgis}); server: built functions on Node ${server.version}; ${ARGS.iterations} requests per tile after ${ARGS["warm-up"]} rounds of warm-up, interleaved, one at a time; ms`,
    );

    // The z0 tile holds every proof with coordinates: its clusters' counts add up to their number.
    const [withCoordinates] = await queryRows<{ n: number }>(
      handle.db,
      sql`select count(*)::int as n from location_proofs where longitude is not null`,
    );
    const z0 = decode(await getOk(`${server.url}${TILES}/0/0/0`, agent));
    console.log(
      `\nz0: ${z0.clusters} clusters holding ${z0.proofs.toLocaleString("en")} proofs; proofs with coordinates: ${withCoordinates!.n.toLocaleString("en")} — ${z0.proofs === withCoordinates!.n ? "exact" : "NOT EQUAL"}`,
    );

    // The places, and proofs picked at random (deterministically: by uid).
    const [, tokyoLon, tokyoLat] = SYNTHETIC_CITIES[0]!;
    const picks = await queryRows<{ longitude: number; latitude: number }>(
      handle.db,
      sql`select longitude, latitude from location_proofs where longitude is not null and uid > '0x8' order by uid limit 4`,
    );
    const places: [string, number, number][] = [
      ["Tokyo", tokyoLon, tokyoLat],
      ["Berlin", 13.405, 52.52],
      ["Sao Paulo", -46.6333, -23.5505],
      ["sparse", 20.5, -12.5],
      ...picks.map((p, i): [string, number, number] => [`proof ${i + 1}`, p.longitude, p.latitude]),
    ];
    const zooms = Array.from({ length: ARGS["max-zoom"] + 1 }, (_, z) => z);
    const tilesOf = (query: string, maxZ = ARGS["max-zoom"]): Tile[] =>
      zooms
        .filter((z) => z <= maxZ)
        .flatMap((z) => {
          const seen = new Set<string>();
          return places.flatMap(([place, lon, lat]) => {
            const t = tileAt(lon, lat, z);
            if (seen.has(name(t))) return [];
            seen.add(name(t));
            return [{ t, place, query }];
          });
        });

    const run = async (label: string, tiles: Tile[], write: boolean) => {
      const url = (tile: Tile) => `${server.url}${TILES}/${name(tile.t)}${tile.query}`;
      const times = new Map<Tile, number[]>(tiles.map((t) => [t, []]));
      const bodies = new Map<Tile, Buffer>();
      for (let round = 0; round < ARGS["warm-up"] + ARGS.iterations; round++) {
        for (const tile of tiles) {
          if (write) written.push(await writeInto(handle.db, tile.t));
          const started = performance.now();
          const body = await getOk(url(tile), agent);
          const ms = performance.now() - started;
          if (round >= ARGS["warm-up"]) times.get(tile)!.push(ms);
          bodies.set(tile, body);
        }
      }
      console.log(`\n${label}`);
      console.log(
        `${pad("zoom", 5)} ${lpad("tiles", 5)} ${lpad("p50", 7)} ${lpad("p99", 7)} ${lpad("worst p50", 10)} ${pad("  (tile)", 26)} ${lpad("kinds", 14)} ${lpad("max KB", 7)}  goal p50 <= ${GOAL_MS}`,
      );
      const byZoom = new Map<number, Tile[]>();
      for (const tile of tiles) byZoom.set(tile.t.z, [...(byZoom.get(tile.t.z) ?? []), tile]);
      for (const [z, group] of byZoom) {
        const all = group.flatMap((t) => times.get(t)!);
        const worst = group
          .map((t) => ({ t, p50: percentile(times.get(t)!, 0.5) }))
          .sort((a, b) => b.p50 - a.p50)[0]!;
        const kinds = group.map((t) => decode(bodies.get(t)!));
        const clusterTiles = kinds.filter((k) => k.clusters > 0).length;
        const maxKb = Math.max(...group.map((t) => bodies.get(t)!.length)) / 1024;
        const p50 = percentile(all, 0.5);
        console.log(
          `${pad(`z${z}`, 5)} ${lpad(String(group.length), 5)} ${lpad(f1(p50), 7)} ${lpad(f1(percentile(all, 0.99)), 7)} ${lpad(f1(worst.p50), 10)} ${pad(`  (${worst.t.place} ${name(worst.t.t)})`, 26)} ${lpad(`${group.length - clusterTiles} pts/${clusterTiles} cl`, 14)} ${lpad(maxKb.toFixed(1), 7)}  ${p50 <= GOAL_MS ? "ok" : "MISSED"}`,
        );
      }
      return { times, bodies };
    };

    const all = tilesOf("");
    const plain = await run(`Every tile, z0 to z${ARGS["max-zoom"]}`, all, false);
    await run("Right after a write (a proof inserted into the tile before each request)", all, true);
    await run(
      `With a chain filter (chain=base), z0 to z${COUNTS_MAX_ZOOM}`,
      tilesOf("?chain=base", COUNTS_MAX_ZOOM),
      false,
    );

    if (postgis) {
      console.log(
        `\nBeside PostGIS: ST_AsMVT over the same points (${POINTS_LAYER}'s properties) in the same PostgreSQL. Each a client's round trip over node-postgres from this process, p50:`,
      );
      console.log(
        "  ours = the service's statements and its MVT encoding in JavaScript; PG own = PostGIS over location_proofs (expression GiST index, properties computed as ours: like for like); PG copy = PostGIS over a narrow copy with the properties formatted in advance; ratio = ours / PostGIS",
      );
      console.log(
        `${pad("tile", 30)} ${lpad("HTTP", 6)} ${lpad("ours", 6)} ${lpad("KB", 6)} ${lpad("PG own", 7)} ${lpad("PG copy", 8)} ${lpad("KB", 9)} ${lpad("ratio own", 9)} ${lpad("copy", 6)}  what`,
      );
      setConfig(loadConfig({ DATABASE_URL: dbUrl, LOG_LEVEL: "silent" }));
      const inProcess = await connect(dbUrl, "pg");
      const OGC = { includeRevoked: true, bboxMatchesMissing: true, timesMatchMissing: true };
      /**
       * p50 of each way of building a tile, interleaved round by round (ours, then each PostGIS form), so that a
       * moment of noise on the shared machine falls on all of them alike. A way whose run takes a second or more (a
       * tile of every point) runs once and then drops out.
       */
      const timedTogether = async (
        builds: (() => Promise<number>)[],
        iterations: number,
      ): Promise<{ ms: number; bytes: number }[]> => {
        const times = builds.map(() => [] as number[]);
        const bytes = builds.map(() => 0);
        const done = builds.map(() => false);
        for (let i = 0; i < ARGS["warm-up"] + iterations; i++) {
          for (const [k, build] of builds.entries()) {
            if (done[k]) continue;
            const started = performance.now();
            bytes[k] = await build();
            const ms = performance.now() - started;
            if (i >= ARGS["warm-up"] || ms >= 1000) times[k]!.push(ms);
            if (ms >= 1000) done[k] = true;
          }
        }
        return times.map((xs, k) => ({ ms: percentile(xs, 0.5), bytes: bytes[k]! }));
      };
      const postgisTile = (text: string, t: TileAddress) => async () => {
        const { rows } = await client.query(text, [t.z, t.x, t.y]);
        return (rows[0]?.mvt as Buffer | null)?.length ?? 0;
      };
      const same: { own: number; copy: number; ours: number; peerOwn: number; peerCopy: number }[] = [];
      const every: { ours: number; oursKb: number; peer: number; peerKb: number }[] = [];
      for (const tile of all) {
        const ours = plain.bodies.get(tile)!;
        const kind = decode(ours);
        const oursHttp = percentile(plain.times.get(tile)!, 0.5);
        const isSame = kind.clusters === 0;
        const [built, own, copy] = (await timedTogether(
          [
            async () => encodeTile(await tileContent(inProcess.db, tile.t, OGC)).length,
            postgisTile(POSTGIS_OWN_TABLE, tile.t),
            postgisTile(POSTGIS_TILE, tile.t),
          ],
          isSame ? ARGS["compare-iterations"] : ARGS.iterations,
        )) as [{ ms: number; bytes: number }, { ms: number; bytes: number }, { ms: number; bytes: number }];
        if (!isSame)
          every.push({
            ours: built.ms,
            oursKb: ours.length / 1024,
            peer: Math.min(own.ms, copy.ms),
            peerKb: copy.bytes / 1024,
          });
        if (isSame)
          same.push({
            own: built.ms / own.ms,
            copy: built.ms / copy.ms,
            ours: built.ms,
            peerOwn: own.ms,
            peerCopy: copy.ms,
          });
        console.log(
          `${pad(`${tile.place} ${name(tile.t)}`, 30)} ${lpad(f1(oursHttp), 6)} ${lpad(f1(built.ms), 6)} ${lpad((ours.length / 1024).toFixed(1), 6)} ${lpad(f1(own.ms), 7)} ${lpad(f1(copy.ms), 8)} ${lpad((copy.bytes / 1024).toFixed(1), 9)} ${lpad(isSame ? (built.ms / own.ms).toFixed(2) : "-", 9)} ${lpad(isSame ? (built.ms / copy.ms).toFixed(2) : "-", 6)}  ${isSame ? `the same ${kind.points} points` : `ours ${kind.clusters} clusters of ${kind.proofs.toLocaleString("en")} proofs; PostGIS every point`}`,
        );
      }
      const range = (xs: number[], digits = 2) =>
        `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)} (median ${percentile(xs, 0.5).toFixed(digits)})`;
      if (every.length)
        console.log(
          `\nWhere PostGIS would send every point (${every.length} tiles): PostGIS (the faster of its two) ${range(
            every.map((x) => x.peer),
            1,
          )} ms, ${range(
            every.map((x) => x.peerKb),
            1,
          )} KB; ours ${range(
            every.map((x) => x.ours),
            1,
          )} ms, ${range(
            every.map((x) => x.oursKb),
            1,
          )} KB`,
        );
      if (same.length)
        console.log(
          `\nWhere both send the same points (${same.length} tiles): ours ${range(
            same.map((x) => x.ours),
            1,
          )} ms; PostGIS over location_proofs ${range(
            same.map((x) => x.peerOwn),
            1,
          )} ms, ratio ${range(same.map((x) => x.own))}, at most 1.5 in ${same.filter((x) => x.own <= 1.5).length}; PostGIS over its copy ${range(
            same.map((x) => x.peerCopy),
            1,
          )} ms, ratio ${range(same.map((x) => x.copy))}, at most 1.5 in ${same.filter((x) => x.copy <= 1.5).length}`,
        );
      await inProcess.close();
    }
  } finally {
    if (written.length) {
      await handle.db.execute(sql`delete from location_proofs where uid in ${written}`);
      if (postgis) await handle.db.execute(sql`delete from tile_peer_points where uid in ${written}`);
    }
    await client.end();
    await handle.close();
    agent.destroy();
    await server.stop();
    output.remove();
    if (!ARGS.keep) await admin(`drop database if exists ${DB} with (force)`);
  }
}

let writes = 0;
/** A new proof at the tile's centre (a copy of a stored one with a new uid), in its own statement. */
async function writeInto(db: Awaited<ReturnType<typeof connect>>["db"], t: TileAddress): Promise<string> {
  writes += 1;
  const n = 2 ** t.z;
  const lon = ((t.x + 0.5) / n) * 360 - 180;
  const lat = (Math.atan(Math.sinh(Math.PI * (1 - (2 * (t.y + 0.5)) / n))) * 180) / Math.PI;
  const uid = `0x${"e".repeat(48)}${writes.toString(16).padStart(16, "0")}`;
  await db.execute(sql`insert into location_proofs (chain_id, uid, chain, schema_uid, prover, subject, attestation_time,
      block_number, block_hash, tx_hash, log_index, data, geometry, longitude, latitude, min_lon, min_lat, max_lon, max_lat)
    select chain_id, ${uid}, chain, schema_uid, prover, subject, now(), block_number, block_hash, tx_hash, log_index, data,
      jsonb_build_object('type', 'Point', 'coordinates', jsonb_build_array(${lon}::float8, ${lat}::float8)),
      ${lon}::float8, ${lat}::float8, ${lon}::float8, ${lat}::float8, ${lon}::float8, ${lat}::float8
    from location_proofs where longitude is not null limit 1`);
  return uid;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
