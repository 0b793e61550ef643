/**
 * The service beside its peers (issue #10, "faster than both peers on every query"): `npm run bench:peers [-- options]`.
 *
 * The peers are QGIS Server 3.22 and MapServer 8.0 as Debian bookworm packages them (`bash bench/peers.sh` installs
 * them and serves them through lighttpd's FastCGI on 127.0.0.1:8081 and :8082), each serving the same proofs through
 * its OGC API Features from the same PostgreSQL 15:
 *
 * 1. Loads N synthetic proofs (the seed and end date of bench:scale, so the same data) into a database of its own,
 *    `lpqs_bench_peers` on BENCH_DATABASE_URL's server (default postgres://postgres@127.0.0.1:5432/postgres), and
 *    copies them into a PostGIS table for the peers, `peer_proofs`: the same properties as our OGC items, a Point in
 *    SRID 4326 from our representative point (null without coordinates), `fid` = the position in our order (newest
 *    event first) as primary key, a GiST index on the point and a btree on the event time. The database is kept and
 *    reused by the next run while it holds N proofs of the same end date (a day later it is loaded anew).
 * 2. (Re)starts the peers (bench/peers.sh restart), builds our functions and serves them on Node 24 as Vercel runs
 *    them (scripts/vercel-output/emulate.ts, VERCEL=1), as bench:scale does.
 * 3. Asks each server every request once and checks the answer: numberMatched against counts made in SQL (the OGC
 *    rule the service follows — a bbox or datetime also matches features without geometry or time — and the plain
 *    count without them), whether the filter was applied to the features returned, the number and bytes returned.
 * 4. Every request type W times on every server (warm-up), then K times each, interleaved (ours, QGIS, MapServer,
 *    ours, …), one request at a time on one keep-alive connection per server; prints p50/p99 per server.
 *    Run nothing else that loads the machine meanwhile (bench:scale included): 2 cores serve all three and PostgreSQL.
 *
 * Options: --rows N (1,000,000), --iterations K (100), --warm-up W (40), --budget S (stop timing one server on one
 * request type after S seconds, reporting how many were timed: 60), --drop (drop the database afterwards).
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import {
  admin,
  benchArgs,
  benchDatabaseUrl,
  DAY,
  END,
  holdsBenchData,
  iso,
  loadBenchDatabase,
  requireNode24,
  serveBuilt,
  serverVersions,
  tableTag,
} from "./common.js";
import { f1, pad, percentile } from "./figures.js";

const ARGS = benchArgs({
  numbers: { rows: 1_000_000, iterations: 100, "warm-up": 40, budget: 60 },
  flags: ["drop"],
});
const BUDGET_MS = ARGS.budget * 1000;
const WARM_UP_CAP_MS = 15_000;
const DB_NAME = "lpqs_bench_peers";
const PEERS_DIR = "/tmp/lpqs-peers";

// Without Node 24 the run stops here, not after loading the data.
requireNode24();
const dbUrl = benchDatabaseUrl(DB_NAME);
const MONTH_FROM = END.getTime() - 60 * DAY;
const MONTH_TO = END.getTime() - 30 * DAY;
/** The peers' table's comment, written once the copy is complete and indexed. */
const COPY_TAG = "lpqs peers: complete copy";

// ---------------------------------------------------------------------------------------------------------------
// The data: ours (location_proofs, by the service's migrations) and the peers' copy (peer_proofs, PostGIS).

/** The OGC properties of our items, in their order, as the peers' table columns. */
const PEER_COLUMNS = `uid, chain, chain_id, prover, subject, event_timestamp, event_timestamp_raw::text as event_timestamp_raw,
  location_type, latitude, longitude, location, srs, revoked, revocation_time, attestation_time, expiration_time,
  recipe_type, recipe_payload, media_type, media_data, memo, schema_uid, ref_uid, block_number, tx_hash, decode_error`;

