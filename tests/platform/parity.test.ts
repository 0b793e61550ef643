import { readFileSync } from "node:fs";
import { Offchain, OffchainAttestationVersion } from "@ethereum-attestation-service/eas-sdk";
import { sql } from "drizzle-orm";
import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setDatabase } from "../../db/client.js";
import { CHAIN_DEFINITIONS } from "../../lib/chains/registry.js";
import { LOCATION_SCHEMA_UID } from "../../lib/chains/schema.js";
import { loadConfig, setConfig } from "../../lib/config.js";
import { encodeLocationProof } from "../../lib/devnet/location-data.js";
import { createRouter } from "../../lib/local/router.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { FUNCTION_NODE_OPTIONS, node24Binary } from "../../scripts/build-output.js";
import { builtOutputCopy, serveOutput } from "../../scripts/vercel-output/emulate.js";
import { ROOT } from "../helpers/app.js";
import { recordingRouter } from "../helpers/contract.js";
import { compareWithNative, mcpClient } from "../helpers/mcp.js";
import { apiRoutes } from "../helpers/routes.js";
import { openTestDb, testDriver, usingPostgres } from "../helpers/test-db.js";

/**
 * Parity: what ships (the built .vercel/output — in CI, what the real `vercel build` wrote — copied out of the
 * repository, routed by its own config.json and run on Node 24 with VERCEL=1; scripts/vercel-output/server.ts)
 * answers a fixed list of requests exactly as the local router over the source does (`npm run dev`, the tests),
 * against one PostgreSQL database with the same configuration. Compared: status, every header but the transport
 * ones (Date, Connection, Keep-Alive, Transfer-Encoding, Content-Length), and the body byte for byte, after one
 * normalisation: ISO 8601 instants and durations in `*_ms` fields (the clock moves between the two answers; such
 * bodies are never cached, so they carry no ETag). Rate limiting is off on both sides (RATE_LIMIT_PER_MINUTE=0): two processes keep two counters.
 *
 * With LPQS_TEST_DB_DRIVER=neon, both sides read through Neon's serverless driver (the production one), the
 * functions as they are built, reaching the CI PostgreSQL through tests/helpers/ws-bridge.ts.
 *
 * Needs PostgreSQL (DATABASE_URL; VERCEL=1 refuses the embedded database) and Node 24 (`npm ci --prefix .ci/node24`):
 * skipped without them (the PGlite pass), except that CI's PostgreSQL pass fails without Node 24.
 */
const NODE24 = node24Binary(ROOT);
const ready = usingPostgres() && NODE24 !== undefined;
// CI's PostgreSQL pass must run it: there, a missing Node 24 is a failure, not a skip.
if (usingPostgres() && !NODE24 && process.env.CI) throw new Error("parity suite: CI must provide Node 24");
if (!ready) console.log("parity suite skipped: needs DATABASE_URL and Node 24 (npm ci --prefix .ci/node24)");

const SECRET = "parity-secret";
const BASE = "https://parity.example";
const HEADERS = {
  "x-forwarded-host": "parity.example",
  "x-forwarded-proto": "https",
  "x-real-ip": "203.0.113.9",
};
const AUTH = { authorization: `Bearer ${SECRET}` };
/** What Chromium sends when it navigates: it gets the HTML pages. */
const BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
const TRANSPORT = new Set(["date", "connection", "keep-alive", "transfer-encoding", "content-length"]);

type Case = {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  covers?: string;
};
type Answer = { status: number; headers: Record<string, string>; body: string };

let output: ReturnType<typeof builtOutputCopy>;
let server: Awaited<ReturnType<typeof serveOutput>>;
let local: ReturnType<typeof createRouter>;
let close: () => Promise<void>;
let uid = "";

