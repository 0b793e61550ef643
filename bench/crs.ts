/**
 * Issue 35's goals, on `--rows` synthetic proofs (100,000 by default) in PostgreSQL, served by the built functions on
 * Node 24 (serveBuilt), over HTTP with a kept-alive connection:
 * - a page of 1000 features of location-proofs in EPSG:3857 and in EPSG:27700 (crs=), and as JSON-FG (f=jsonfg, and
 *   f=jsonfg with crs=EPSG:27700, its place transformed): p50 ≤ 1.2 × the CRS84 GeoJSON page of the same query, in
 *   one run (the variants take turns, request by request, so a load on the machine falls on all of them alike); the
 *   same for the shapes collection in EPSG:3857;
 * - the schema (Part 5) and the MapLibre style sheet: p50 ≤ 2 ms; the sortables, the styles list and the TileJSON
 *   beside them, and the conformance document, a constant, as the floor of any request over HTTP here. Each document
 *   is also timed in process (its route handler called with a Request, no HTTP): what the document itself costs.
 *
 *   npm run bench:crs [-- --rows N] [--rounds N] [--keep]    (wrap in flock /work/wt/heavy.lock)
 */
import http from "node:http";
import { GET as schemaGET } from "../api/ogc/collections/location-proofs/schema.js";
import { GET as sortablesGET } from "../api/ogc/collections/location-proofs/sortables.js";
import { GET as styleGET } from "../api/ogc/collections/location-proofs/styles/[styleId].js";
import { GET as stylesGET } from "../api/ogc/collections/location-proofs/styles/index.js";
import { GET as tileJsonGET } from "../api/ogc/collections/location-proofs/tiles/[tileMatrixSetId]/tilejson.js";
import { GET as conformanceGET } from "../api/ogc/conformance.js";
import { loadConfig, setConfig } from "../lib/config.js";
import { admin, benchArgs, benchDatabase, benchDatabaseUrl, requestOk, serveBuilt } from "./common.js";
import { f1, lpad, pad, percentile } from "./figures.js";

const ARGS = benchArgs({ numbers: { rows: 100_000, rounds: 80, docs: 300 }, flags: ["keep"] });
const DB = "lpqs_bench_crs";
const epsg = (code: number) => encodeURIComponent(`http://www.opengis.net/def/crs/EPSG/0/${code}`);
const POINTS = "/api/ogc/collections/location-proofs";
const SHAPES = "/api/ogc/collections/location-proof-shapes";

/** [name, path, the baseline it is compared with (undefined: it is one)] */
const PAGES: [string, string, string | undefined][] = [
  ["GeoJSON CRS84", `${POINTS}/items?limit=1000`, undefined],
  ["EPSG:3857", `${POINTS}/items?limit=1000&crs=${epsg(3857)}`, "GeoJSON CRS84"],
  ["EPSG:27700", `${POINTS}/items?limit=1000&crs=${epsg(27700)}`, "GeoJSON CRS84"],
  ["JSON-FG", `${POINTS}/items?limit=1000&f=jsonfg`, "GeoJSON CRS84"],
  ["JSON-FG EPSG:27700", `${POINTS}/items?limit=1000&f=jsonfg&crs=${epsg(27700)}`, "GeoJSON CRS84"],
  ["shapes CRS84", `${SHAPES}/items?limit=1000`, undefined],
  ["shapes EPSG:3857", `${SHAPES}/items?limit=1000&crs=${epsg(3857)}`, "shapes CRS84"],
];

type Handler = (request: Request) => Promise<Response> | Response;
/** [name, path, goal ms (undefined: shown beside), its handler and the route parameters vercel.json adds] */
const DOCS: [string, string, number | undefined, Handler, string][] = [
  ["schema", `${POINTS}/schema`, 2, schemaGET, ""],
  ["style sheet", `${POINTS}/styles/proofs`, 2, styleGET, "?styleId=proofs"],
  ["sortables", `${POINTS}/sortables`, undefined, sortablesGET, ""],
  ["styles", `${POINTS}/styles`, undefined, stylesGET, ""],
  [
    "TileJSON",
    `${POINTS}/tiles/WebMercatorQuad/tilejson`,
    undefined,
    tileJsonGET,
    "?tileMatrixSetId=WebMercatorQuad",
  ],
  ["conformance (floor)", "/api/ogc/conformance", undefined, conformanceGET, ""],
];

