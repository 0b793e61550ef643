/**
 * Hostile requests at scale, as deployed: `npm run bench:hostile [-- options]` (issue 32's goals).
 *
 * Goals, for every request kind, the hostile ones included: server time p99 ≤ the request budget (REQUEST_BUDGET_MS,
 * 10,000 ms by default), and the peak memory of one request ≤ 64 MB. Printed for the worst case of each kind.
 *
 * 1. A database of its own (`lpqs_bench_hostile` on BENCH_DATABASE_URL's server, or BENCH_HOSTILE_DB), holding N
 *    synthetic proofs of bench:scale's data set (seed 1): reused when it already holds them, loaded otherwise, kept
 *    after the run (--drop drops it).
 * 2. Oversized proofs added to it for the run, of a prover of their own (OVERSIZED_PROVER), and deleted after it, so
 *    that a later run (or bench:scale on a copy) finds the data as loaded: HUGE proofs whose memo, location, media
 *    and application fields are each about a megabyte and whose geometry is several (what anyone registering a
 *    location schema may attest), and AT_BOUND proofs whose values are each as large as a list carries them
 *    (lib/bounds/limits.ts: TEXT_CHARS, JSON_BYTES, GEOMETRY_BYTES), so that a page of them ends at PAGE_BYTES.
 *    Their event times lie inside the synthetic data's span, so the ordinary kinds' pages do not meet them; the
 *    oversized kind asks for them by prover and by uid.
 * 3. The built functions (`npm run build`'s output) on Node 24 (`npm ci --prefix .ci/node24`), served in a child
 *    process as every benchmark serves them (scripts/vercel-output/server.ts), wrapped by bench/memory-server.ts,
 *    which adds a control port for the memory figures and runs the server with --expose-gc.
 * 4. For each kind (tests/http/hostile-input.test.ts generates the same kinds at random; here they are fixed lists
 *    of variants leaning to the worst case: largest pages, widest accepted queries, lowest zooms, farthest cursors):
 *    every variant once first (the JIT warm, as a function under steady traffic), then
 *    - time: --iterations requests one at a time on a kept-alive connection, cycling through the kind's variants.
 *      Server time is the HTTP time measured here, from the request's first byte sent to the response's last byte
 *      read: the service sets no Server-Timing header. p50, p99 and the worst, against the budget.
 *    - memory: every variant --memory-repeats times (the heap's peak moves with where the collections fall, so one
 *      request per variant can miss it), one at a time, each request between a /start and
 *      a /stop of the control port (bench/memory-server.ts). "Peak memory of one request" is how far the server
 *      process's memory rose above what it held right before the request, after two full collections: the larger
 *      of (a) the rise of its resident set, VmHWM after the request minus VmRSS before it, the kernel's own peak
 *      (reset through /proc/self/clear_refs), so every byte of the process counts (V8's heap, Buffers, the
 *      driver, native code) but memory V8 had committed before and reused is not seen; and (b) the rise of V8's
 *      heap in use plus its external memory (ArrayBuffers included), sampled every 2 ms and before every collection
 *      during the request, which sees that reuse. Both are lower bounds of the true peak; the goal is judged on the
 *      larger. The figure is the maximum over the kind's requests.
 *    Status codes seen and the largest body are printed beside; p99 / budget and peak / 64 MB are the ratios to the
 *    goals (no floor makes sense for a budget: the ordinary kinds are the comparison).
 * 5. The final table, as docs/performance.md's "Hostile requests" section shows it.
 *
 * Options: --rows N (1,000,000), --iterations K (per kind, for p99: 100), --memory-repeats R (each variant's
 * requests for memory: 3), --drop (drop the database after the run).
 */
import http from "node:http";
import { loadavg } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { parse } from "graphql/index.mjs";
import { connect, MAINTENANCE_BUDGETS, queryRows } from "../db/client.js";
import { GEOMETRY_BYTES, JSON_BYTES, TEXT_CHARS } from "../lib/bounds/limits.js";
import { loadConfig } from "../lib/config.js";
import { freePort } from "../lib/devnet/index.js";
import { limitErrors } from "../lib/graphql/limits.js";
import { camelCase } from "../lib/graphql/proof-type.js";
import { syntheticAddress } from "../lib/local/synthetic-proofs.js";
import { cursorToken } from "../lib/proofs/cursor.js";
import { PROOF_PROPERTIES, SORTABLE_PROPERTIES } from "../lib/proofs/properties.js";
import { DISTANCE, orderSignature } from "../lib/proofs/sort.js";
import { builtOutputCopy, serveScript } from "../scripts/vercel-output/emulate.js";
import {
  admin,
  benchArgs,
  benchDatabase,
  benchDatabaseUrl,
  DAY,
  END,
  iso,
  postgresVersion,
  ROOT,
  requireNode24,
  send,
  servedEnv,
} from "./common.js";
import { f1, lpad, pad, percentile } from "./figures.js";

