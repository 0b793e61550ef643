/**
 * The service at a million proofs, as deployed: `npm run bench:scale [-- options]`.
 *
 * 1. Loads N realistic synthetic proofs (lib/local/synthetic-proofs.ts: Zipf provers, growing activity, 3% revoked,
 *    points, shapes, antimeridian lines, proofs without coordinates or time) into a database of its own,
 *    `lpqs_bench_scale` on BENCH_DATABASE_URL's server (default postgres://postgres@127.0.0.1:5432/postgres),
 *    created for the run and dropped after it (never DATABASE_URL's data).
 * 2. Builds the functions (`npm run build`'s output) and serves them on Node 24 as Vercel invokes them
 *    (scripts/vercel-output/server.ts, routed by the built config.json, VERCEL=1).
 * 3. For every request type of docs/performance.md's tables: the exact statements the service issues for it, recorded from
 *    the same code run in this process (node-postgres' query calls), are replayed with node-postgres, each HTTP
 *    request followed by its SQL, so both see the same conditions: p50/p99 of each, their ratio, and the server's
 *    CPU time per request (from /proc, over the same requests).
 * 4. Harvest: the whole collection through `next` links at limit=1000, native and OGC (every uid must come exactly
 *    once); the first, a middle and the last page of that walk, timed again, interleaved.
 * 5. Counts right after a write: a proof is inserted before every request of the common paths.
 * 6. Throughput at 16 connections: autocannon against the server (and both floors), and 16 node-postgres connections
 *    replaying the same statements; beside each rate, the CPU ms per request of the server, of PostgreSQL (every
 *    postgres process on this machine) and of the client, read from /proc over the same run: on a machine where all
 *    three share the cores, the sum is what bounds the rate. Then the same runs with PostgreSQL pinned to CPUs of its
 *    own (bench/cores.ts), as when the database has a host of its own, where each side is bounded by its own CPU.
 * Beside each HTTP figure, the floor (bench/floor-server.ts): a bare node:http server on the same Node that replays
 * the same statements and answers the same bytes, doing nothing else — what the HTTP layer and the database driver
 * alone cost here, on a machine where the client, the server and PostgreSQL share the CPUs. In the throughput runs
 * also the function floor (bench/floor-function.ts): the same as a function in the Web `GET(request)` signature,
 * served by the same emulation as the service — the least any function of this stack can cost, so what the service
 * costs beyond it is its own work, and what it costs beyond the bare floor is the signature's.
 *
 * Options: --rows N (1,000,000), --iterations K (100 per request type), --deep-iterations D (20 per deep offset),
 * --warm-up W (every request type W times
 * before the first is timed: 40), --duration S (10 s per throughput run),
 * --harvest-budget S (stop a harvest after S seconds: 300), --keep (keep the database for the next run, which
 * reuses it while it holds the same N proofs, loaded the same day), --cpu-prof DIR (profile the server: node --cpu-prof), --only SECTIONS (a comma
 * list of latency, harvest, write, throughput, orders, tiles: run only those; e.g. `--keep --only latency` to compare the CPU per
 * request of two commits on the same data; orders: every sortby each way, its first and last page; tiles: the tiles of
 * every filter the map sends, z0-z16, and the write path's cost per proof), --db NAME (the database: SCALE_DB,
 * `lpqs_bench_scale` unless BENCH_SCALE_DB names another), --offchain N (reads beside off-chain records: the latency
 * section runs twice, before and after N off-chain records are inserted, with four `source=all` request types more,
 * and prints each type's HTTP/SQL ratio in both runs and its change; the records are removed at the end; --rounds R
 * alternates the two states R times, each ratio the median of its rounds),
 * --compare M (beside a run of M proofs on this machine: each run writes its figures to
 * artifacts/bench-scale-<rows>.json, and this one prints each HTTP p50 against that run's, and the harvests' times).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { getTableColumns, sql } from "drizzle-orm";
import pg from "pg";
import { connect, MAINTENANCE_BUDGETS } from "../db/client.js";
import { locationProofs, offchainRecords } from "../db/schema.js";
import { loadSyntheticProofs, syntheticAddress, syntheticUids } from "../lib/local/synthetic-proofs.js";
import {
  admin,
  benchArgs,
  benchDatabaseUrl,
  DAY,
  END,
  getOk,
  iso,
  postgresVersion,
  ROOT,
  requireNode24,
  SCALE_DB,
  serveBenchDatabase,
} from "./common.js";
import { cannotSeparate, postgresPids, postmasterOf, separateCores, statOf } from "./cores.js";
import { f1, lpad, pad, percentile } from "./figures.js";
import { ordersSection, tilesSection, writeCostLine } from "./scale-orders-tiles.js";
import {
  connectInProcess,
  ITEMS,
  replay,
  SHAPES,
  type Statement,
  startFloors,
  statementsOf,
  V0,
} from "./statements.js";

const ARGS = benchArgs({
  numbers: {
    rows: 1_000_000,
    iterations: 100,
    "deep-iterations": 20,
    duration: 10,
    "harvest-budget": 300,
    "warm-up": 40,
    offchain: 0,
    rounds: 1,
    compare: 0,
  },
  flags: ["keep"],
  texts: ["only", "cpu-prof", "db"],
});
const DB = ARGS.db ?? SCALE_DB;
const ONLY = ARGS.only?.split(",");
const runs = (section: "latency" | "harvest" | "write" | "throughput" | "orders" | "tiles") =>
  !ONLY || ONLY.includes(section);
const NODE24 = requireNode24();

const dbUrl = benchDatabaseUrl(DB);

// ---------------------------------------------------------------------------------------------------------------
// Request types: the rows of docs/performance.md's tables.

const TOP_PROVER = syntheticAddress("p", 1);
const TYPICAL_PROVER = syntheticAddress("p", 100);
const MONTH = `fromTimestamp=${iso(END.getTime() - 60 * DAY)}&toTimestamp=${iso(END.getTime() - 30 * DAY)}`;
const OGC_MONTH = `datetime=${iso(END.getTime() - 60 * DAY)}/${iso(END.getTime() - 30 * DAY)}`;
const CITY = "bbox=13.3,52.45,13.5,52.57";
const CONTINENT = "bbox=-10,35,30,60";
const cql = (text: string) => `filter=${encodeURIComponent(text)}`;

type RequestType = { name: string; path: string };
/** Each request type's HTTP and SQL p50 in one latency round. */
type Latencies = Record<string, { http: number; sql: number }>;
const REQUESTS: RequestType[] = [
  { name: "v0 default page (100)", path: `${V0}` },
  { name: "v0 chain=base", path: `${V0}?chain=base` },
  { name: "v0 prover (top, ~7%)", path: `${V0}?prover=${TOP_PROVER}` },
  { name: "v0 prover (rank 100)", path: `${V0}?prover=${TYPICAL_PROVER}` },
  { name: "v0 one-month window", path: `${V0}?${MONTH}` },
  { name: "v0 city bbox (Berlin)", path: `${V0}?${CITY}` },
  { name: "v0 continent bbox (Europe)", path: `${V0}?${CONTINENT}` },
  { name: "v0 limit=1000", path: `${V0}?limit=1000` },
  { name: "ogc default page (10)", path: `${ITEMS}` },
  { name: "ogc world bbox", path: `${ITEMS}?bbox=-180,-90,180,90` },
  { name: "ogc city bbox (Berlin)", path: `${ITEMS}?${CITY}` },
  { name: "ogc city bbox + datetime", path: `${ITEMS}?${CITY}&datetime=${iso(END.getTime() - 90 * DAY)}/..` },
  { name: "ogc chain=base", path: `${ITEMS}?chain=base` },
  { name: "ogc prover (top)", path: `${ITEMS}?prover=${TOP_PROVER}` },
  { name: "ogc one-month datetime", path: `${ITEMS}?${OGC_MONTH}` },
  { name: "ogc continent bbox (Europe)", path: `${ITEMS}?${CONTINENT}` },
  {
    name: "ogc CQL2 chain='base' AND revoked=false",
    path: `${ITEMS}?${cql("chain = 'base' AND revoked = false")}`,
  },
  { name: "ogc world bbox, limit=1000", path: `${ITEMS}?bbox=-180,-90,180,90&limit=1000` },
  { name: "ogc offset=490 (page 50)", path: `${ITEMS}?offset=490` },
  { name: "shapes city bbox (Berlin)", path: `${SHAPES}?${CITY}` },
  { name: "shapes continent bbox (Europe)", path: `${SHAPES}?${CONTINENT}` },
];