/** Loads the data unless the database already holds it. */
async function prepare(): Promise<void> {
  if (await holdsBenchData(DB_NAME, ARGS.rows)) {
    if ((await tableTag(dbUrl, "peer_proofs")) === COPY_TAG) {
      console.log(
        `reusing ${DB_NAME} (${ARGS.rows.toLocaleString("en")} proofs, ending ${END.toISOString()})`,
      );
      return;
    }
  }
  const started = performance.now();
  const handle = await loadBenchDatabase(DB_NAME, ARGS.rows);
  try {
    process.stdout.write(
      `\rloaded ${ARGS.rows.toLocaleString("en")} synthetic proofs; copying them for the peers`,
    );
    const db = handle.db;
    await db.execute(sql`create extension if not exists postgis`);
    await db.execute(sql`set maintenance_work_mem = '256MB'`);
    // fid = the position in our default order (event time newest first, nulls last, then uid, chain id), and the
    // rows written in that order: a peer that pages by its key or reads the heap in order returns what we return.
    await db.execute(
      sql.raw(`create table peer_proofs as
        select row_number() over (order by event_timestamp desc nulls last, uid, chain_id) as fid, ${PEER_COLUMNS},
          (case when longitude is not null and latitude is not null
            then ST_SetSRID(ST_MakePoint(longitude, latitude), 4326) end)::geometry(Point, 4326) as geom
        from location_proofs order by fid`),
    );
    await db.execute(sql`alter table peer_proofs add primary key (fid)`);
    await db.execute(sql`create index peer_proofs_geom_gist on peer_proofs using gist (geom)`);
    await db.execute(sql`create index peer_proofs_event_timestamp_idx on peer_proofs (event_timestamp)`);
    // As autovacuum would soon after a bulk load (ours was, by loadBenchDatabase).
    await db.execute(sql`vacuum analyze peer_proofs`);
    await db.execute(sql.raw(`comment on table peer_proofs is '${COPY_TAG}'`));
    console.log(
      `\rloaded ${ARGS.rows.toLocaleString("en")} synthetic proofs and their PostGIS copy in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  } finally {
    await handle.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The request types and the three servers.

type Bbox = [number, number, number, number];
type RequestType = { name: string; limit: number; bbox?: Bbox; datetime?: [number, number] };
/** The boxes and the month of bench/scale.ts. */
const REQUESTS: RequestType[] = [
  { name: "default page (limit=10)", limit: 10 },
  { name: "city bbox (Berlin)", limit: 10, bbox: [13.3, 52.45, 13.5, 52.57] },
  { name: "continent bbox (Europe)", limit: 10, bbox: [-10, 35, 30, 60] },
  { name: "world bbox", limit: 10, bbox: [-180, -90, 180, 90] },
  { name: "limit=1000", limit: 1000 },
  { name: "one-month datetime", limit: 10, datetime: [MONTH_FROM, MONTH_TO] },
];

type Server = { name: string; base: string; path: (r: RequestType) => string; agent: http.Agent };
const query = (r: RequestType, limitParam: boolean) => {
  const params: string[] = [];
  if (limitParam || r.limit !== 10) params.push(`limit=${r.limit}`);
  if (r.bbox) params.push(`bbox=${r.bbox.join(",")}`);
  if (r.datetime) params.push(`datetime=${iso(r.datetime[0])}/${iso(r.datetime[1])}`);
  return params;
};
/** One keep-alive connection per server, as bench:scale (node:http: fetch() would add its own cost). */
const agent = () => new http.Agent({ keepAlive: true, maxSockets: 1 });
function servers(ours: string): Server[] {
  return [
    {
      name: "ours",
      base: ours,
      // Our default limit is 10: the default page is the bare items URL.
      path: (r) => `/api/ogc/collections/location-proofs/items${qs(query(r, false))}`,
      agent: agent(),
    },
    {
      name: "QGIS",
      base: "http://127.0.0.1:8081",
      path: (r) => `/wfs3/collections/peer_proofs/items.geojson${qs(query(r, true))}`,
      agent: agent(),
    },
    {
      name: "MapServer",
      base: "http://127.0.0.1:8082",
      path: (r) => `/peers/ogcapi/collections/peer_proofs/items${qs(["f=json", ...query(r, true)])}`,
      agent: agent(),
    },
  ];
}
const qs = (params: string[]) => (params.length ? `?${params.join("&")}` : "");

type Answer = { ms: number; status: number; body: Buffer };
function get(server: Server, path: string, timeoutMs = 120_000): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${server.base}${path}`,
      { agent: server.agent, headers: { accept: "application/geo+json, application/json" } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () =>
          resolve({
            ms: performance.now() - started,
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    req.on("error", reject);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// What is right: counts made in SQL, and a check of each server's first answer.

/**
 * ogc: under the OGC rule the service follows (a bbox or datetime also matches features without geometry or time);
 * plain: only features whose geometry/time lies inside; total: every feature; located: every feature with a geometry.
 */
type Expected = { ogc: number; plain: number; total: number; located: number };
async function expectedCounts(r: RequestType): Promise<Expected> {
  const where: string[] = [];
  const ogc: string[] = [];
  if (r.bbox) {
    const box = `ST_MakeEnvelope(${r.bbox.join(", ")}, 4326)`;
    where.push(`geom && ${box}`);
    ogc.push(`(geom && ${box} or geom is null)`);
  }
  if (r.datetime) {
    const range = `event_timestamp between '${iso(r.datetime[0])}' and '${iso(r.datetime[1])}'`;
    where.push(range);
    ogc.push(`(${range} or event_timestamp is null)`);
  }
  const [row] = await admin(
    `select count(*) filter (where ${where.join(" and ") || "true"})::int as plain,
       count(*) filter (where ${ogc.join(" and ") || "true"})::int as ogc, count(*)::int as total,
       count(geom)::int as located from peer_proofs`,
    dbUrl,
  );
  return {
    plain: Number(row!.plain),
    ogc: Number(row!.ogc),
    total: Number(row!.total),
    located: Number(row!.located),
  };
}

/** A timestamp as a peer writes it ("2025-01-02T03:04:05Z", "2025-01-02 03:04:05+00", …), in ms. */
function timeOf(value: unknown): number | null | undefined {
  if (value === null) return null;
  if (typeof value !== "string") return undefined;
  const text = value.replace(" ", "T").replace(/([+-]\d\d)$/, "$1:00");
  const ms = Date.parse(/[zZ]|[+-]\d\d:\d\d$/.test(text) ? text : `${text}Z`);
  return Number.isNaN(ms) ? undefined : ms;
}

type Check = {
  /** why it cannot be timed (an error, a filter ignored), or undefined */
  excluded?: string;
  matched?: number;
  returned: number;
  bytes: number;
  note: string[];
};
function check(r: RequestType, answer: Answer, expected: Expected): Check {
  const text = answer.body.toString("utf8");
  if (answer.status !== 200)
    return {
      excluded: `HTTP ${answer.status}: ${text.replace(/\s+/g, " ").slice(0, 200)}`,
      returned: 0,
      bytes: answer.body.length,
      note: [],
    };
  let doc: {
    features?: { geometry: unknown; properties: Record<string, unknown> }[];
    numberMatched?: number;
  };
  try {
    doc = JSON.parse(text);
  } catch {
    return { excluded: `not JSON: ${text.slice(0, 200)}`, returned: 0, bytes: answer.body.length, note: [] };
  }
  const features = doc.features ?? [];
  const result: Check = {
    ...(typeof doc.numberMatched === "number" ? { matched: doc.numberMatched } : {}),
    returned: features.length,
    bytes: answer.body.length,
    note: [],
  };
  if (![expected.ogc, expected.plain].some((n) => features.length === Math.min(r.limit, n)))
    result.note.push(`returned ${features.length} features`);
  if (r.datetime) {
    const [from, to] = r.datetime;
    const outside = features.filter((f) => {
      const t = timeOf(f.properties.event_timestamp);
      return t !== null && (t === undefined || t < from || t > to);
    });
    if (outside.length > 0)
      result.excluded = `datetime ignored: ${outside.length} of ${features.length} features outside the window (e.g. event_timestamp ${String(outside[0]!.properties.event_timestamp)})`;
  }
  return result;
}

const mark = (c: Check | undefined, e: Expected) => {
  if (!c || (c.excluded && c.matched === undefined)) return "-";
  if (c.matched === undefined) return "absent";
  const n = c.matched.toLocaleString("en");
  if (c.matched === e.ogc) return `${n} ok`;
  if (c.matched === e.plain) return `${n} (no nulls)`;
  if (c.matched === e.total) return `${n} WRONG (= all)`;
  if (c.matched === e.located) return `${n} WRONG (= all located)`;
  return `${n} WRONG`;
};

// ---------------------------------------------------------------------------------------------------------------

/** An installed Debian package's version (`dpkg-query -W` prints the name, a tab and the version). */
const debianVersion = (name: string) =>
  execFileSync("dpkg-query", ["-W", name]).toString().trim().split("\t")[1] ?? "?";

async function main() {
  await prepare();
  if (!existsSync(`${PEERS_DIR}/lighttpd-qgis.conf`))
    throw new Error("run `bash bench/peers.sh` first (as root)");
  // Fresh peers on the data as it is now (a reload drops the database under their connections and caches).
  execFileSync("bash", [fileURLToPath(new URL("peers.sh", import.meta.url)), "restart"], {
    stdio: "inherit",
  });
  const { output, server: ours } = await serveBuilt(dbUrl);
  const all = servers(ours.url);
  const versions = {
    ...(await serverVersions(dbUrl)),
    qgis: debianVersion("qgis-server"),
    mapserver: debianVersion("cgi-mapserver"),
  };
  const say = (line = "") => console.log(line);
  try {
    const expected = new Map<RequestType, Expected>();
    const checks = new Map<string, Check>();
    const key = (r: RequestType, s: Server) => `${r.name}|${s.name}`;
    const times = new Map<string, number[]>();
    const stopped = new Map<string, string>();
    console.log("checking every answer");
    for (const r of REQUESTS) {
      expected.set(r, await expectedCounts(r));
      for (const s of all) {
        const answer = await get(s, s.path(r)).catch((error: Error) => error);
        const c =
          answer instanceof Error
            ? { excluded: `no answer: ${answer.message}`, returned: 0, bytes: 0, note: [] }
            : check(r, answer, expected.get(r)!);
        checks.set(key(r, s), c);
      }
    }
    // Warm-up: what a server does on every request compiled or cached before any is timed (ours: the JIT); a
    // request that takes seconds gains nothing from it, so each (request, server) stops warming after 15 s.
    console.log(
      `warm-up: ${ARGS["warm-up"]} rounds; then ${ARGS.iterations} timed per request and server, interleaved`,
    );
    const spent = new Map<string, number>();
    for (let round = 0; round < ARGS["warm-up"]; round++) {
      for (const r of REQUESTS) {
        for (const s of all) {
          const k = key(r, s);
          if (checks.get(k)?.excluded || (spent.get(k) ?? 0) > WARM_UP_CAP_MS) continue;
          const started = performance.now();
          await get(s, s.path(r)).catch(() => undefined);
          spent.set(k, (spent.get(k) ?? 0) + performance.now() - started);
        }
      }
    }
    for (const r of REQUESTS) {
      const budget = new Map<string, number>();
      for (let i = 0; i < ARGS.iterations; i++) {
        for (const s of all) {
          const k = key(r, s);
          if (checks.get(k)?.excluded || stopped.has(k)) continue;
          const answer = await get(s, s.path(r)).catch((error: Error) => error);
          if (answer instanceof Error || answer.status !== 200) {
            stopped.set(
              k,
              answer instanceof Error
                ? answer.message
                : `HTTP ${answer.status} ${answer.body.toString().slice(0, 100)}`,
            );
            continue;
          }
          const list = times.get(k) ?? [];
          list.push(answer.ms);
          times.set(k, list);
          const total = (budget.get(k) ?? 0) + answer.ms;
          budget.set(k, total);
          if (total > BUDGET_MS)
            stopped.set(k, `stopped after ${list.length} requests (--budget ${BUDGET_MS / 1000} s)`);
        }
      }
      console.log(`${r.name}: timed`);
    }

    say(
      `\nbench:peers: ${ARGS.rows.toLocaleString("en")} synthetic proofs, PostgreSQL ${versions.postgres} (PostGIS ${versions.postgis}); ours: built functions on Node ${ours.version}; QGIS Server ${versions.qgis} and MapServer ${versions.mapserver} (FastCGI under lighttpd, one process each); OGC API Features items as GeoJSON, ${ARGS.iterations} requests per request and server after ${ARGS["warm-up"]} rounds of warm-up, interleaved, one at a time; ms`,
    );
    const W = [28, 15, 15, 15, 10];
    say(
      `\n${pad("request", W[0]!)} ${pad("ours p50/p99", W[1]!)} ${pad("QGIS p50/p99", W[2]!)} ${pad("MapServer p50/p99", W[3]!)} ${pad("fastest", W[4]!)} numberMatched ours / QGIS / MapServer (expected)`,
    );
    const notes: string[] = [];
    for (const r of REQUESTS) {
      const e = expected.get(r)!;
      const cells: string[] = [];
      const p50s: [string, number][] = [];
      for (const s of all) {
        const k = key(r, s);
        const c = checks.get(k)!;
        const xs = times.get(k) ?? [];
        if (c.excluded) {
          cells.push(c.excluded.startsWith("datetime ignored") ? "ignored" : "error");
          notes.push(`${r.name}, ${s.name}: ${c.excluded}`);
          continue;
        }
        if (xs.length === 0) {
          cells.push("error");
          notes.push(`${r.name}, ${s.name}: ${stopped.get(k) ?? "not timed"}`);
          continue;
        }
        const p50 = percentile(xs, 0.5);
        p50s.push([s.name, p50]);
        cells.push(
          `${f1(p50)} / ${f1(percentile(xs, 0.99))}${xs.length < ARGS.iterations ? ` n=${xs.length}` : ""}`,
        );
        if (stopped.has(k)) notes.push(`${r.name}, ${s.name}: ${stopped.get(k)}`);
        for (const n of c.note) notes.push(`${r.name}, ${s.name}: ${n}`);
      }
      const fastest = p50s.sort((a, b) => a[1] - b[1])[0];
      const matched = all.map((s) => mark(checks.get(key(r, s)), e)).join(" / ");
      say(
        `${pad(r.name, W[0]!)} ${pad(cells[0]!, W[1]!)} ${pad(cells[1]!, W[2]!)} ${pad(cells[2]!, W[3]!)} ${pad(fastest ? fastest[0] : "-", W[4]!)} ${matched} (${e.ogc.toLocaleString("en")}${e.plain !== e.ogc ? `; ${e.plain.toLocaleString("en")} without null geometry/time` : ""})`,
      );
    }
    say(`\nbytes per response (features returned): ours / QGIS / MapServer`);
    for (const r of REQUESTS) {
      const parts = all.map((s) => {
        const c = checks.get(key(r, s))!;
        return c.bytes ? `${c.bytes.toLocaleString("en")} (${c.returned})` : "-";
      });
      say(`${pad(r.name, W[0]!)} ${parts.join(" / ")}`);
    }
    if (notes.length) {
      say("\nnotes:");
      for (const n of notes) say(`- ${n}`);
    }
    say(
      `\nnumberMatched: "ok" = right under the OGC rule the service follows (a bbox or datetime also matches features without geometry or time); "no nulls" = right if features without geometry/time never match; "= all" = every feature; "= all located" = every feature with a geometry.`,
    );
  } finally {
    for (const s of all) s.agent.destroy();
    await ours.stop();
    output.remove();
    if (ARGS.drop) {
      execFileSync("bash", [fileURLToPath(new URL("peers.sh", import.meta.url)), "stop"], {
        stdio: "inherit",
      });
      await admin(`drop database if exists ${DB_NAME} with (force)`);
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
