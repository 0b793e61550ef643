/**
 * bench:cdn (issue 39): Varnish (Debian's varnishd) in front of the service, replaying map sessions while a sync
 * writes new proofs and revocations every `--sync-every` seconds (the cron's minute, scaled down for a short run).
 *
 * Origin: the built functions on Node 24 (serveBuilt) when Node 24 is there, else the local router (lib/local) in a
 * child-free server of this process (`origin` in the output says which). Database: `lpqs_bench_cdn` on the bench
 * server, `--rows` synthetic proofs (`--reuse` keeps a database that holds them).
 *
 * Each of `--clients` sessions: reads the TileJSON (as the HTML map does: every 30 s), then requests, Zipf-distributed
 * (s = 1), tiles from z0 to z14 around the synthetic cities at the version the TileJSON named, the items pages of the
 * map's list, proofs' pages and the statistics.
 *
 * Prints: the share of client requests that reached the origin (Varnish's backend requests over its client requests;
 * goal ≤ 2 %), the oldest data any answer showed against the latest sync (an answer's ETag names its data version;
 * its age is how long before the answer the sync that replaced that version committed; goal ≤ two sync intervals),
 * errors, and the 304 server time p50 (conditional requests that still hold, answered in this process against the
 * same database, timed and counted on the request's log line; goal ≤ 1 ms, one statement: the version's).
 *
 * npm run bench:cdn -- [--seconds 300] [--clients 64] [--sync-every 60] [--rows 100000] [--reuse]
 */
import { spawn } from "node:child_process";
import http from "node:http";
import { sql } from "drizzle-orm";
import { connect, MAINTENANCE_BUDGETS, setDatabase } from "../db/client.js";
import { loadConfig, setConfig } from "../lib/config.js";
import { readDataVersion } from "../lib/data-version/version.js";
import { serve } from "../lib/local/http-server.js";
import { createRouter } from "../lib/local/router.js";
import { insertProofs, sampleProofs } from "../lib/local/sample-proofs.js";
import { SYNTHETIC_CITIES } from "../lib/local/synthetic-proofs.js";
import { node24Binary } from "../scripts/build-output.js";
import { startVarnish } from "../tests/helpers/varnish.js";
import { benchArgs, benchDatabase, benchDatabaseUrl, ROOT, serveBuilt } from "./common.js";
import { f1 } from "./figures.js";

const args = benchArgs({
  numbers: { seconds: 300, clients: 64, "sync-every": 60, rows: 100_000, "new-proofs": 200, revocations: 20 },
  flags: ["reuse"] as const,
});
const DB = process.env.BENCH_CDN_DB ?? "lpqs_bench_cdn";
const BASE = "/api/ogc/collections/location-proofs";
const ACCEPT = "application/json";