/** With --offchain: request types over both sources (`source=all`), which read the off-chain records too. */
const SOURCE_ALL: RequestType[] = ARGS.offchain
  ? [
      { name: "v0 default page, source=all", path: `${V0}?source=all` },
      { name: "v0 city bbox, source=all", path: `${V0}?${CITY}&source=all` },
      { name: "ogc default page, source=all", path: `${ITEMS}?source=all` },
      { name: "ogc city bbox, source=all", path: `${ITEMS}?${CITY}&source=all` },
    ]
  : [];

/**
 * --offchain: N off-chain records beside the proofs, made of N of them chosen by hash (their places, times, provers
 * and data; a uid of their own, published when attested). Reads never check a record's signature, so the signed
 * original is a placeholder. Their count moves the data version, as a publication does.
 */
async function insertOffchain(n: number): Promise<void> {
  // A bulk write: the maintenance budgets, not a request's statement timeout.
  const { db, close } = await connect(dbUrl, "pg", MAINTENANCE_BUDGETS);
  try {
    const onchain = new Set(Object.values(getTableColumns(locationProofs)).map((c) => c.name));
    const common = Object.values(getTableColumns(offchainRecords))
      .map((c) => c.name)
      .filter((name) => onchain.has(name) && name !== "uid");
    const list = common.map((c) => `"${c}"`).join(", ");
    await db.execute(sql.raw(`truncate offchain_records`));
    await db.execute(
      sql.raw(`
insert into offchain_records (uid, ${list}, offchain_version, domain_version, signed, published_at)
select '0x' || md5('offchain' || uid) || md5('record' || uid), ${list}, 2, '1.3.0', '{}', attestation_time
  from (select * from location_proofs order by md5(uid) limit ${n}) chosen`),
    );
    await db.execute(sql.raw(`vacuum analyze offchain_records`));
  } finally {
    await close();
  }
}