const ARGS = benchArgs({
  numbers: { rows: 1_000_000, iterations: 100, "memory-repeats": 3 },
  flags: ["drop"],
});
if (ARGS.iterations < 100)
  console.log(`note: --iterations ${ARGS.iterations} < 100: p99 is the worst request`);
const DB = process.env.BENCH_HOSTILE_DB ?? "lpqs_bench_hostile";
const dbUrl = benchDatabaseUrl(DB);
const NODE24 = requireNode24();
/** The budget the served functions run with: the default, or REQUEST_BUDGET_MS passed on to them. */
const BUDGET_ENV: Record<string, string> = process.env.REQUEST_BUDGET_MS
  ? { REQUEST_BUDGET_MS: process.env.REQUEST_BUDGET_MS }
  : {};
const BUDGET_MS = loadConfig(BUDGET_ENV).requestBudgetMs;
const MEMORY_GOAL_MB = 64;
const MB = 1024 * 1024;

// ---------------------------------------------------------------------------------------------------------------
// The oversized proofs.

/** The prover (and subject) of the oversized proofs: no synthetic address (md5-derived) is this one. */
const OVERSIZED_PROVER = `0x${"b0".repeat(20)}`;
const oversizedUid = (i: number) => `0x${"ba".repeat(30)}${i.toString(16).padStart(4, "0")}`;
const HUGE = 5;
const AT_BOUND = 40;
/** A megabyte: each attested value of a HUGE proof. */
const HUGE_CHARS = MB;
/**
 * Points of a HUGE proof's line (a few MB of GeoJSON) and of an AT_BOUND one's: just under GEOMETRY_BYTES, at about
 * 30 bytes of jsonb text a point.
 */
const HUGE_POINTS = 110_000;
const BOUND_POINTS = Math.floor((GEOMETRY_BYTES - 100) / 30);

/**
 * Copies of one synthetic point proof (its chain, schema, times of attestation, decoded columns) with the values
 * of proofs `from`..`to` (1-based) replaced: a line geometry of `points` points starting at the template's point,
 * its bounds, and attested values of `text` characters (location, memo) and about `json` bytes (media, application
 * fields). Written in one statement, the values made by PostgreSQL (repeat), so nothing megabytes long crosses the
 * connection.
 */
async function insertOversized(
  handle: Awaited<ReturnType<typeof connect>>,
  template: string,
  from: number,
  to: number,
  size: { text: number; json: number; points: number },
): Promise<void> {
  const columns = (
    await queryRows<{ name: string }>(
      handle.db,
      sql`select column_name as name from information_schema.columns where table_schema = 'public' and table_name = 'location_proofs' and is_generated = 'NEVER' order by ordinal_position`,
    )
  ).map((c) => c.name);
  const eventTime = `(timestamptz '${iso(END.getTime() - 200 * DAY)}' + g * interval '1 second')`;
  // A JSON string of n characters in an array or object is n + a few bytes of JSON.
  const jsonChars = size.json - 64;
  const overrides: Record<string, string> = {
    uid: `'0x' || repeat('ba', 30) || lpad(to_hex(g), 4, '0')`,
    prover: `'${OVERSIZED_PROVER}'`,
    subject: `'${OVERSIZED_PROVER}'`,
    event_timestamp: eventTime,
    event_timestamp_raw: `extract(epoch from ${eventTime})::bigint::numeric`,
    memo: `left('oversized ' || g || ' ' || repeat('m', ${size.text}), ${size.text})`,
    location: `repeat('L', ${size.text})`,
    decode_warning: "null",
    media_type: `'["image/png"]'::jsonb`,
    media_data: `jsonb_build_array('data:image/png;base64,' || repeat('A', ${jsonChars}))`,
    application_fields: `jsonb_build_object('blob', repeat('b', ${jsonChars}))`,
    geometry: `(select jsonb_build_object('type', 'LineString', 'coordinates', jsonb_agg(jsonb_build_array(t.longitude + k * 0.00001, t.latitude + (k % 2) * 0.00001) order by k)) from generate_series(0, ${size.points - 1}) as k)`,
    min_lon: "t.longitude",
    max_lon: `t.longitude + ${size.points - 1} * 0.00001`,
    min_lat: "t.latitude",
    max_lat: "t.latitude + 0.00001",
    indexed_at: "now()",
  };
  const unknown = Object.keys(overrides).filter((c) => !columns.includes(c));
  if (unknown.length) throw new Error(`location_proofs has no column ${unknown.join(", ")}`);
  const select = columns.map((c) => overrides[c] ?? `t.${c}`).join(", ");
  await handle.db.execute(
    sql.raw(
      `insert into location_proofs (${columns.join(", ")}) select ${select} from location_proofs t, generate_series(${from}, ${to}) as g where t.uid = '${template}'`,
    ),
  );
}

