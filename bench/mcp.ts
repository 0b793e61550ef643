// MCP search against the native list, on the built functions (Node 24) over PostgreSQL holding 1,000,000 synthetic
// proofs: the same question asked both ways, interleaved, over kept-alive connections; p50 of each and their ratio
// (goal: MCP ≤ 1.3 × native). `npm run bench:mcp -- [--rows N] [--requests N] [--reuse]`; the database
// `lpqs_bench_mcp` on BENCH_DATABASE_URL's server is kept for --reuse (drop it when done).
import http from "node:http";
import { benchArgs, benchDatabaseUrl, requestOk, serveBenchDatabase } from "./common.js";

const args = benchArgs({ numbers: { rows: 1_000_000, requests: 200 }, flags: ["reuse"] });
const DB = "lpqs_bench_mcp";

/** Each question as native list parameters and as the MCP tool's arguments (docs/mcp.md). */
const QUESTIONS: { name: string; query: string; args: Record<string, unknown> }[] = [
  { name: "newest 10", query: "limit=10", args: { limit: 10 } },
  {
    name: "near Paris, 50 km, nearest first",
    query: "near=2.35,48.85&radius=50000&sort=distance&limit=10",
    args: { near: [2.35, 48.85], radius: 50000, sort: "distance", limit: 10 },
  },
  {
    name: "Europe bbox, one chain, since 2025",
    query: "bbox=-10,35,30,60&chain=base&fromTimestamp=2025-01-01&limit=10",
    args: { bbox: [-10, 35, 30, 60], chain: ["base"], fromTimestamp: "2025-01-01", limit: 10 },
  },
];

const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)]!;

const { output, server } = await serveBenchDatabase(DB, args.rows, args.reuse);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
try {
  console.log(
    `${args.rows.toLocaleString("en")} proofs, ${args.requests} requests each way per question (${benchDatabaseUrl(DB).replace(/\/\/[^@]*@/, "//")})`,
  );
  console.log("question                                     native p50   MCP p50   ratio   goal ≤ 1.3");
  let id = 0;
  for (const q of QUESTIONS) {
    const native = () => requestOk(`${server.url}/api/v0/location-proofs?${q.query}`, agent);
    const mcp = () =>
      requestOk(`${server.url}/mcp`, agent, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: ++id,
          method: "tools/call",
          params: { name: "search_location_proofs", arguments: q.args },
        }),
      });
    const times = { native: [] as number[], mcp: [] as number[] };
    for (let i = 0; i < args.requests + 20; i++) {
      for (const [kind, send] of [
        ["native", native],
        ["mcp", mcp],
      ] as const) {
        const started = performance.now();
        const body = await send();
        if (kind === "mcp" && body.includes('"isError":true'))
          throw new Error(`${q.name}: ${body.toString()}`);
        if (i >= 20) times[kind].push(performance.now() - started);
      }
    }
    const a = percentile(times.native, 0.5);
    const b = percentile(times.mcp, 0.5);
    console.log(
      `${q.name.padEnd(44)} ${a.toFixed(2).padStart(8)} ms ${b.toFixed(2).padStart(7)} ms ${(b / a).toFixed(2).padStart(6)}   ${b / a <= 1.3 ? "met" : "MISSED"}`,
    );
  }
} finally {
  agent.destroy();
  await server.stop();
  output.remove();
}