/**
 * Deep offsets: the page half a million rows in, which the service reads by paging the sort keys first and building
 * the page's rows alone (RowsQuery.keysFirst in lib/proofs/rows.ts). Beside HTTP and the service's own statements,
 * the keys-only statement (the inner one: the keys up to the offset, nothing built) is the floor the goal is set by.
 */
const DEEP: RequestType[] = [
  { name: "ogc offset=500000", path: `${ITEMS}?offset=500000` },
  { name: "v0 offset=500000", path: `${V0}?offset=500000` },
];

/**
 * The keys-only statement inside a keys-first page statement (`… where (chain_id, uid) in (select … offset $n)
 * order by …`): its text and its parameters (all of the statement's are the inner statement's, numbered alike).
 */
function keysOnly(statements: Statement[]): Statement {
  for (const s of statements) {
    const config = s.config as { text?: string; values?: unknown[] };
    const text = typeof s.config === "string" ? s.config : config.text;
    const inner = text && / in \((select .+ offset \$\d+)\) order by /s.exec(text)?.[1];
    if (!inner) continue;
    const values = (s.params as unknown[] | undefined) ?? config.values ?? [];
    const numbered = new Set(inner.match(/\$\d+/g));
    if (numbered.size !== values.length) throw new Error("keys-only statement: parameters outside it");
    return { config: { text: inner }, params: values };
  }
  throw new Error("no keys-first statement among the request's statements");
}

/** The common paths whose count must stay fast right after a write: the same filters on either API. */
const AFTER_WRITE: RequestType[] = [
  { api: "v0", path: V0, plain: "default (revoked filter)", month: ["one-month window", MONTH] },
  { api: "ogc", path: ITEMS, plain: "default", month: ["one-month datetime", OGC_MONTH] },
].flatMap((a) =>
  [
    [a.plain, ""],
    ["chain=base", "chain=base"],
    ["prover (top)", `prover=${TOP_PROVER}`],
    a.month,
    ["city bbox", CITY],
    ["continent bbox", CONTINENT],
  ].map(([name, query]) => ({ name: `${a.api} ${name}`, path: query ? `${a.path}?${query}` : a.path })),
);

// ---------------------------------------------------------------------------------------------------------------
// Measurement helpers.

const TICK_MS = 1000 / 100; // Linux USER_HZ
/** A process's own CPU time (utime + stime), from its stat fields. */
const ownMs = (fields: number[]) => (fields[11]! + fields[12]!) * TICK_MS;
const cpuMs = (pid: number) => ownMs(statOf(pid));

/**
 * The CPU time of every PostgreSQL process on this machine (0 when BENCH_DATABASE_URL's server runs elsewhere): the
 * throughput runs share the machine's cores with the database, so the database's CPU per request is part of what
 * bounds them. A backend that exits during a run (a pool closing an idle connection) takes its CPU out of the live
 * processes' sum; the postmaster's children's time (cutime + cstime, added when it reaps them) puts it back.
 */
function postgresCpuMs(): number {
  let total = 0;
  const pids = postgresPids();
  const postmaster = postmasterOf(pids);
  for (const pid of pids) {
    try {
      const fields = statOf(pid);
      total += ownMs(fields);
      // The postmaster: its reaped children's time, cutime + cstime.
      if (pid === postmaster) total += (fields[13]! + fields[14]!) * TICK_MS;
    } catch {
      // The process ended meanwhile.
    }
  }
  return total;
}