/** p50 of a route handler called in process, `n` times after a warm-up. */
async function inProcess(handler: Handler, url: string, n: number): Promise<number> {
  const once = async () => {
    const started = performance.now();
    const res = await handler(new Request(url));
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status}`);
    return performance.now() - started;
  };
  for (let i = 0; i < 50; i++) await once();
  const xs: number[] = [];
  for (let i = 0; i < n; i++) xs.push(await once());
  return percentile(xs, 0.5);
}

async function timed(url: string, agent: http.Agent): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  const body = await requestOk(url, agent);
  return { ms: performance.now() - started, bytes: body.length };
}

await benchDatabase(DB, ARGS.rows, true);
const { output, server } = await serveBuilt(benchDatabaseUrl(DB));
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
try {
  const base = server.url;
  // Warm: every function loaded, the count cached, proj4's converters made.
  for (let i = 0; i < 5; i++) {
    for (const [, path] of PAGES) await timed(`${base}${path}`, agent);
    for (const [, path] of DOCS) await timed(`${base}${path}`, agent);
  }
  // Not vacuous: each page holds 1000 features, and a transformed one differs from the CRS84 one.
  const plain = JSON.parse((await requestOk(`${base}${PAGES[0]![1]}`, agent)).toString("utf8"));
  const merc = JSON.parse((await requestOk(`${base}${PAGES[1]![1]}`, agent)).toString("utf8"));
  if (plain.features.length !== 1000 || merc.features.length !== 1000)
    throw new Error(`pages of ${plain.features.length} and ${merc.features.length} features, not 1000`);
  if (JSON.stringify(plain.features[0].geometry) === JSON.stringify(merc.features[0].geometry))
    throw new Error("the EPSG:3857 page's first geometry is the CRS84 one");

  const times = new Map<string, number[]>(PAGES.map(([name]) => [name, []]));
  const sizes = new Map<string, number>();
  for (let r = 0; r < ARGS.rounds; r++) {
    for (const [name, path] of PAGES) {
      const t = await timed(`${base}${path}`, agent);
      times.get(name)!.push(t.ms);
      sizes.set(name, t.bytes);
    }
  }
  const docTimes = new Map<string, number[]>(DOCS.map(([name]) => [name, []]));
  for (let r = 0; r < ARGS.docs; r++) {
    for (const [name, path] of DOCS) docTimes.get(name)!.push((await timed(`${base}${path}`, agent)).ms);
  }

  console.log(
    `\ncrs, JSON-FG and map documents over ${ARGS.rows.toLocaleString("en")} proofs (built functions on Node 24, HTTP, ${ARGS.rounds} rounds, variants in turn)\n`,
  );
  console.log(
    `${pad("page of 1000", 22)}${lpad("p50 ms", 9)}${lpad("p90 ms", 9)}${lpad("KB", 8)}${lpad("× base", 9)}  goal`,
  );
  const p50 = (name: string) => percentile(times.get(name)!, 0.5);
  for (const [name, , baseline] of PAGES) {
    const ratio = baseline ? p50(name) / p50(baseline) : undefined;
    console.log(
      `${pad(name, 22)}${lpad(f1(p50(name)), 9)}${lpad(f1(percentile(times.get(name)!, 0.9)), 9)}${lpad(f1(sizes.get(name)! / 1024), 8)}${lpad(ratio ? ratio.toFixed(2) : "1", 9)}  ${ratio === undefined ? "(baseline)" : ratio <= 1.2 ? "≤ 1.2 × met" : "≤ 1.2 × MISSED"}`,
    );
  }
  setConfig(loadConfig({ LOG_LEVEL: "silent", RATE_LIMIT_PER_MINUTE: "0" }));
  console.log(
    `\n${pad("document", 22)}${lpad("p50 ms", 9)}${lpad("p90 ms", 9)}${lpad("in-proc", 9)}  goal (HTTP p50)`,
  );
  for (const [name, path, goal, handler, route] of DOCS) {
    const xs = docTimes.get(name)!;
    const m = percentile(xs, 0.5);
    const own = await inProcess(handler, `http://localhost${path}${route}`, ARGS.docs);
    console.log(
      `${pad(name, 22)}${lpad(f1(m), 9)}${lpad(f1(percentile(xs, 0.9)), 9)}${lpad(own.toFixed(2), 9)}  ${goal === undefined ? "" : m <= goal ? `≤ ${goal} ms met` : `≤ ${goal} ms MISSED`}`,
    );
  }
} finally {
  agent.destroy();
  await server.stop();
  output.remove();
  if (!ARGS.keep) await admin(`drop database if exists ${DB} with (force)`);
}