async function addOversized(handle: Awaited<ReturnType<typeof connect>>): Promise<void> {
  const [template] = await queryRows<{ uid: string }>(
    handle.db,
    sql`select uid from location_proofs where geometry->>'type' = 'Point' and media_data is not null and event_timestamp is not null and longitude between -170 and 170 order by uid limit 1`,
  );
  if (!template) throw new Error("no point proof to copy");
  await insertOversized(handle, template.uid, 1, HUGE, {
    text: HUGE_CHARS,
    json: HUGE_CHARS,
    points: HUGE_POINTS,
  });
  await insertOversized(handle, template.uid, HUGE + 1, HUGE + AT_BOUND, {
    text: TEXT_CHARS,
    json: JSON_BYTES,
    points: BOUND_POINTS,
  });
  const sizes = await queryRows<{ huge: boolean; n: number; memo: number; media: number; geometry: number }>(
    handle.db,
    sql`select uid <= ${oversizedUid(HUGE)} as huge, count(*)::int as n, max(length(memo))::int as memo,
      max(octet_length(media_data::text))::int as media, max(octet_length(geometry::text))::int as geometry
      from location_proofs where prover = ${OVERSIZED_PROVER} group by 1 order by 1 desc`,
  );
  for (const s of sizes)
    console.log(
      `added ${s.n} ${s.huge ? "huge" : "at-bound"} proofs: memo and location ${s.memo.toLocaleString("en")} chars, media ${s.media.toLocaleString("en")} B of JSON, geometry ${s.geometry.toLocaleString("en")} B`,
    );
}