/** CPU ms per request of the server (when given), of PostgreSQL and of this process (the client) over `run`. */
async function cpuPerRequest(
  server: number | undefined,
  run: () => Promise<number>,
): Promise<{ requests: number; server: number; postgres: number; client: number }> {
  const [s0, p0, c0] = [server ? cpuMs(server) : 0, postgresCpuMs(), process.cpuUsage()];
  const requests = await run();
  const c = process.cpuUsage(c0);
  return {
    requests,
    server: server ? (cpuMs(server) - s0) / requests : 0,
    postgres: (postgresCpuMs() - p0) / requests,
    client: (c.user + c.system) / 1000 / requests,
  };
}

let base = "";
let floorBase = "";
/**
 * One keep-alive connection, as node-postgres holds one for the SQL side: node:http, not fetch(), whose own
 * request/response machinery (WHATWG streams, header validation) costs the client time per request — a
 * cost of the benchmark's client, which would be counted against the server.
 */
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const floorAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
async function get(path: string, floor = false): Promise<{ ms: number; body: Buffer }> {
  const started = performance.now();
  const body = await getOk(`${floor ? floorBase : base}${path}`, floor ? floorAgent : agent);
  return { ms: performance.now() - started, body };
}

/** Where a link points on this server (links are absolute, with the host the function saw). */
const local = (href: string) => {
  const u = new URL(href);
  return `${u.pathname}${u.search}`;
};

type Page = { uids: string[]; next: string | null; matched?: number };
function pageOf(path: string, body: Buffer): Page {
  const doc = JSON.parse(body.toString("utf8"));
  if (path.startsWith(V0)) {
    return {
      uids: doc.data.map((p: { uid: string }) => p.uid),
      next: doc.pagination.next ? local(doc.pagination.next) : null,
      matched: doc.pagination.total,
    };
  }
  const next = doc.links.find((l: { rel: string }) => l.rel === "next");
  return {
    uids: doc.features.map((f: { id: string }) => f.id),
    next: next ? local(next.href) : null,
    matched: doc.numberMatched,
  };
}

// ---------------------------------------------------------------------------------------------------------------

