/**
 * GraphQL against the native list, as deployed: `npm run bench:graphql [-- options]`.
 *
 * On bench:scale's database (`lpqs_bench_scale`, a million synthetic proofs: reused when it holds them, loaded
 * otherwise, never dropped), the built functions served on Node 24 as Vercel invokes them (scripts/vercel-output/).
 * For each case, the same page asked both ways: GET /api/v0/location-proofs?… and the GraphQL list query over the
 * same filters (POST /graphql, every field of a proof: the same page, value for value, which is checked first;
 * and the same with a few fields, which is what GraphQL is for). Requests one at a time on a kept-alive connection,
 * the two ways interleaved in rounds so that both meet the same conditions; per way: p50 and p99 of the latency
 * and the server's CPU time per request (from /proc, over the same requests), and GraphQL's ratio to the native
 * request. Goal: a GraphQL list query costs ≤ 1.5 × the native request for the same page (CPU per request, and p50).
 *
 * Options: --rows N (1,000,000), --iterations K (per way and case: 200), --warm-up W (30), --keep (accepted for
 * bench:scale's command line; the database is always kept).
 */
import http from "node:http";
import { type OperationDefinitionNode, parse } from "graphql/index.mjs";
import { MAX_FIRST } from "../lib/graphql/filter-input.js";
import { MAX_COST, measure } from "../lib/graphql/limits.js";
import { camelCase } from "../lib/graphql/proof-type.js";
import { syntheticAddress } from "../lib/local/synthetic-proofs.js";
import { PROOF_PROPERTIES } from "../lib/proofs/properties.js";
import { benchArgs, DAY, END, iso, requestOk, SCALE_DB, serveBenchDatabase } from "./common.js";
import { statOf } from "./cores.js";
import { f1, lpad, pad, percentile } from "./figures.js";

const ARGS = benchArgs({ numbers: { rows: 1_000_000, iterations: 200, "warm-up": 30 }, flags: ["keep"] });
const ROUNDS = 10;
const GOAL = 1.5;

/** Every field of a proof: the catalogue's properties (the native record's members), in GraphQL's names. */
const ALL_FIELDS = PROOF_PROPERTIES.map((q) => camelCase(q.name));
const FEW_FIELDS = ["uid", "chain", "eventTimestamp", "longitude", "latitude"];

type Case = { name: string; native: Record<string, string>; filter: Record<string, unknown>; first: number };
const CASES: Case[] = [
  { name: "default page (100)", native: {}, filter: {}, first: 100 },
  { name: "chain=base", native: { chain: "base" }, filter: { chain: "base" }, first: 100 },
  {
    name: "prover (rank 100)",
    native: { prover: syntheticAddress("p", 100) },
    filter: { prover: syntheticAddress("p", 100) },
    first: 100,
  },
  {
    name: "one-month window",
    native: { fromTimestamp: iso(END.getTime() - 60 * DAY), toTimestamp: iso(END.getTime() - 30 * DAY) },
    filter: { fromTimestamp: iso(END.getTime() - 60 * DAY), toTimestamp: iso(END.getTime() - 30 * DAY) },
    first: 100,
  },
  {
    name: "city bbox (Berlin)",
    native: { bbox: "13.3,52.45,13.5,52.57" },
    filter: { bbox: "13.3,52.45,13.5,52.57" },
    first: 100,
  },
  { name: "limit=1000", native: { limit: "1000" }, filter: {}, first: 1000 },
];

const LIST = (fields: string[]) =>
  `query List($filter: LocationProofFilter, $first: Int) { locationProofs(filter: $filter, first: $first) { totalCount pageInfo { hasNextPage endCursor } nodes { ${fields.join(" ")} } } }`;

type Sent = { method: "GET" | "POST"; path: string; body?: string };

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let base = "";

const send = (req: Sent): Promise<Buffer> =>
  requestOk(`${base}${req.path}`, agent, {
    method: req.method,
    headers: req.body
      ? { "content-type": "application/json", accept: "application/graphql-response+json" }
      : {},
    ...(req.body ? { body: req.body } : {}),
  });

const TICK_MS = 10; // Linux USER_HZ
const cpuMs = (pid: number) => {
  const f = statOf(pid);
  return (f[11]! + f[12]!) * TICK_MS;
};

type Way = { label: string; req: Sent; times: number[]; cpu: number; bytes: number };

function ways(c: Case): Way[] {
  const native: Sent = {
    method: "GET",
    path: `/api/v0/location-proofs${Object.keys(c.native).length ? `?${new URLSearchParams(c.native)}` : ""}`,
  };
  const graphql = (fields: string[]): Sent => ({
    method: "POST",
    path: "/graphql",
    body: JSON.stringify({ query: LIST(fields), variables: { filter: c.filter, first: c.first } }),
  });
  return [
    { label: "native GET", req: native, times: [], cpu: 0, bytes: 0 },
    { label: "GraphQL, every field", req: graphql(ALL_FIELDS), times: [], cpu: 0, bytes: 0 },
    { label: "GraphQL, 5 fields", req: graphql(FEW_FIELDS), times: [], cpu: 0, bytes: 0 },
  ];
}