beforeAll(async () => {
  if (!ready) return;
  const db = await openTestDb();
  await insertProofs(db.db, sampleProofs({ count: 25, seed: 8 }));
  // Last-Modified is sent only once the last change is over a second old (lib/data-version/version.ts): aged here,
  // so that the router and the built output, asked a moment apart, cannot fall on either side of that second.
  await db.db.execute(sql`update data_versions set changed_at = changed_at - interval '10 seconds'`);
  const env = {
    VERCEL: "1",
    // The same database, reached the same way on both sides: node-postgres, or on CI's Neon pass Neon's driver
    // through the WebSocket bridge (tests/helpers/test-db.ts).
    ...db.serviceEnv!,
    CRON_SECRET: SECRET,
    RATE_LIMIT_PER_MINUTE: "0",
    LOG_LEVEL: "silent",
    CHAINS: "sepolia,base",
    // Off by default on Vercel; open here so that the publishing function's POST runs its verifier.
    PUBLISH_MODE: "open",
  };
  setConfig(loadConfig(env));
  setDatabase(db);
  local = recordingRouter(createRouter(ROOT));
  output = builtOutputCopy();
  server = await serveOutput(output.dir, NODE24!, env);
  const first = await local.handle(
    new Request(`${BASE}/api/v0/location-proofs?limit=1`, { headers: HEADERS }),
  );
  uid = ((await first.json()) as { data: { uid: string }[] }).data[0]!.uid;
  close = async () => {
    setDatabase(undefined);
    setConfig(undefined);
    await db.close();
  };
});

afterAll(async () => {
  await server?.stop();
  output?.remove();
  await close?.();
});