async function main() {
  const { output, server } = await serveBenchDatabase(DB, ARGS.rows, ARGS.keep, {
    nodeArgs: ARGS["cpu-prof"] ? ["--cpu-prof", "--cpu-prof-dir", ARGS["cpu-prof"]] : [],
  });
  base = server.url;
  const floors = await startFloors(dbUrl, NODE24!);
  const { bare: floor, fn: functionFloor } = floors;
  floorBase = floor.url;
  const handle = await connectInProcess(dbUrl);
  const pool = new pg.Pool({ connectionString: dbUrl, max: 16 });
  const sqlClient = await pool.connect();
  let written = 0;
  const write = async () => {
    written += 1;
    await loadSyntheticProofs(handle.db, { count: 1, from: written, seed: 2, end: new Date() });
  };
  const lines: string[] = [];
  /** Each request type's HTTP p50 (ms), each harvest's time (s) and each tile filter's worst zoom: for --compare. */
  const figures: Record<string, number> = {};
  const say = (line = "") => {
    console.log(line);
    lines.push(line);
  };
  try {
    say(
      `\nbench:scale: ${ARGS.rows.toLocaleString("en")} synthetic proofs, PostgreSQL ${await postgresVersion()}, server: built functions on Node ${server.version}; ${ARGS.iterations} requests per type, each HTTP request followed by the same SQL`,
    );
    say(
      `\n${pad("request", 42)} ${lpad("matched", 9)} ${lpad("HTTP p50", 9)} ${lpad("p99", 7)} ${lpad("SQL p50", 8)} ${lpad("p99", 7)} ${lpad("floor", 6)} ${lpad("ratio", 6)} ${lpad("CPU ms", 7)}  goal p50 <= 1.5xSQL+1`,
    );
    const latency: Latencies = {};
    // A deployed function serves warm under steady traffic (its cold start is bench:cold's figure): every request
    // type runs --warm-up times first, as a whole, so that the code all of them share is compiled by the JIT before any
    // is timed. (Five requests each had left the first types timed on unoptimised code: twice the CPU.) The write
    // section's requests are among them.
    const warmUp = async () => {
      for (let round = 0; round < ARGS["warm-up"]; round++) {
        for (const r of [...REQUESTS, ...SOURCE_ALL]) await get(r.path).catch(() => undefined);
      }
    };
    if (runs("latency") || runs("write")) await warmUp();
    const latencyRound = async (latency: Latencies) => {
      for (const r of runs("latency") ? [...REQUESTS, ...SOURCE_ALL] : []) {
        const recorded = await statementsOf(r.path).catch((error: Error) => error);
        if (recorded instanceof Error) {
          say(`${pad(r.name, 42)} FAILED: ${recorded.message.slice(0, 120)}`);
          continue;
        }
        const { statements } = recorded;
        await floors.set(recorded);
        const http: number[] = [];
        const sqlTimes: number[] = [];
        const floorTimes: number[] = [];
        let cpu = 0;
        let last: Page | undefined;
        let failure = "";
        for (let i = -10; i < ARGS.iterations && !failure; i++) {
          const before = cpuMs(server.pid);
          const res = await get(r.path).catch((error: Error) => error);
          if (res instanceof Error) {
            failure = res.message.slice(0, 120);
            break;
          }
          if (i < 0) {
            await replay(sqlClient, statements); // warm-up
            continue;
          }
          cpu += cpuMs(server.pid) - before;
          http.push(res.ms);
          if (i === 0) last = pageOf(r.path, res.body);
          const started = performance.now();
          await replay(sqlClient, statements);
          sqlTimes.push(performance.now() - started);
          floorTimes.push((await get(r.path, true)).ms);
        }
        if (failure) {
          say(`${pad(r.name, 42)} FAILED: ${failure}`);
          continue;
        }
        const [h50, h99, s50, s99] = [
          percentile(http, 0.5),
          percentile(http, 0.99),
          percentile(sqlTimes, 0.5),
          percentile(sqlTimes, 0.99),
        ];
        latency[r.name] = { http: h50, sql: s50 };
        figures[r.name] ??= h50;
        const matched = last?.matched === undefined ? "omitted" : String(last.matched);
        say(
          `${pad(r.name, 42)} ${lpad(matched, 9)} ${lpad(f1(h50), 9)} ${lpad(f1(h99), 7)} ${lpad(f1(s50), 8)} ${lpad(f1(s99), 7)} ${lpad(f1(percentile(floorTimes, 0.5)), 6)} ${lpad((h50 / s50).toFixed(2), 6)} ${lpad((cpu / ARGS.iterations).toFixed(2), 7)}  ${h50 <= 1.5 * s50 + 1 ? "met" : "MISSED"}`,
        );
      }
    };
    if (ARGS.offchain && runs("latency")) await handle.db.execute(sql`truncate offchain_records`);
    await latencyRound(latency);
    if (ARGS.offchain && runs("latency")) {
      // --rounds R: the two states take turns R times (without, with, without, …), each type's ratio the median of
      // its rounds, so a drift of the machine's load falls on both states alike.
      const without: Latencies[] = [latency];
      const beside: Latencies[] = [];
      for (let round = 0; round < ARGS.rounds; round++) {
        if (round > 0) {
          await handle.db.execute(sql`truncate offchain_records`);
          say(`\nRound ${round + 1}, without off-chain records:`);
          await warmUp();
          const again: Latencies = {};
          await latencyRound(again);
          without.push(again);
        }
        const started = performance.now();
        await insertOffchain(ARGS.offchain);
        say(
          `\n${ARGS.rounds > 1 ? `Round ${round + 1}, the` : "The"} same with ${ARGS.offchain.toLocaleString("en")} off-chain records beside the proofs (inserted in ${((performance.now() - started) / 1000).toFixed(1)} s):`,
        );
        await warmUp();
        const withRecords: Latencies = {};
        await latencyRound(withRecords);
        beside.push(withRecords);
      }
      const ratioOf = (rounds: Latencies[], name: string) => {
        const ratios = rounds
          .flatMap((r) => (r[name] ? [r[name].http / r[name].sql] : []))
          .sort((x, y) => x - y);
        const mid = ratios.length / 2;
        // The median; of an even number, the mean of the middle two.
        return ratios.length ? (ratios[Math.floor(mid)]! + ratios[Math.ceil(mid) - 1]!) / 2 : undefined;
      };
      say(
        `\nHTTP/SQL p50 ratio without and with ${ARGS.offchain.toLocaleString("en")} off-chain records${ARGS.rounds > 1 ? ` (each the median of ${ARGS.rounds} rounds)` : ""}; goal: each within 10 %`,
      );
      for (const name of Object.keys(latency)) {
        const [a, b] = [ratioOf(without, name), ratioOf(beside, name)];
        if (a === undefined || b === undefined) continue;
        const change = (100 * (b - a)) / a;
        say(
          `${pad(name, 42)} ${lpad(a.toFixed(2), 6)} ${lpad(b.toFixed(2), 6)} ${lpad(`${change >= 0 ? "+" : ""}${change.toFixed(1)} %`, 9)}  ${Math.abs(change) <= 10 ? "met" : "MISSED"}`,
        );
      }
      await handle.db.execute(sql`truncate offchain_records`);
    }

    if (runs("latency")) {
      say(
        `\nDeep offsets (${ARGS["deep-iterations"]} requests each): HTTP, the service's SQL and its keys-only statement, each request followed by both`,
      );
      say(
        `${pad("request", 42)} ${lpad("matched", 9)} ${lpad("HTTP p50", 9)} ${lpad("SQL p50", 8)} ${lpad("keys p50", 9)} ${lpad("ratio", 6)}  goal HTTP p50 <= 1.5xkeys+1`,
      );
    }
    for (const r of runs("latency") ? DEEP : []) {
      const recorded = await statementsOf(r.path).catch((error: Error) => error);
      if (recorded instanceof Error) {
        say(`${pad(r.name, 42)} FAILED: ${recorded.message.slice(0, 120)}`);
        continue;
      }
      const keys = keysOnly(recorded.statements);
      const http: number[] = [];
      const sqlTimes: number[] = [];
      const keysTimes: number[] = [];
      let matched = "";
      for (let i = -2; i < ARGS["deep-iterations"]; i++) {
        const res = await get(r.path);
        let started = performance.now();
        await replay(sqlClient, recorded.statements);
        const sqlMs = performance.now() - started;
        started = performance.now();
        await replay(sqlClient, [keys]);
        const keysMs = performance.now() - started;
        if (i < 0) continue;
        if (i === 0) matched = String(pageOf(r.path, res.body).matched);
        http.push(res.ms);
        sqlTimes.push(sqlMs);
        keysTimes.push(keysMs);
      }
      const [h50, s50, k50] = [percentile(http, 0.5), percentile(sqlTimes, 0.5), percentile(keysTimes, 0.5)];
      figures[r.name] = h50;
      say(
        `${pad(r.name, 42)} ${lpad(matched, 9)} ${lpad(f1(h50), 9)} ${lpad(f1(s50), 8)} ${lpad(f1(k50), 9)} ${lpad((h50 / k50).toFixed(2), 6)}  ${h50 <= 1.5 * k50 + 1 ? "met" : "MISSED"}`,
      );
    }

    if (runs("orders"))
      Object.assign(
        figures,
        await ordersSection(
          say,
          get,
          sqlClient,
          handle,
          Math.min(ARGS.iterations, 20),
          Math.min(ARGS["warm-up"], 5),
        ),
      );
    if (runs("tiles")) {
      for (const [name, worst] of Object.entries(await tilesSection(say, get, Math.min(ARGS.iterations, 9))))
        figures[`tiles ${name}`] = worst;
      await writeCostLine(say, handle);
    }

    say(
      `\nHarvest through next links (limit=1000), each uid exactly once; then first/middle/last page p50, interleaved`,
    );
    for (const start of runs("harvest") ? [`${V0}?limit=1000`, `${ITEMS}?limit=1000`] : []) {
      const seen = new Set<string>();
      const visited: string[] = [];
      let duplicates = 0;
      let path: string | null = start;
      let expected: number | undefined;
      const started = performance.now();
      let complete = true;
      while (path) {
        if (performance.now() - started > ARGS["harvest-budget"] * 1000) {
          complete = false;
          break;
        }
        visited.push(path);
        const page = pageOf(path, (await get(path)).body);
        expected ??= page.matched;
        for (const uid of page.uids) {
          if (seen.has(uid)) duplicates++;
          seen.add(uid);
        }
        path = page.next;
      }
      const seconds = (performance.now() - started) / 1000;
      if (complete) figures[`harvest ${start}`] = seconds;
      say(
        `${pad(start, 50)} ${complete ? "complete" : `STOPPED after ${ARGS["harvest-budget"]} s`}: ${visited.length} pages, ${seen.size.toLocaleString("en")} proofs (${expected?.toLocaleString("en")} matched), ${duplicates} duplicates, ${seconds.toFixed(1)} s  goal <= 60 s: ${complete && seconds <= 60 ? "met" : "MISSED"}`,
      );
      const pages = {
        first: visited[0]!,
        middle: visited[Math.floor(visited.length / 2)]!,
        last: visited.at(-1)!,
      };
      const times: Record<string, number[]> = { first: [], middle: [], last: [] };
      for (let i = 0; i < 20; i++)
        for (const [k, p] of Object.entries(pages)) times[k]!.push((await get(p)).ms);
      const [first, middle, lastP] = [
        percentile(times.first!, 0.5),
        percentile(times.middle!, 0.5),
        percentile(times.last!, 0.5),
      ];
      say(
        `   first page p50 ${f1(first)} ms, middle ${f1(middle)} ms (${(middle / first).toFixed(2)}x), last ${f1(lastP)} ms (${(lastP / first).toFixed(2)}x)  goal <= 1.5x: ${Math.max(middle, lastP) <= 1.5 * first ? "met" : "MISSED"}`,
      );
    }

    say(`\nRight after a write (one proof inserted before each request): HTTP p50 / p99, goal p50 <= 50 ms`);
    for (const r of runs("write") ? AFTER_WRITE : []) {
      const http: number[] = [];
      let failed = "";
      for (let i = 0; i < Math.max(10, Math.floor(ARGS.iterations / 4)) && !failed; i++) {
        await write();
        const res = await get(r.path).catch((error: Error) => error);
        if (res instanceof Error) failed = res.message.slice(0, 120);
        else http.push(res.ms);
      }
      if (failed) {
        say(`${pad(r.name, 42)} FAILED: ${failed}`);
        continue;
      }
      const p50 = percentile(http, 0.5);
      say(
        `${pad(r.name, 42)} ${lpad(f1(p50), 8)} ms ${lpad(f1(percentile(http, 0.99)), 8)} ms  ${p50 <= 50 ? "met" : "MISSED"}`,
      );
    }
    // The proofs written above are taken out again: the data is as loaded for the throughput runs and for the next
    // run with --keep (which reuses the database only while it holds exactly the N proofs loaded).
    if (written > 0) {
      await handle.db.execute(sql`delete from location_proofs where uid in ${syntheticUids(2, 1, written)}`);
      written = 0;
    }

    /**
     * One throughput table under `heading`: every request type at 16 connections, HTTP, the two floors (a bare
     * node:http server, and a function in the Web signature served as the service's are) and the SQL.
     */
    const throughput = async (heading: string) => {
      say(`\n${heading}`);
      say(
        `${pad("request", 30)} ${lpad("HTTP", 6)} ${lpad("", 5)} ${lpad("floor", 6)} ${lpad("", 5)} ${lpad("fn floor", 8)} ${lpad("", 5)} ${lpad("SQL", 6)}   ${pad("CPU HTTP", 14)}  ${pad("CPU floor", 14)}  ${pad("CPU fn floor", 14)}  CPU SQL`,
      );
      for (const name of [
        "ogc default page (10)",
        "ogc city bbox (Berlin)",
        "v0 default page (100)",
        "v0 city bbox (Berlin)",
      ]) {
        const r = REQUESTS.find((x) => x.name === name)!;
        const recorded = await statementsOf(r.path);
        const { statements } = recorded;
        await floors.set(recorded);
        let failed = 0;
        /** autocannon at 16 connections against `url` for --duration seconds, and the CPU per request of `pid` meanwhile. */
        const load = (pid: number, url: string) =>
          cpuPerRequest(pid, async () => {
            const result = await autocannon({ url, connections: 16, duration: ARGS.duration });
            failed += result.non2xx + result.errors;
            return result.requests.total;
          });
        const http = await load(server.pid, `${base}${r.path}`);
        const floored = await load(floor.pid, floor.urlFor(r.path));
        const functionFloored = await load(functionFloor.pid, functionFloor.urlFor(r.path));
        const raw = await cpuPerRequest(undefined, async () => {
          let done = 0;
          const until = performance.now() + ARGS.duration * 1000;
          await Promise.all(
            Array.from({ length: 16 }, async () => {
              const client = await pool.connect();
              try {
                while (performance.now() < until) {
                  await replay(client, statements);
                  done++;
                }
              } finally {
                client.release();
              }
            }),
          );
          return done;
        });
        const [httpRps, floorRps, functionFloorRps, sqlRps] = [http, floored, functionFloored, raw].map(
          (x) => x.requests / ARGS.duration,
        ) as [number, number, number, number];
        const percent = (rps: number) => `${((100 * rps) / sqlRps).toFixed(0)}%`;
        const split = (x: { server: number; postgres: number; client: number }, server = true) =>
          [server ? x.server.toFixed(2) : "-", x.postgres.toFixed(2), x.client.toFixed(2)].join("/");
        const rate = (rps: number, width: number) =>
          `${lpad(rps.toFixed(0), width)} ${lpad(percent(rps), 5)}`;
        say(
          `${pad(name, 30)} ${rate(httpRps, 6)} ${rate(floorRps, 6)} ${rate(functionFloorRps, 8)} ${lpad(sqlRps.toFixed(0), 6)}   ${pad(split(http), 14)}  ${pad(split(floored), 14)}  ${pad(split(functionFloored), 14)}  ${pad(split(raw, false), 14)}  ${httpRps >= 0.6 * sqlRps ? "met" : "MISSED"}${failed ? ` (${failed} failed)` : ""}`,
        );
      }
    };
    if (runs("throughput")) {
      const what = `${ARGS.duration} s each: HTTP (autocannon), the bare floor and the function floor vs the same SQL (16 node-postgres connections);\nCPU ms per request of the server / PostgreSQL / the client (autocannon, or node-postgres for SQL), goal HTTP >= 60% of SQL`;
      await throughput(
        `Throughput at 16 connections, all on the machine's ${availableParallelism()} CPUs, ${what}`,
      );
      // Deployed, the database has a host of its own: the same runs with PostgreSQL on CPUs the rest do not use.
      const why = cannotSeparate();
      if (why) say(`\nThroughput with PostgreSQL on CPUs of its own: skipped (${why})`);
      else {
        const cores = separateCores([server.pid, floor.pid, functionFloor.pid]);
        try {
          await throughput(
            `Throughput at 16 connections, PostgreSQL on CPU ${cores.database}, the server, the floors and the client on CPU ${cores.application} (as deployed: the database on a host of its own), ${what}`,
          );
        } finally {
          cores.restore();
        }
      }
    }
    const worst = Object.entries(latency).sort((a, b) => b[1].http / b[1].sql - a[1].http / a[1].sql)[0];
    if (worst)
      say(`\nhighest HTTP/SQL p50 ratio: ${worst[0]} (${(worst[1].http / worst[1].sql).toFixed(2)})`);
    compareRuns(say, figures);
  } finally {
    sqlClient.release();
    await pool.end();
    await handle.close();
    agent.destroy();
    floorAgent.destroy();
    await floors.stop();
    await server.stop();
    output.remove();
    if (!ARGS.keep) await admin(`drop database if exists ${DB} with (force)`);
  }
}