/** Takes the oversized proofs out again (also what a run that stopped half-way left). */
async function removeOversized(): Promise<void> {
  const [exists] = await admin(`select 1 as x from pg_database where datname = '${DB}'`);
  if (!exists) return;
  const handle = await connect(dbUrl, "pg", MAINTENANCE_BUDGETS);
  try {
    await handle.db.execute(sql`delete from location_proofs where prover = ${OVERSIZED_PROVER}`);
  } catch (error) {
    // A database from before the migrations may lack the table: benchDatabase loads it anew.
    if (!/does not exist/.test(String(error))) throw error;
  } finally {
    await handle.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The kinds and their variants.

type Variant = { label: string; path: string; body?: string };
type Kind = { name: string; hostile: boolean; variants: Variant[] };

const V0 = "/api/v0/location-proofs";
const ITEMS = "/api/ogc/collections/location-proofs/items";
const SHAPES = "/api/ogc/collections/location-proof-shapes/items";
const TILES = "/api/ogc/collections/location-proofs/tiles/WebMercatorQuad";
const TOP_PROVER = syntheticAddress("p", 1);
const TOP_SUBJECT = syntheticAddress("s", 1);
const day = (days: number) => new Date(END.getTime() - days * DAY).toISOString().slice(0, 10);
const enc = encodeURIComponent;
const get = (label: string, path: string): Variant => ({ label, path });
const graphql = (label: string, query: string): Variant => ({
  label,
  path: "/graphql",
  body: JSON.stringify({ query }),
});

/** The tile of zoom z holding a point, as bench:tiles computes it. */
function tileAt(lon: number, lat: number, z: number): string {
  const n = 2 ** z;
  const s = Math.sin((lat * Math.PI) / 180);
  const y = Math.min(n - 1, Math.max(0, Math.floor((0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * n)));
  return `${z}/${Math.min(n - 1, Math.floor(((lon + 180) / 360) * n))}/${y}`;
}

/**
 * Wide GraphQL queries: the test's shapes (roots × `nodes` keys × aliases × `first`, the heavy fields or every
 * field), each checked against the service's own limits (lib/graphql/limits.ts): the accepted ones that ask for
 * the most, and two the limits refuse (the test's widest, and `first` past the largest page).
 */
function wideGraphql(): Variant[] {
  const heavy = ["memo", "location", "mediaData", "applicationFields", "geometry", "uid"];
  const all = PROOF_PROPERTIES.map((q) => camelCase(q.name));
  const query = (roots: number, nodes: number, names: number, first: number, fields: string[]) => {
    const selection = fields
      .flatMap((f) => Array.from({ length: names }, (_, i) => `${f}${i}: ${f}`))
      .join(" ");
    const keys = Array.from({ length: nodes }, (_, i) => `n${i}: nodes { ${selection} }`).join(" ");
    return `{ ${Array.from({ length: roots }, (_, i) => `p${i}: locationProofs(first: ${first}) { ${keys} pageInfo { hasNextPage } }`).join(" ")} }`;
  };
  const accepted: { cost: number; variant: Variant }[] = [];
  for (const roots of [1, 2, 4])
    for (const nodes of [1, 2, 4])
      for (const names of [1, 2, 4])
        for (const first of [1000, 250, 100])
          for (const [set, fields] of [
            ["heavy", heavy],
            ["all", all],
          ] as const) {
            const text = query(roots, nodes, names, first, [...fields]);
            let document: ReturnType<typeof parse>;
            try {
              document = parse(text, { maxTokens: 5000 });
            } catch {
              continue;
            }
            const operation = document.definitions[0]! as Parameters<typeof limitErrors>[1];
            if (limitErrors(document, operation, {}).length) continue;
            const cost = roots * nodes * names * first * fields.length;
            accepted.push({
              cost,
              variant: graphql(
                `${roots} root${roots > 1 ? "s" : ""} × ${nodes} nodes × ${names} names, first ${first}, ${set}`,
                text,
              ),
            });
          }
  accepted.sort((a, b) => b.cost - a.cost);
  return [
    ...accepted.slice(0, 8).map((a) => a.variant),
    graphql("6 × 6 × 6, first 1000, heavy (refused)", query(6, 6, 6, 1000, heavy)),
    graphql("1 root, first 1001 (refused)", query(1, 1, 1, 1001, heavy)),
  ];
}

/** A nearest-first cursor written by hand (its checksum valid): any distance, a uid and chain no proof has. */
const nearestCursor = (distance: number, position: number) =>
  cursorToken(
    orderSignature({ sort: [{ field: DISTANCE, descending: false }], located: [] }),
    "next",
    position,
    [distance, `0x${"c3".repeat(32)}`, 8453],
  );

async function kinds(ordinaryUids: string[]): Promise<Kind[]> {
  const oversizedBy = `prover=${OVERSIZED_PROVER}&limit=1000`;
  const heavyFields = "uid memo location mediaData applicationFields geometry";
  const oversized: Variant[] = [
    get("v0 list", `${V0}?${oversizedBy}`),
    get("v0 records list", `/api/v0/location-records?${oversizedBy}`),
    get("v0 list, HTML", `${V0}?${oversizedBy}&f=html`),
    get("OGC items", `${ITEMS}?${oversizedBy}`),
    get("OGC shapes, JSON-FG", `${SHAPES}?${oversizedBy}&f=jsonfg`),
    get("OGC shapes, HTML", `${SHAPES}?${oversizedBy}&f=html`),
    get("v0 by uid (huge)", `${V0}/${oversizedUid(1)}`),
    get("OGC item by uid (huge)", `${ITEMS}/${oversizedUid(2)}`),
    get("OGC shape by uid (huge)", `${SHAPES}/${oversizedUid(3)}`),
    get("OGC item by uid, HTML (huge)", `${ITEMS}/${oversizedUid(4)}?f=html`),
    graphql(
      "GraphQL first 1000, heavy fields",
      `{ locationProofs(first: 1000, filter: { prover: "${OVERSIZED_PROVER}" }) { nodes { ${heavyFields} } } }`,
    ),
    graphql("GraphQL by uid (huge)", `{ locationProof(uid: "${oversizedUid(5)}") { ${heavyFields} } }`),
  ];

  const tiles = [tileAt(0, 0, 0), tileAt(100, 40, 1), tileAt(10, 45, 2), tileAt(120, 30, 2)];
  const tileFilters: [string, string][] = [
    ["datetime last 7 days", `datetime=${day(7)}/..`],
    ["datetime last year", `datetime=${day(365)}/..`],
    ["datetime closed 2 years", `datetime=${day(730)}/${day(1)}`],
    ["prover (top)", `prover=${TOP_PROVER}`],
    ["prover (rank 100)", `prover=${syntheticAddress("p", 100)}`],
    ["subject (top)", `subject=${TOP_SUBJECT}`],
    ["CQL2 memo LIKE '%a%'", `filter=${enc("memo LIKE '%a%'")}`],
    ["CQL2 revoked = false AND block_number >= 0", `filter=${enc("revoked = false AND block_number >= 0")}`],
    ["chain=base + datetime ../2100", "chain=base&datetime=../2100-01-01"],
    ["near 0,0, radius max", "near=0,0&radius=20015115"],
  ];
  const lowTiles = tileFilters.flatMap(([name, query]) =>
    tiles.map((t) => get(`${t} ${name}`, `${TILES}/${t}?${query}`)),
  );

  const far: Variant[] = [];
  for (const near of ["-150,-30", "0,90", "13.4,52.5", "180,-90"])
    for (const [distance, position] of [
      [1e7, 10_000],
      [2.0e7, Number.MAX_SAFE_INTEGER],
      [4.45e5, 0],
    ] as const) {
      const cursor = nearestCursor(distance, position);
      far.push(
        get(
          `v0 near ${near}, cursor at ${distance} m`,
          `${V0}?near=${near}&radius=20015115&sort=distance&limit=1000&cursor=${cursor}`,
        ),
        get(
          `OGC near ${near}, cursor at ${distance} m`,
          `${ITEMS}?near=${near}&radius=20015115&sortby=distance&limit=1000&cursor=${cursor}`,
        ),
      );
    }
  far.push(
    get("v0 near -150,-30, no cursor", `${V0}?near=-150,-30&radius=20015115&sort=distance&limit=1000`),
    get("OGC near 0,90, no cursor", `${ITEMS}?near=0,90&radius=20015115&sortby=distance&limit=1000`),
  );

  const located = ["", "&bbox=-180,-90,180,90", "&datetime=../2100-01-01"];
  const sorts: Variant[] = [];
  let n = 0;
  for (const q of SORTABLE_PROPERTIES)
    for (const descending of [false, true])
      for (const [collection, path] of [
        ["items", ITEMS],
        ["shapes", SHAPES],
      ] as const) {
        const extra = located[n++ % located.length]!;
        sorts.push(
          get(
            `${collection} sortby=${descending ? "-" : ""}${q.name}${extra}`,
            `${path}?limit=1000&sortby=${descending ? "-" : ""}${q.name}${extra}`,
          ),
        );
      }

  const uids = ordinaryUids.slice(0, 5);
  return [
    { name: "oversized attested values", hostile: true, variants: oversized },
    { name: "wide GraphQL", hostile: true, variants: wideGraphql() },
    { name: "filtered tile at z0-z2", hostile: true, variants: lowTiles },
    { name: "far nearest-first cursor", hostile: true, variants: far },
    { name: "every sortby at limit=1000", hostile: true, variants: sorts },
    {
      name: "native list",
      hostile: false,
      variants: [get("default page", V0), get("limit=1000", `${V0}?limit=1000`)],
    },
    {
      name: "OGC items",
      hostile: false,
      variants: [get("default page", ITEMS), get("limit=1000", `${ITEMS}?limit=1000`)],
    },
    {
      name: "by uid",
      hostile: false,
      variants: uids.flatMap((u) => [get(`v0 ${u}`, `${V0}/${u}`), get(`OGC ${u}`, `${ITEMS}/${u}`)]),
    },
    {
      name: "tile at z10",
      hostile: false,
      variants: [
        get("Tokyo", `${TILES}/${tileAt(139.6917, 35.6895, 10)}`),
        get("Berlin", `${TILES}/${tileAt(13.405, 52.52, 10)}`),
        get("Tokyo, last 30 days", `${TILES}/${tileAt(139.6917, 35.6895, 10)}?datetime=${day(30)}/..`),
      ],
    },
    {
      name: "stats",
      hostile: false,
      variants: [get("all", `${V0}/stats`), get("protocolVersion=1.0", `${V0}/stats?protocolVersion=1.0`)],
    },
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// Requests.

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const controlAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });

type Answer = { ms: number; status: number; bytes: number };

/** One request over the kept-alive connection, its whole body read; any status. */
async function request(base: string, v: Variant): Promise<Answer> {
  const started = performance.now();
  const { status, body } = await send(`${base}${v.path}`, agent, {
    method: v.body ? "POST" : "GET",
    headers: v.body
      ? { "content-type": "application/json", accept: "application/graphql-response+json" }
      : {},
    ...(v.body ? { body: v.body } : {}),
  });
  return { ms: performance.now() - started, status, bytes: body.length };
}

function control(port: number, what: "start" | "stop"): Promise<{ rssKb: number; heapBytes: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(`http://127.0.0.1:${port}/${what}`, { agent: controlAgent }, (res) => {
        let text = "";
        res.on("data", (c: Buffer) => {
          text += c.toString();
        });
        res.on("end", () =>
          res.statusCode === 200 ? resolve(JSON.parse(text)) : reject(new Error(`/${what}: ${text}`)),
        );
      })
      .on("error", reject);
  });
}

type Result = {
  kind: Kind;
  times: number[];
  worst: { ms: number; label: string };
  statuses: Map<number, number>;
  /** a variant that answered each status other than 200 */
  odd: Map<number, string>;
  bytes: number;
  rssMb: number;
  heapMb: number;
  /** the variants that took the most memory, with their peak MB and their answer's bytes */
  memoryTop: { label: string; mb: number; bytes: number }[];
};

async function measureKind(base: string, port: number, kind: Kind): Promise<Result> {
  const times: number[] = [];
  const statuses = new Map<number, number>();
  const odd = new Map<number, string>();
  const seen = (v: Variant, a: Answer) => {
    statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
    if (a.status !== 200 && !odd.has(a.status)) odd.set(a.status, v.label);
  };
  const worst = { ms: -1, label: "" };
  let bytes = 0;
  for (let i = 0; i < ARGS.iterations; i++) {
    const v = kind.variants[i % kind.variants.length]!;
    const a = await request(base, v);
    times.push(a.ms);
    seen(v, a);
    bytes = Math.max(bytes, a.bytes);
    if (a.ms > worst.ms) Object.assign(worst, { ms: a.ms, label: v.label });
  }
  let rssMb = 0;
  let heapMb = 0;
  const byVariant = new Map<string, { label: string; mb: number; bytes: number }>();
  const count = ARGS["memory-repeats"] * kind.variants.length;
  for (let i = 0; i < count; i++) {
    const v = kind.variants[i % kind.variants.length]!;
    await control(port, "start");
    const a = await request(base, v);
    const m = await control(port, "stop");
    seen(v, a);
    bytes = Math.max(bytes, a.bytes);
    rssMb = Math.max(rssMb, m.rssKb / 1024);
    heapMb = Math.max(heapMb, m.heapBytes / MB);
    const peak = Math.max(m.rssKb / 1024, m.heapBytes / MB);
    const had = byVariant.get(v.label);
    if (!had || peak > had.mb) byVariant.set(v.label, { label: v.label, mb: peak, bytes: a.bytes });
  }
  const memoryTop = [...byVariant.values()].sort((x, y) => y.mb - x.mb).slice(0, 3);
  return { kind, times, worst, statuses, odd, bytes, rssMb, heapMb, memoryTop };
}

// ---------------------------------------------------------------------------------------------------------------

async function main() {
  await removeOversized();
  await benchDatabase(DB, ARGS.rows, true);
  const handle = await connect(dbUrl, "pg", MAINTENANCE_BUDGETS);
  let output: ReturnType<typeof builtOutputCopy> | undefined;
  let server: Awaited<ReturnType<typeof serveScript>> | undefined;
  const load0 = loadavg();
  try {
    await addOversized(handle);
    await handle.db.execute(sql`analyze location_proofs`);
    const ordinary = await queryRows<{ uid: string }>(
      handle.db,
      sql`select uid from location_proofs where prover <> ${OVERSIZED_PROVER} order by event_timestamp desc nulls last limit 5`,
    );
    const list = await kinds(ordinary.map((r) => r.uid));
    output = builtOutputCopy();
    const port = await freePort();
    server = await serveScript(
      join(ROOT, "bench/memory-server.ts"),
      [output.dir],
      NODE24,
      { ...servedEnv(dbUrl), ...BUDGET_ENV, HOSTILE_CONTROL_PORT: String(port) },
      ["--expose-gc"],
    );
    const base = server.url;
    console.log(
      `\nbench:hostile: ${ARGS.rows.toLocaleString("en")} synthetic proofs + ${HUGE} huge and ${AT_BOUND} at-bound ones, PostgreSQL ${await postgresVersion()}, server: built functions on Node ${server.version}; ${ARGS.iterations} timed requests per kind, every variant ${ARGS["memory-repeats"]} times for memory, one at a time; budget ${BUDGET_MS} ms; load average ${load0.map((l) => l.toFixed(2)).join(" ")}`,
    );
    // Every variant once, so that no kind is timed on code the JIT has not seen yet.
    for (const kind of list) for (const v of kind.variants) await request(base, v);

    console.log(
      `\n${pad("kind", 28)} ${lpad("variants", 8)} ${lpad("p50 ms", 8)} ${lpad("p99 ms", 8)} ${lpad("worst", 8)} ${lpad("p99/budget", 10)} ${lpad("RSS +MB", 8)} ${lpad("heap +MB", 9)} ${lpad("peak/64", 8)} ${lpad("max bytes", 10)}  statuses`,
    );
    const results: Result[] = [];
    for (const kind of list) {
      const r = await measureKind(base, port, kind);
      results.push(r);
      const p99 = percentile(r.times, 0.99);
      const peak = Math.max(r.rssMb, r.heapMb);
      console.log(
        `${pad(kind.name, 28)} ${lpad(String(kind.variants.length), 8)} ${lpad(f1(percentile(r.times, 0.5)), 8)} ${lpad(f1(p99), 8)} ${lpad(f1(r.worst.ms), 8)} ${lpad((p99 / BUDGET_MS).toFixed(3), 10)} ${lpad(f1(r.rssMb), 8)} ${lpad(f1(r.heapMb), 9)} ${lpad((peak / MEMORY_GOAL_MB).toFixed(2), 8)} ${lpad(r.bytes.toLocaleString("en"), 10)}  ${[
          ...r.statuses,
        ]
          .sort(([a], [b]) => a - b)
          .map(([s, c]) => `${s}:${c}`)
          .join(" ")}`,
      );
      console.log(
        `${"".padEnd(29)}slowest: ${r.worst.label}; most memory: ${r.memoryTop.map((t) => `${t.label} (${f1(t.mb)} MB, ${t.bytes.toLocaleString("en")} B)`).join(", ")}`,
      );
      for (const [status, label] of r.odd) console.log(`${"".padEnd(29)}${status}: e.g. ${label}`);
    }

    const load1 = loadavg();
    console.log(
      `\n${ARGS.rows.toLocaleString("en")} proofs; load average at the start ${load0.map((l) => l.toFixed(2)).join(" ")}, at the end ${load1.map((l) => l.toFixed(2)).join(" ")}\n`,
    );
    console.log(
      "| kind | p50 ms | p99 ms | worst ms | budget ms | goal p99 met? | peak MB | goal 64 MB met? |\n| --- | --- | --- | --- | --- | --- | --- | --- |",
    );
    for (const r of results) {
      const p99 = percentile(r.times, 0.99);
      const peak = Math.max(r.rssMb, r.heapMb);
      console.log(
        `| ${r.kind.name}${r.kind.hostile ? "" : " (ordinary)"} | ${f1(percentile(r.times, 0.5))} | ${f1(p99)} | ${f1(r.worst.ms)} | ${BUDGET_MS.toLocaleString("en")} | ${p99 <= BUDGET_MS ? "met" : "MISSED"} | ${f1(peak)} | ${peak <= MEMORY_GOAL_MB ? "met" : "MISSED"} |`,
      );
    }
  } finally {
    await server?.stop();
    output?.remove();
    await handle.db.execute(sql`delete from location_proofs where prover = ${OVERSIZED_PROVER}`);
    await handle.close();
    if (ARGS.drop) await admin(`drop database if exists ${DB} with (force)`);
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