/** The fixed list: every endpoint, bad parameters, 404s, HEAD, OPTIONS, unsupported methods, restricted ones. */
function cases(): Case[] {
  const items = "/api/ogc/collections/location-proofs/items";
  const shapes = "/api/ogc/collections/location-proof-shapes/items";
  return [
    { path: "/", covers: "/api/root" },
    { path: "/health", covers: "/api/health" },
    { path: "/api/v0/config" },
    { path: "/api/v0/location-proofs?limit=3" },
    { path: "/api/v0/location-proofs?limit=2&sort=asc&bbox=-180,-90,180,90" },
    { path: `/api/v0/location-proofs/${uid}`, covers: "/api/v0/location-proofs/[uid]" },
    { path: `/api/v0/location-proofs/0x${"0".repeat(64)}` },
    { path: "/api/v0/location-proofs/not-a-uid" },
    { path: "/api/v0/location-proofs/a%20b" },
    { path: "/api/v0/location-proofs/stats" },
    // The aliases under the names Astral's documentation uses (their links keep the alias's path).
    { path: "/api/v0/location-records?limit=3" },
    { path: `/api/v0/location-records/${uid}`, covers: "/api/v0/location-records/[uid]" },
    { path: "/api/v0/location-records/stats" },
    { path: "/api/v0/location-records/config" },
    // An off-chain record's signed original (none held: the 404 on both sides).
    {
      path: `/api/v0/location-records/0x${"0".repeat(64)}/signed`,
      covers: "/api/v0/location-records/[uid]/signed",
    },
    // GraphQL: GET and POST, an error, GraphiQL for a browser and its files.
    { path: "/graphql?query=%7BlocationProofsCount%7D", covers: "/api/graphql" },
    {
      path: "/graphql?query=%7BlocationProofs(first%3A2)%7BtotalCount%20nodes%7Buid%20eventTimestamp%7D%7D%7D",
      headers: { accept: "application/graphql-response+json" },
    },
    { path: "/graphql?query=%7BlocationProofsCount(filter%3A%7Bbbox%3A%221%22%7D)%7D" },
    { path: "/graphql", headers: { accept: BROWSER } },
    {
      method: "POST",
      path: "/graphql",
      headers: { "content-type": "application/json" },
      body: '{"query":"query($n:Int){locationProofs(first:$n){nodes{uid chain}}}","variables":{"n":2}}',
    },
    { path: "/api/graphql/assets/start.js", covers: "/api/graphql/assets/[file]" },
    { path: "/api/graphql/assets/graphiql.css" },
    { path: "/api/graphql/assets/graphiql.js" },
    { path: "/api/graphql/assets/react.js" },
    { path: "/api/graphql/assets/react-dom.js" },
    {
      method: "OPTIONS",
      path: "/graphql",
      headers: { origin: "https://example.org", "access-control-request-method": "POST" },
    },
    { path: "/api/v0/openapi.json" },
    { path: "/api/v0/openapi.json?f=json" },
    { path: "/docs", covers: "/api/docs" },
    { path: "/docs?x=1" },
    { path: "/api/docs/assets/swagger-ui-bundle.js", covers: "/api/docs/assets/[file]" },
    { path: "/api/docs/assets/swagger-ui.css" },
    { path: "/api/docs/assets/docs.js" },
    { path: "/api/docs/assets/leaflet.js" },
    { path: "/api/v0/location-proofs?limit=0" },
    { path: "/api/v0/location-proofs?bogus=1" },
    { path: "/api/v0/location-proofs?bbox=1,2,3" },
    { path: "/api/ogc" },
    { path: "/api/ogc?f=html" },
    { path: "/api/ogc?f=yaml" },
    { path: "/api/ogc/api" },
    { path: "/api/ogc/conformance" },
    { path: "/api/ogc/collections" },
    { path: "/api/ogc/collections/location-proofs" },
    { path: "/api/ogc/collections/location-proofs/queryables" },
    { path: `${items}?limit=2` },
    { path: `${items}?limit=2&f=html` },
    { path: `${items}?bbox=10,20` },
    { path: `${items}/${uid}`, covers: `${items}/[uid]` },
    { path: `${items}/0x${"f".repeat(64)}` },
    { path: "/api/ogc/collections/location-proof-shapes" },
    { path: "/api/ogc/collections/location-proof-shapes/queryables" },
    // Part 5 (lib/ogc/schema.ts), and the web maps' TileJSON and style (lib/maps/).
    { path: "/api/ogc/collections/location-proofs/schema" },
    { path: "/api/ogc/collections/location-proofs/sortables" },
    { path: "/api/ogc/collections/location-proof-shapes/schema" },
    { path: "/api/ogc/collections/location-proof-shapes/sortables" },
    { path: "/api/ogc/collections/location-proofs/styles" },
    {
      path: "/api/ogc/collections/location-proofs/styles/proofs",
      covers: "/api/ogc/collections/location-proofs/styles/[styleId]",
    },
    {
      path: "/api/ogc/collections/location-proofs/tiles/WebMercatorQuad/tilejson",
      covers: "/api/ogc/collections/location-proofs/tiles/[tileMatrixSetId]/tilejson",
    },
    { path: `${shapes}?limit=2&bbox=-10,35,30,60` },
    { path: `${shapes}/${uid}`, covers: `${shapes}/[uid]` },
    // Vector tiles (lib/tiles/): the tilesets, the tileset, a tile with and without a filter, bad addresses, the
    // tile matrix sets.
    { path: "/api/ogc/collections/location-proofs/tiles" },
    { path: "/api/ogc/collections/location-proofs/tiles?chain=sepolia&f=html" },
    {
      path: "/api/ogc/collections/location-proofs/tiles/WebMercatorQuad",
      covers: "/api/ogc/collections/location-proofs/tiles/[tileMatrixSetId]",
    },
    { path: "/api/ogc/collections/location-proofs/tiles/WorldCRS84Quad" },
    {
      path: "/api/ogc/collections/location-proofs/tiles/WebMercatorQuad/0/0/0",
      covers: "/api/ogc/collections/location-proofs/tiles/[tileMatrixSetId]/[tileMatrix]/[tileCol]/[tileRow]",
    },
    { path: "/api/ogc/collections/location-proofs/tiles/WebMercatorQuad/3/4/2?chain=sepolia" },
    { path: "/api/ogc/collections/location-proofs/tiles/WebMercatorQuad/19/0/0" },
    { path: "/api/ogc/collections/location-proofs/tiles/WebMercatorQuad/0/0/0?bbox=1,2,3,4" },
    { path: "/api/ogc/tileMatrixSets" },
    { path: "/api/ogc/tileMatrixSets/WebMercatorQuad", covers: "/api/ogc/tileMatrixSets/[tileMatrixSetId]" },
    { path: "/api/ogc/assets/leaflet.js", covers: "/api/ogc/assets/[file]" },
    { path: "/api/ogc/assets/maplibre-gl.mjs" },
    { path: "/api/ogc/assets/maplibre-gl-worker.mjs" },
    { path: "/api/ogc/assets/maplibre-gl.css" },
    { path: "/api/ogc/assets/tile-map.mjs" },
    { path: "/api/ogc/assets/leaflet.css" },
    { path: "/api/ogc/assets/map.js" },
    { path: "/api/ogc/assets/site.css" },
    { path: "/api/ogc/assets/site.js" },
    { path: "/api/ogc/assets/topojson-client.js" },
    { path: "/api/ogc/assets/countries-110m.json" },
    { path: "/api/ogc/assets/countries-50m.json" },
    { path: "/api/ogc/assets/nope.js" },
    // The pages a browser gets (its Accept, or f=html), and its error pages.
    { path: "/", headers: { accept: BROWSER } },
    { path: "/?f=html" },
    { path: "/api/v0/location-proofs?limit=3&f=html" },
    { path: "/api/v0/location-proofs?limit=2&offset=2", headers: { accept: BROWSER } },
    { path: "/api/ogc/collections/location-proofs?f=html" },
    { path: `${items}/${uid}?f=html` },
    { path: "/nope", headers: { accept: BROWSER } },
    { path: "/api/v0/location-proofs?bbox=1,2,3", headers: { accept: BROWSER } },
    { path: "/api/cron/sync/test" },
    // 404s: unknown paths, a wrong version, the source tree, a function's file name, an index path.
    { path: "/nope", covers: "/api/not-found" },
    { path: "/api/v1/location-proofs" },
    { path: "/lib/config.ts" },
    { path: "/package.json" },
    { path: "/api/health.ts" },
    { path: "/api/ogc/index" },
    { path: "/some%20where" },
    { path: "/HEALTH" },
    // Static files: public/ only.
    { path: "/robots.txt" },
    { method: "HEAD", path: "/robots.txt" },
    // Methods.
    { method: "HEAD", path: "/api/v0/config" },
    { method: "HEAD", path: "/nope" },
    { method: "HEAD", path: "/api/sync", headers: AUTH },
    {
      method: "OPTIONS",
      path: "/api/v0/location-proofs",
      headers: { origin: "https://example.org", "access-control-request-method": "GET" },
    },
    { method: "OPTIONS", path: "/api/sync" },
    { method: "PUT", path: "/api/v0/config" },
    { method: "DELETE", path: "/api/v0/location-proofs" },
    { method: "PATCH", path: "/health" },
    { method: "POST", path: "/api/v0/location-proofs/stats" },
    { method: "POST", path: "/nope" },
    // Restricted endpoints, without and with the secret.
    { path: "/api/sync/status" },
    { path: "/api/sync/status", headers: { authorization: "Bearer wrong" } },
    { path: "/api/sync/status", headers: AUTH },
    { path: "/api/sync/worker", headers: AUTH },
    { method: "POST", path: "/api/sync/worker", headers: AUTH },
    { method: "POST", path: "/api/sync/worker?action=jump", headers: AUTH },
    { method: "POST", path: "/api/sync" },
    { method: "POST", path: "/api/sync?chain=nowhere", headers: AUTH },
    { path: "/api/sync", headers: AUTH },
    { method: "POST", path: "/api/sync/revocations" },
    { method: "POST", path: "/api/sync/revocations?chain=nowhere", headers: AUTH },
    { path: "/api/cron/sync" },
    { method: "POST", path: "/api/cron/sync?x=1", headers: AUTH },
    // MCP: a JSON-RPC request answered in plain JSON (the tools themselves: the last test below), and a GET.
    {
      method: "POST",
      path: "/mcp",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_location_proofs","arguments":{"limit":2,"chain":["sepolia"]}}}',
      covers: "/api/mcp",
    },
    { path: "/mcp" },
  ];
}