/** Zipf (s = 1) over `n` ranks: rank 0 the most asked for. */
function zipf(n: number, rand: () => number): () => number {
  const cumulative: number[] = [];
  let sum = 0;
  for (let i = 0; i < n; i++) {
    sum += 1 / (i + 1);
    cumulative.push(sum);
  }
  return () => {
    const target = rand() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** The tiles of the sessions, most asked for first: low zooms first, then the cities' tiles and their neighbours. */
function tileUniverse(): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (z: number, x: number, y: number) => {
    const n = 2 ** z;
    if (x < 0 || y < 0 || x >= n || y >= n) return;
    const key = `${z}/${x}/${y}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(key);
  };
  for (let z = 0; z <= 14; z++) {
    for (const [, lon, lat] of SYNTHETIC_CITIES) {
      const n = 2 ** z;
      const x = Math.floor(((lon + 180) / 360) * n);
      const r = (lat * Math.PI) / 180;
      const y = Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n);
      const ring = z < 4 ? 0 : 1;
      for (let dx = -ring; dx <= ring; dx++) for (let dy = -ring; dy <= ring; dy++) add(z, x + dx, y + dy);
    }
  }
  return out;
}

type Answer = { status: number; etag: string | null; at: number };

function get(agent: http.Agent, port: number, path: string, headers: Record<string, string> = {}) {
  return new Promise<Answer & { body: string }>((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, path, agent, headers: { accept: ACCEPT, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            etag: (res.headers.etag as string | undefined) ?? null,
            at: Date.now(),
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

const versionOf = (etag: string | null): bigint | undefined => {
  const m = etag && /^(?:W\/)?"(\d+)-/.exec(etag);
  return m ? BigInt(m[1]!) : undefined;
};

async function varnishStat(dir: string): Promise<Record<string, number>> {
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn("varnishstat", ["-n", dir, "-1", "-f", "MAIN.client_req", "-f", "MAIN.backend_req"]);
    let text = "";
    child.stdout.on("data", (d: Buffer) => {
      text += d.toString();
    });
    child.on("close", () => resolve(text));
    child.on("error", reject);
  });
  const stats: Record<string, number> = {};
  for (const line of out.split("\n")) {
    const [name, value] = line.trim().split(/\s+/);
    if (name && value) stats[name] = Number(value);
  }
  return stats;
}

async function main() {
  await benchDatabase(DB, args.rows, args.reuse);
  const url = benchDatabaseUrl(DB);
  const primary = await connect(url, "pg", MAINTENANCE_BUDGETS);

  // The origin.
  const node24 = node24Binary(ROOT);
  let originPort: number;
  let stopOrigin: () => Promise<void>;
  let origin: string;
  setConfig(loadConfig({ DATABASE_URL: url, LOG_LEVEL: "silent", RATE_LIMIT_PER_MINUTE: "0" }));
  setDatabase(connect(url, "pg"));
  const router = createRouter(ROOT);
  if (node24) {
    const built = await serveBuilt(url, { node: node24 });
    originPort = Number(new URL(built.server.url).port);
    stopOrigin = async () => {
      await built.server.stop();
      built.output.remove();
    };
    origin = "the built functions on Node 24";
  } else {
    const { server, url: at } = await serve(router, 0);
    originPort = Number(new URL(at).port);
    stopOrigin = () => new Promise((r) => server.close(() => r()));
    origin = "the local router (no Node 24: npm ci --prefix .ci/node24 for the built functions)";
  }

  // Varnish in front, with Debian's default VCL behaviour (builtin.vcl): only the backend is ours.
  const varnish = await startVarnish(originPort, "512m");
  const { port: varnishPort, dir } = varnish;

  // The sync: new proofs and revocations every sync-every seconds; each commit's version and time.
  // Versions per scope: every chain, and each chain a page's `chain` names (lib/data-version/version.ts).
  const SCOPES: Record<string, number | undefined> = { all: undefined, base: 8453, sepolia: 11155111 };
  const syncs: { versions: Record<string, bigint>; at: number }[] = [];
  const record = async () => {
    const versions: Record<string, bigint> = {};
    for (const [scope, chainId] of Object.entries(SCOPES))
      versions[scope] = BigInt((await readDataVersion(primary.db, chainId)).version);
    syncs.push({ versions, at: Date.now() });
  };
  await record();
  let seed = 1000;
  const sync = async () => {
    const rows = sampleProofs({ count: args["new-proofs"], seed: seed++, now: new Date() });
    await primary.db.transaction(async (tx) => {
      await insertProofs(tx as never, rows);
      await tx.execute(sql`update location_proofs set revoked = true, revocation_time = now()
        where (chain_id, uid) in (select chain_id, uid from location_proofs where not revoked
                                  order by random() limit ${args.revocations})`);
    });
    await record();
  };
  const uids = (
    (await primary.db.execute(sql`select uid from location_proofs order by uid limit 1000`)) as unknown as {
      rows: { uid: string }[];
    }
  ).rows.map((r) => r.uid);

  const tiles = tileUniverse();
  const pages = [
    `${BASE}/items?limit=10`,
    `${BASE}/items?limit=10&chain=base`,
    `${BASE}/items?limit=10&chain=sepolia`,
    `${BASE}/items?limit=50`,
    "/api/v0/location-proofs?limit=20",
    "/api/v0/location-proofs/stats",
  ];
  let requests = 0;
  let errors = 0;
  const errorSamples: string[] = [];
  let oldest = 0;
  const staleness = (a: Answer, path: string) => {
    const v = versionOf(a.etag);
    if (v === undefined || a.status !== 200) return;
    const scope = /[?&]chain=(\w+)/.exec(path)?.[1] ?? "all";
    const replaced = syncs.find((s) => (s.versions[scope] ?? 0n) > v && s.at <= a.at);
    if (replaced) oldest = Math.max(oldest, a.at - replaced.at);
  };
  const end = Date.now() + args.seconds * 1000;
  let rng = 7;
  const rand = () => {
    rng = (rng * 1103515245 + 12345) & 0x7fffffff;
    return rng / 0x7fffffff;
  };
  const pickTile = zipf(tiles.length, rand);
  const pickUid = zipf(uids.length, rand);
  const pickPage = zipf(pages.length, rand);

  const session = async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let template = "";
    let readAt = 0;
    while (Date.now() < end) {
      if (Date.now() - readAt >= 30_000) {
        const tj = await get(agent, varnishPort, `${BASE}/tiles/WebMercatorQuad/tilejson`).catch(
          (e: Error) => ({ status: 0, etag: null, at: Date.now(), body: e.message }),
        );
        requests++;
        if (tj.status !== 200) {
          errors++;
          if (errorSamples.length < 5) errorSamples.push(`${tj.status} TileJSON ${tj.body.slice(0, 120)}`);
          continue;
        }
        template =
          new URL(JSON.parse(tj.body).tiles[0]).pathname + new URL(JSON.parse(tj.body).tiles[0]).search;
        readAt = Date.now();
      }
      const roll = rand();
      const path =
        roll < 0.8
          ? decodeURI(template).replace("{z}/{x}/{y}", tiles[pickTile()]!)
          : roll < 0.9
            ? `/api/v0/location-proofs/${uids[pickUid()]}`
            : pages[pickPage()]!;
      const a = await get(agent, varnishPort, path).catch((e: Error) => ({
        status: 0,
        etag: null,
        at: Date.now(),
        body: e.message,
      }));
      requests++;
      if (a.status !== 200 && a.status !== 304) {
        errors++;
        if (errorSamples.length < 5) errorSamples.push(`${a.status} ${path} ${a.body.slice(0, 120)}`);
      } else staleness(a, path);
    }
    agent.destroy();
  };

  console.log(
    `bench:cdn: ${args.clients} clients for ${args.seconds} s, a sync every ${args["sync-every"]} s (${args["new-proofs"]} proofs, ${args.revocations} revocations); origin: ${origin}; Varnish ${varnishPort} → ${originPort}`,
  );
  // Steady state: the origin share is counted from the end of the first sync interval on (the caches are cold before).
  let warm: Record<string, number> | undefined;
  setTimeout(
    () => {
      varnishStat(dir).then((s) => {
        warm = s;
      });
    },
    Math.min(args["sync-every"], args.seconds / 3) * 1000,
  );
  const timer = setInterval(() => {
    sync().catch((e) => console.error("sync:", (e as Error).message));
  }, args["sync-every"] * 1000);
  const started = Date.now();
  await Promise.all(Array.from({ length: args.clients }, session));
  clearInterval(timer);
  const seconds = (Date.now() - started) / 1000;
  const stats = await varnishStat(dir);

  // The 304s' server time: conditional requests that still hold, in this process, on the same database.
  const lines: { ms: number; statements: number; status: number }[] = [];
  setConfig(loadConfig({ DATABASE_URL: url, LOG_LEVEL: "info", RATE_LIMIT_PER_MINUTE: "0" }));
  const write = process.stdout.write.bind(process.stdout);
  const samples = [
    `${BASE}/items?limit=10`,
    `${BASE}/tiles/WebMercatorQuad/3/7/3`,
    "/api/v0/location-proofs?limit=20",
  ];
  const tags = new Map<string, string>();
  for (const path of samples) {
    const res = await router.handle(new Request(`http://localhost${path}`, { headers: { accept: ACCEPT } }));
    await res.arrayBuffer();
    tags.set(path, res.headers.get("etag") ?? "");
  }
  process.stdout.write = ((chunk: string) => {
    if (chunk.includes('"msg":"request"')) lines.push(JSON.parse(chunk));
    return true;
  }) as typeof process.stdout.write;
  for (let i = 0; i < 300; i++) {
    const path = samples[i % samples.length]!;
    const res = await router.handle(
      new Request(`http://localhost${path}`, {
        headers: { accept: ACCEPT, "if-none-match": tags.get(path)! },
      }),
    );
    await res.arrayBuffer();
  }
  process.stdout.write = write;
  const notModified = lines.filter((l) => l.status === 304);
  const ms = notModified.map((l) => l.ms).sort((a, b) => a - b);
  const p50 = ms[Math.floor(ms.length / 2)] ?? Number.NaN;
  const statements = [...new Set(notModified.map((l) => l.statements))].join(", ");

  const clientReq = (stats["MAIN.client_req"] ?? requests) - (warm?.["MAIN.client_req"] ?? 0);
  const backendReq = (stats["MAIN.backend_req"] ?? Number.NaN) - (warm?.["MAIN.backend_req"] ?? 0);
  const share = (100 * backendReq) / clientReq;
  const interval = args["sync-every"] * 1000;
  console.log("");
  console.log(
    `requests            ${requests.toLocaleString("en")} (${f1(requests / seconds)}/s), syncs ${syncs.length - 1}`,
  );
  console.log(
    `origin share        ${share.toFixed(2)} % (${backendReq.toLocaleString("en")} of ${clientReq.toLocaleString("en")} reached the origin after the first sync interval)   goal ≤ 2 %   ${share <= 2 ? "met" : "MISSED"}`,
  );
  console.log(
    `oldest data shown   ${f1(oldest / 1000)} s after the sync that replaced it (sync interval ${args["sync-every"]} s)   goal ≤ ${2 * args["sync-every"]} s   ${oldest <= 2 * interval ? "met" : "MISSED"}`,
  );
  console.log(
    `errors              ${errors}${errorSamples.length ? `\n  ${errorSamples.join("\n  ")}` : ""}`,
  );
  console.log(
    `304 server time p50 ${p50.toFixed(2)} ms over ${notModified.length} conditional requests, statements per 304: ${statements}   goal ≤ 1 ms, 1   ${p50 <= 1 && statements === "1" ? "met" : "MISSED"}`,
  );

  varnish.stop();
  await stopOrigin();
  await primary.close();
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
