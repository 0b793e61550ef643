/**
 * Connections that keep their memory (db/backend-warmup.ts): each request type through its route handler on two pools
 * of the service's own, one whose connections are warmed when reused (as the service's are) and one whose are not,
 * in turns request by request, on the same PostgreSQL database. Prints each type's p50 both ways, their ratio, and the page faults
 * that the connections' server processes took per request (minor faults, read from /proc: the server must run on
 * this machine), then what the warm-up costs a connection, once.
 *
 * Both pools start after the request types' counts are remembered (a throwaway pool reads each type once), so neither
 * connection runs a count: as in a pool whose counts another connection took, which is most of a busy pool's.
 *
 *   npm run bench:backends [-- --db NAME] [--rounds N]
 *
 * The database is bench:cql2-spatial's (points, lines and squares: `npm run bench:cql2-spatial` makes it), or --db.
 */
import pg from "pg";
import { GET as shapesGET } from "../api/ogc/collections/location-proof-shapes/items/index.js";
import { GET as itemsGET } from "../api/ogc/collections/location-proofs/items/index.js";
import { GET as tileGET } from "../api/ogc/collections/location-proofs/tiles/[tileMatrixSetId]/[tileMatrix]/[tileCol]/[tileRow].js";
import { GET as listGET } from "../api/v0/location-proofs/index.js";
import { GET as statsGET } from "../api/v0/location-proofs/stats.js";
import { BACKEND_WARMUP_SQL } from "../db/backend-warmup.js";
import { APPLICATION_NAME, connect, type DbHandle, setDatabase } from "../db/client.js";
import { loadConfig, setConfig } from "../lib/config.js";
import { benchArgs, databaseUrl, GENERATED_SERVER } from "./common.js";
import { statOf } from "./cores.js";

const ARGS = benchArgs({ numbers: { rounds: 60 }, texts: ["db"] });
const URL_ = databaseUrl(GENERATED_SERVER, ARGS.db ?? process.env.BENCH_POSTGIS_DB ?? "lpqs_bench_postgis");

type Handler = (request: Request) => Promise<Response>;
const SQUARE = "POLYGON((10 40, 14 40, 14 44, 10 44, 10 40))";
const tile = (z: number, x: number, y: number) =>
  `/api/ogc/collections/location-proofs/tiles/WebMercatorQuad/${z}/${x}/${y}?tileMatrixSetId=WebMercatorQuad&tileMatrix=${z}&tileCol=${x}&tileRow=${y}`;
const TYPES: [string, Handler, string][] = [
  ["native list", listGET, "/api/v0/location-proofs"],
  ["native list, limit=100", listGET, "/api/v0/location-proofs?limit=100"],
  ["native stats", statsGET, "/api/v0/location-proofs/stats"],
  ["OGC items", itemsGET, "/api/ogc/collections/location-proofs/items"],
  ["OGC items, limit=1000", itemsGET, "/api/ogc/collections/location-proofs/items?limit=1000"],
  ["OGC items, a city's bbox", itemsGET, "/api/ogc/collections/location-proofs/items?bbox=13,52,14,53"],
  ["shapes", shapesGET, "/api/ogc/collections/location-proof-shapes/items"],
  [
    "shapes, S_WITHIN",
    shapesGET,
    `/api/ogc/collections/location-proof-shapes/items?filter=${encodeURIComponent(`S_WITHIN(geometry, ${SQUARE})`)}`,
  ],
  ["tile z3", tileGET, tile(3, 4, 2)],
  ["tile z12", tileGET, tile(12, 2200, 1343)],
];

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const minorFaults = (pids: number[]) =>
  pids.reduce((sum, pid) => {
    try {
      return sum + statOf(pid)[7]!;
    } catch {
      return sum; // the connection ended
    }
  }, 0);

async function main() {
  setConfig(loadConfig({ DATABASE_URL: URL_, LOG_LEVEL: "silent", RATE_LIMIT_PER_MINUTE: "0" }));
  const admin = new pg.Client({ connectionString: URL_ });
  await admin.connect();
  // The service's connections to this database, by their server process.
  const backends = async (): Promise<number[]> =>
    (
      await admin.query(
        "select pid from pg_stat_activity where datname = current_database() and application_name = $1",
        [APPLICATION_NAME],
      )
    ).rows.map((r: { pid: number }) => r.pid);
  console.log(
    `Connections that keep their memory: ${ARGS.rounds} requests of each type on each pool, in turns (p50; faults: minor page faults of the connections' server processes per request)\n`,
  );
  console.log(
    `${"request type".padEnd(26)} ${"without".padStart(9)} ${"with".padStart(9)}  with/without  ${"faults without".padStart(14)} ${"with".padStart(6)}`,
  );
  for (const [name, handler, path] of TYPES) {
    const request = async (handle: DbHandle) => {
      setDatabase(handle);
      const res = await handler(new Request(`http://bench${path}`));
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${name}: ${res.status}`);
    };
    // Counts remembered first, on a pool of its own, so that neither pool measured runs one.
    const first = await connect(URL_, "pg");
    await request(first);
    await first.close();
    const pools: { handle: DbHandle; pids: number[]; times: number[] }[] = [];
    for (const warmBackends of [false, true]) {
      const before = new Set(await backends());
      const handle = await connect(URL_, "pg", undefined, { warmBackends });
      for (let i = 0; i < 3; i++) await request(handle);
      pools.push({ handle, pids: (await backends()).filter((pid) => !before.has(pid)), times: [] });
    }
    const faultsBefore = pools.map((x) => minorFaults(x.pids));
    for (let round = 0; round < ARGS.rounds; round++) {
      for (const x of pools) {
        const t = performance.now();
        await request(x.handle);
        x.times.push(performance.now() - t);
      }
    }
    const faults = pools.map((x, i) => (minorFaults(x.pids) - faultsBefore[i]!) / ARGS.rounds);
    const [without, withWarmup] = pools.map((x) => p50(x.times));
    console.log(
      `${name.padEnd(26)} ${without!.toFixed(2).padStart(6)} ms ${withWarmup!.toFixed(2).padStart(6)} ms  ${(withWarmup! / without!).toFixed(2).padStart(12)}  ${faults[0]!.toFixed(0).padStart(14)} ${faults[1]!.toFixed(0).padStart(6)}`,
    );
    for (const x of pools) await x.handle.close();
  }
  // What the warm-up costs a connection, once: its statement on a new connection, in turns with `select 1`.
  const once: number[][] = [[], []];
  for (let i = 0; i < 20; i++) {
    for (const [k, text] of ["select 1", BACKEND_WARMUP_SQL].entries()) {
      const client = new pg.Client({ connectionString: URL_ });
      await client.connect();
      const t = performance.now();
      await client.query(text);
      once[k]!.push(performance.now() - t);
      await client.end();
    }
  }
  console.log(
    `\nthe warm-up, once per connection (at its second checkout), on a new connection: ${p50(once[1]!).toFixed(2)} ms, against ${p50(once[0]!).toFixed(2)} ms for select 1 (p50 of 20)`,
  );
  await admin.end();
}

await main();