async function answer(res: Response): Promise<Answer> {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!TRANSPORT.has(name)) headers[name] = value;
  });
  const body = (await res.text())
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, "<instant>")
    .replace(/"([a-z_]+_ms)":\d+(\.\d+)?/g, '"$1":<ms>');
  return { status: res.status, headers, body };
}

/** Sends each case (and, for a GET that carried an ETag, the same with If-None-Match) to both sides. */
async function compareAll(router: { handle(r: Request): Promise<Response> }, url: string, list: Case[]) {
  const differences: string[] = [];
  let compared = 0;
  const compare = async (c: Case) => {
    const init = {
      method: c.method ?? "GET",
      headers: { ...HEADERS, ...c.headers },
      ...(c.body === undefined ? {} : { body: c.body }),
    };
    const mine = await answer(await router.handle(new Request(`${BASE}${c.path}`, init)));
    const shipped = await answer(await fetch(`${url}${c.path}`, init));
    compared++;
    const label = `${init.method} ${c.path}${c.headers ? ` ${JSON.stringify(c.headers)}` : ""}`;
    if (mine.status !== shipped.status)
      differences.push(`${label}: status ${mine.status} vs ${shipped.status}`);
    for (const name of new Set([...Object.keys(mine.headers), ...Object.keys(shipped.headers)])) {
      if (mine.headers[name] !== shipped.headers[name]) {
        differences.push(`${label}: ${name}: ${mine.headers[name]} vs ${shipped.headers[name]}`);
      }
    }
    if (mine.body !== shipped.body) {
      differences.push(
        `${label}: body\n    local:   ${mine.body.slice(0, 300)}\n    shipped: ${shipped.body.slice(0, 300)}`,
      );
    }
    return mine;
  };
  for (const c of list) {
    const mine = await compare(c);
    // The same request again with the ETag the first answer carried: both sides must answer 304.
    const etag = mine.headers.etag;
    if (etag && (c.method ?? "GET") === "GET") {
      await compare({ ...c, headers: { ...c.headers, "if-none-match": etag } });
    }
  }
  return { compared, differences };
}