/** The GraphQL page holds the native page, value for value. */
async function checkSamePage(c: Case, [native, all]: Way[]): Promise<void> {
  const n = JSON.parse((await send(native!.req)).toString()) as {
    data: Record<string, unknown>[];
    pagination: { total: number };
  };
  const g = JSON.parse((await send(all!.req)).toString()) as {
    data: { locationProofs: { totalCount: number; nodes: Record<string, unknown>[] } };
  };
  const expected = JSON.stringify(
    n.data.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [camelCase(k), v]))),
  );
  if (
    JSON.stringify(g.data.locationProofs.nodes) !== expected ||
    g.data.locationProofs.totalCount !== n.pagination.total
  )
    throw new Error(`${c.name}: the GraphQL page differs from the native page`);
}

/**
 * The costliest query the limits accept (lib/graphql/limits.ts): the largest page with every field of a proof, four
 * names of `uid` beside them, the count and the stats, at the cost limit or just under; one field more is refused.
 * Its time and bytes are what one request can make the service do.
 */
async function costliest(): Promise<void> {
  const query = `{ locationProofs(first: ${MAX_FIRST}) { totalCount pageInfo { hasNextPage endCursor } nodes { ${ALL_FIELDS.join(" ")} } } locationProofsCount locationProofsStats { total } }`;
  const { cost } = measure(parse(query), parse(query).definitions[0] as OperationDefinitionNode, {});
  const req: Sent = { method: "POST", path: "/graphql", body: JSON.stringify({ query }) };
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < ARGS["warm-up"]; i++) await send(req);
  for (let i = 0; i < Math.max(20, ARGS.iterations / 4); i++) {
    const t = performance.now();
    bytes = (await send(req)).length;
    times.push(performance.now() - t);
  }
  console.log(
    `\nThe costliest accepted query (cost ${cost} of ${MAX_COST}: a page of ${MAX_FIRST} with every field, the count and the stats): p50 ${f1(percentile(times, 0.5))} ms, p99 ${f1(percentile(times, 0.99))} ms, ${(bytes / 1024).toFixed(0)} KB`,
  );
}

async function main() {
  const { output, server } = await serveBenchDatabase(SCALE_DB, ARGS.rows, true);
  base = server.url;
  try {
    console.log(
      `GraphQL list vs the native list, ${ARGS.rows.toLocaleString("en")} proofs, built functions on Node ${server.version}, ${ARGS.iterations} requests per way and case, one at a time\n`,
    );
    console.log(
      `${pad("case", 22)}${pad("way", 24)}${lpad("p50 ms", 8)}${lpad("p99 ms", 8)}${lpad("CPU ms/req", 12)}${lpad("KB", 7)}${lpad("p50 ×", 8)}${lpad("CPU ×", 8)}`,
    );
    let worst = 0;
    for (const c of CASES) {
      const list = ways(c);
      await checkSamePage(c, list);
      for (const w of list) for (let i = 0; i < ARGS["warm-up"]; i++) await send(w.req);
      const perRound = Math.ceil(ARGS.iterations / ROUNDS);
      for (let round = 0; round < ROUNDS; round++) {
        for (const w of list) {
          const before = cpuMs(server.pid);
          for (let i = 0; i < perRound; i++) {
            const t = performance.now();
            w.bytes = (await send(w.req)).length;
            w.times.push(performance.now() - t);
          }
          w.cpu += cpuMs(server.pid) - before;
        }
      }
      const [native] = list;
      const p50 = (w: Way) => percentile(w.times, 0.5);
      const cpu = (w: Way) => w.cpu / w.times.length;
      for (const w of list) {
        const ratios =
          w === native
            ? ["", ""]
            : [`${(p50(w) / p50(native!)).toFixed(2)}`, `${(cpu(w) / cpu(native!)).toFixed(2)}`];
        if (w !== native && w.label.includes("every"))
          worst = Math.max(worst, cpu(w) / cpu(native!), p50(w) / p50(native!));
        console.log(
          `${pad(w === native ? c.name : "", 22)}${pad(w.label, 24)}${lpad(f1(p50(w)), 8)}${lpad(f1(percentile(w.times, 0.99)), 8)}${lpad(cpu(w).toFixed(2), 12)}${lpad((w.bytes / 1024).toFixed(0), 7)}${lpad(ratios[0]!, 8)}${lpad(ratios[1]!, 8)}`,
        );
      }
    }
    console.log(
      `\nGraphQL (every field, the same page) at most ${worst.toFixed(2)} × the native request (p50 and CPU per request): goal ≤ ${GOAL} × ${worst <= GOAL ? "ok" : "MISSED"}`,
    );
    await costliest();
  } finally {
    agent.destroy();
    await server.stop();
    output.remove();
  }
}

await main();