/**
 * Keeps this run's figures (artifacts/, not in git) and, with --compare M, prints them beside the run of M proofs:
 * each request type's HTTP p50 (goal: at ten times the proofs, at most 1.25 times the p50), each harvest's time (goal:
 * at most 1.2 times the proofs' ratio) and each tile filter's worst zoom (goal: 50 ms whatever the size).
 */
function compareRuns(say: (line?: string) => void, figures: Record<string, number>): void {
  mkdirSync(join(ROOT, "artifacts"), { recursive: true });
  const file = (rows: number) => join(ROOT, "artifacts", `bench-scale-${rows}.json`);
  const previous = existsSync(file(ARGS.rows))
    ? (JSON.parse(readFileSync(file(ARGS.rows), "utf8")) as Record<string, number>)
    : {};
  writeFileSync(file(ARGS.rows), JSON.stringify({ ...previous, ...figures }, null, 1));
  if (!ARGS.compare) return;
  if (!existsSync(file(ARGS.compare))) {
    say(`\n--compare ${ARGS.compare}: no run of that size on this machine (${file(ARGS.compare)})`);
    return;
  }
  const other = JSON.parse(readFileSync(file(ARGS.compare), "utf8")) as Record<string, number>;
  const scale = ARGS.rows / ARGS.compare;
  say(
    `\n${ARGS.rows.toLocaleString("en")} proofs beside ${ARGS.compare.toLocaleString("en")} (${scale}x): HTTP p50 ms, harvest s, tiles' worst zoom ms`,
  );
  say(`${pad("request", 50)} ${lpad("then", 8)} ${lpad("now", 8)} ${lpad("ratio", 6)}  goal`);
  for (const [name, now] of Object.entries(figures)) {
    const then = other[name];
    if (then === undefined) continue;
    const ratio = now / then;
    const [goal, met] = name.startsWith("harvest ")
      ? [`<= ${(1.2 * scale).toFixed(1)}x`, ratio <= 1.2 * scale]
      : name.startsWith("tiles ")
        ? ["<= 50 ms", now <= 50]
        : ["<= 1.25x", ratio <= 1.25];
    say(
      `${pad(name, 50)} ${lpad(f1(then), 8)} ${lpad(f1(now), 8)} ${lpad(ratio.toFixed(2), 6)}  ${goal}: ${met ? "met" : "MISSED"}`,
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