it("the parity list covers every function (checked even where the suite itself is skipped)", () => {
  const covered = new Set(cases().map((c) => c.covers ?? c.path.split("?")[0]));
  const missing = apiRoutes()
    .map((r) => r.route.path)
    .filter((p) => !covered.has(p));
  expect(missing).toEqual([]);
});

describe.skipIf(!ready)("the built output on Node 24 answers as the local router", () => {
  it("runs on Node 24, from a copy outside the repository", () => {
    expect(server.version).toMatch(/^v24\./);
    expect(output.dir.startsWith(ROOT)).toBe(false);
  });

  it("runs with the Node flags every function is deployed with (their .vc-config.json NODE_OPTIONS)", () => {
    const environ = readFileSync(`/proc/${server.pid}/environ`, "utf8").split("\0");
    expect(environ).toContain(`NODE_OPTIONS=${FUNCTION_NODE_OPTIONS}`);
  });

  it("0 differences over the fixed list, conditional requests included", async () => {
    const { compared, differences } = await compareAll(local, server.url, cases());
    console.log(
      `parity: ${compared} requests compared, ${differences.length} differences (node ${server.version}, ${testDriver()} driver)`,
    );
    expect(differences).toEqual([]);
    expect(compared).toBeGreaterThan(cases().length);
  });

  it("the MCP SDK's client on the built output: every tool answers as the built native API does", async () => {
    const client = await mcpClient(server.url, HEADERS);
    try {
      const compared = await compareWithNative(client, async (path) => {
        const res = await fetch(`${server.url}${path}`, { headers: HEADERS });
        return { status: res.status, body: await res.json() };
      });
      console.log(`parity (MCP on the built output): ${compared} answers compared with the native API's`);
    } finally {
      await client.close();
    }
  });

  it("publishing on the built output: a POST loads the verifier's chunks, stores the record, and the router then holds it", async () => {
    const sepolia = CHAIN_DEFINITIONS.find((c) => c.name === "sepolia")!;
    const offchain = new Offchain(
      { address: sepolia.eas, version: "1.3.0", chainId: BigInt(sepolia.chainId) },
      OffchainAttestationVersion.Version2,
      undefined as never,
    );
    const now = BigInt(Math.floor(Date.now() / 1000));
    const place = JSON.stringify({ type: "Point", coordinates: [13.4, 52.52] });
    // anvil's first default key (a public test key): the signature is real, recovered by the shipped verifier.
    const signed = await offchain.signOffchainAttestation(
      {
        schema: LOCATION_SCHEMA_UID,
        recipient: "0x000000000000000000000000000000000000dEaD",
        time: now,
        expirationTime: 0n,
        revocable: true,
        refUID: `0x${"0".repeat(64)}`,
        data: encodeLocationProof({
          locationType: "geojson-point",
          location: place,
          eventTimestamp: now - 60n,
        }),
      },
      new Wallet("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"),
    );
    const post = (body: unknown): Case => ({
      method: "POST",
      path: "/api/v0/location-records",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body, (_, v) => (typeof v === "bigint" ? v.toString() : v)),
    });
    const send = async (c: Case, to: "shipped" | "local") => {
      const init = { method: c.method, headers: { ...HEADERS, ...c.headers }, body: c.body };
      return answer(
        to === "shipped"
          ? await fetch(`${server.url}${c.path}`, init)
          : await local.handle(new Request(`${BASE}${c.path}`, init)),
      );
    };
    const shipped = await send(post(signed), "shipped");
    expect(shipped.status, shipped.body).toBe(201);
    expect(JSON.parse(shipped.body)).toMatchObject({ uid: signed.uid.toLowerCase() });
    const held = await send(post(signed), "local");
    expect(held.status, held.body).toBe(200);
    expect(held.body).toBe(shipped.body);
    // The high-s twin of the signature (n - s, the other parity) is the same signer's: the shipped verifier
    // (libsecp256k1, its WebAssembly read from the function's directory) takes it, and the record is already held.
    const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const twin = {
      ...signed,
      signature: {
        r: signed.signature.r,
        s: `0x${(N - BigInt(signed.signature.s)).toString(16).padStart(64, "0")}`,
        v: signed.signature.v === 27 ? 28 : 27,
      },
    };
    const again = await send(post(twin), "shipped");
    expect(again.status, again.body).toBe(200);
    expect(again.body).toBe(shipped.body);
    // Signed by another key than the one the uid and signature say: both refuse it alike, after recovering it.
    const refused = [
      post({ ...signed, signature: { ...signed.signature, r: `0x${"1".repeat(64)}` } }),
      post({ sig: signed, signer: "0x000000000000000000000000000000000000dEaD" }),
    ];
    for (const c of refused) expect((await send(c, "shipped")).status).toBeOneOf([400, 422]);
    const { differences } = await compareAll(local, server.url, refused);
    expect(differences).toEqual([]);
  });

  it("misconfigured (VERCEL=1 without DATABASE_URL), both answer alike: the data routes refuse, the rest serve", async () => {
    const env = { VERCEL: "1", CRON_SECRET: SECRET, RATE_LIMIT_PER_MINUTE: "0", LOG_LEVEL: "silent" };
    const misconfigured = await serveOutput(output.dir, NODE24!, env);
    setConfig(loadConfig(env));
    setDatabase(undefined);
    try {
      const list: Case[] = [
        { path: "/health" },
        { path: "/api/v0/location-proofs?limit=1" },
        { path: "/api/v0/location-proofs/stats" },
        { path: "/api/ogc/collections/location-proofs/items?limit=1" },
        { path: "/api/v0/config" },
        { path: "/api/ogc/conformance" },
        { path: "/nope" },
        { path: "/api/sync/status", headers: AUTH },
        { path: "/", headers: { accept: BROWSER } },
        { path: "/api/v0/location-proofs?limit=1", headers: { accept: BROWSER } },
      ];
      const { compared, differences } = await compareAll(
        recordingRouter(createRouter(ROOT)),
        misconfigured.url,
        list,
      );
      console.log(`parity (misconfigured): ${compared} requests compared, ${differences.length} differences`);
      expect(differences).toEqual([]);
      const health = await fetch(`${misconfigured.url}/health`, { headers: HEADERS });
      expect(health.status).toBeGreaterThanOrEqual(500);
      expect(await health.text()).toMatch(/DATABASE_URL/);
    } finally {
      await misconfigured.stop();
    }
  });
});
