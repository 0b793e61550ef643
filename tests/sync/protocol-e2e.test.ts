import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client.js";
import { LOCATION_SCHEMA_UID } from "../../lib/chains/schema.js";
import { loadConfig } from "../../lib/config.js";
import { attest, revoke } from "../../lib/devnet/eas.js";
import type { Devnet } from "../../lib/devnet/index.js";
import { type ProtocolSeed, seedLocationProtocol } from "../../lib/devnet/protocol-seed.js";
import { type RpcProxy, startRpcProxy } from "../../lib/devnet/rpc-proxy.js";
import { DEVNET_SCHEMA_UIDS, encodeRecord, registerSchemas, schemaUid } from "../../lib/devnet/schemas.js";
import { type SeedResult, seedDevnet } from "../../lib/devnet/seed.js";
import { createSyncService } from "../../lib/sync/service.js";
import { AUTH, blockNumber, bothDevnets, DEVNET_IDS, mine, startTestDevnet } from "../helpers/anvil.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { chainTruth, dbState, expectTruthUpToCursor, LOCATION_SCHEMA_UIDS } from "../helpers/chain-truth.js";
import { shareDb } from "../helpers/shared-db.js";
import { buildSyncWorkers, type SyncWorkers } from "../helpers/sync-worker.js";

/**
 * The Location Protocol end to end, on two chains (two anvils, two chain ids) with five schemas each: v0.1, the
 * protocol's base fields in both orders of the ecosystem (one with an application's fields), the SDK's camelCase
 * schema with location as bytes, and a schema that is not about locations. Written through EAS, synced at once,
 * read back through the native API, the OGC items and the stats; a v0.2 revocation; a schema registered later; and a
 * writer killed in the middle of schema discovery, after which the next runs converge to exactly the chains.
 */
type Chain = { name: "devnet" | "devnet2"; devnet: Devnet; v01: SeedResult; lp: ProtocolSeed };
const chains: Chain[] = [];
let app: TestApp;
let env: Record<string, string>;

const post = (path: string) => app.get(path, { method: "POST", headers: AUTH });
const LIST = "/api/v0/location-proofs";
/** A location schema registered after the first sync (the lpVersion spelling), and one that is not about locations. */
const LATER = "string lpVersion,string srs,string locationType,string location,string note";
const OTHER = "string name,string location";
/** What the chains hold of location schemas, as the test knows them (the oracle of chain-truth). */
const TRUTH_UIDS = [...LOCATION_SCHEMA_UIDS, schemaUid(LATER)];

beforeAll(async () => {
  for (const name of ["devnet", "devnet2"] as const) {
    const devnet = await startTestDevnet({ chainId: DEVNET_IDS[name]! });
    const v01 = await seedDevnet(devnet.rpcUrl, devnet.eas);
    const lp = await seedLocationProtocol(devnet.rpcUrl, devnet);
    await mine(devnet.rpcUrl, 3); // past the devnets' 2 confirmations
    chains.push({ name, devnet, v01, lp });
  }
  env = bothDevnets(chains[0]!.devnet.rpcUrl, chains[1]!.devnet.rpcUrl);
  app = await createTestApp(env);
}, 180_000);
afterAll(async () => {
  await app?.close();
  for (const c of chains) await c.devnet.stop();
});

/** A chain's records by uid, every one (revoked too), through the native list. */
async function records(chain: string, includeRevoked = true): Promise<Map<string, Record<string, any>>> {
  const res = await app.get(`${LIST}?chain=${chain}&includeRevoked=${includeRevoked}&limit=1000`);
  expect(res.status).toBe(200);
  return new Map(res.body.data.map((r: { uid: string }) => [r.uid, r]));
}

describe("two chains, five schemas", () => {
  it("one sync of both chains at once indexes every location attestation of every recognised schema, once", async () => {
    const res = await post("/api/sync");
    expect(res.status).toBe(200);
    for (const c of chains) {
      const report = res.body.chains.find((r: { chain: string }) => r.chain === c.name);
      expect(report).toMatchObject({ status: "ok", error: null });
      // v0.1 is known by its UID; discovery found the other three location schemas, and not the review schema.
      expect(report.schemas.found).toBe(3);
      const head = (await blockNumber(c.devnet.rpcUrl)) - 2;
      expect(report).toMatchObject({ cursor_block: head, schema_cursor_block: head });
      const state = await dbState(app.db, c.devnet.chainId);
      const truth = await chainTruth(c.devnet.rpcUrl, c.devnet.eas);
      expect(state.rows.size).toBe(truth.size);
      expectTruthUpToCursor(state, truth, c.name);
    }
    const [review] = await queryRows<{ n: number }>(
      app.db,
      sql`select count(*)::int as n from location_proofs where schema_uid = ${DEVNET_SCHEMA_UIDS.review}`,
    );
    expect(review!.n).toBe(0);
    const config = (await app.get("/api/v0/config")).body;
    for (const c of chains) {
      const listed = config.chains.find((x: { name: string }) => x.name === c.name).schemas;
      expect(listed.map((s: { uid: string }) => s.uid).sort()).toEqual(
        [
          LOCATION_SCHEMA_UID,
          DEVNET_SCHEMA_UIDS.appendix,
          DEVNET_SCHEMA_UIDS.dart,
          DEVNET_SCHEMA_UIDS.sdk,
        ].sort(),
      );
      for (const s of listed) {
        expect(s.state).toBe("indexed");
        expect(s.first_block).toBeGreaterThan(0);
      }
    }
  });

  it("reads back through the native API, the OGC items and the stats, per schema", async () => {
    const stats = (await app.get(`${LIST}/stats`)).body;
    expect(Object.keys(stats.by_schema)).not.toContain(DEVNET_SCHEMA_UIDS.review);
    for (const [name, uid] of Object.entries(DEVNET_SCHEMA_UIDS)) {
      if (name === "review") continue;
      const written = chains.reduce(
        (n, c) =>
          n +
          (name === "v01" ? c.v01.uids.length : c.lp.bySchema[name as keyof ProtocolSeed["bySchema"]].length),
        0,
      );
      const native = await app.get(`${LIST}?schema=${uid}&includeRevoked=true&limit=1000`);
      expect(native.body.pagination.total, name).toBe(written);
      const ogc = await app.get(`/api/ogc/collections/location-proofs/items?schema=${uid}&limit=1000`);
      expect(ogc.body.numberMatched, name).toBe(written);
      expect(stats.by_schema[uid].total, name).toBe(written);
    }
    expect((await app.get(`${LIST}?schema=${DEVNET_SCHEMA_UIDS.review}`)).body.pagination.total).toBe(0);
  });

  it("each record as its schema's fields say, by name; what would need a guess has no coordinates and says why", async () => {
    const c = chains[0]!;
    const all = await records(c.name);
    const by = (label: string) => all.get(c.lp.uids[label]!.toLowerCase())!;
    for (const type of [
      "coordinate-decimal+lon-lat",
      "geojson-point",
      "geojson-line",
      "geojson-polygon",
      "h3",
      "geohash",
      "wkt",
      "scaledCoordinates",
    ]) {
      expect(by(type), type).toMatchObject({
        location_type: type,
        location_type_normalized: type,
        protocol_version: "0.2",
        lp_version: "1",
        decode_warning: null,
        application_fields: null,
      });
      expect(by(type).longitude, type).not.toBeNull();
    }
    expect(by("address")).toMatchObject({
      location_type_normalized: "address",
      longitude: null,
      decode_warning: null,
    });
    expect(by("GeoJSON Feature")).toMatchObject({
      location_type: "GeoJSON",
      location_type_normalized: "geojson-point",
      longitude: 13.405,
      protocol_version: "1.0",
      lp_version: "1.0.0",
      memo: "GeoJSON Feature",
      application_fields: { accuracy_m: 5, reading: "1000000000000000000000000000001", verified: false },
    });
    expect(by("GeoJSON Feature").application_fields.device).toMatch(/^0x[0-9a-f]{40}$/);
    expect(by("wkt-point")).toMatchObject({ location_type_normalized: "wkt", longitude: 12.4964 });
    expect(by("h3-index")).toMatchObject({ location_type_normalized: "h3" });
    expect(by("decimalDegrees")).toMatchObject({
      location_type_normalized: "coordinate-decimal+lon-lat",
      longitude: 151.2093,
    });
    expect(by("coordinate-decimal.lon-lat")).toMatchObject({ longitude: 2.3522, latitude: 48.8566 });
    expect(by("coordinate-decimal+lat-lon")).toMatchObject({ longitude: 139.6917, latitude: 35.6895 });
    expect(by("lon/lon pair")).toMatchObject({ location: "-122.4194, -122.4194", longitude: null });
    expect(by("lon/lon pair").decode_warning).toMatch(/both values are -122.4194/);
    expect(by("no axis order")).toMatchObject({ location_type_normalized: null, longitude: null });
    expect(by("no axis order").decode_warning).toMatch(/axis order/);
    expect(by("lat-lon under lon-lat").decode_warning).toMatch(/other axis order/);
    expect(by("bytes text")).toMatchObject({
      location: "-0.1276, 51.5072",
      longitude: -0.1276,
      lp_version: "2",
    });
    expect(by("bytes GeoJSON")).toMatchObject({
      location_type_normalized: "geojson-point",
      longitude: 36.8219,
    });
    expect(by("bytes not text")).toMatchObject({ location: "0xfffefd", longitude: null });
    // The seed's v0.2 revocation shows as a v0.1 one does.
    expect(by("DecimalDegrees<string>")).toMatchObject({ revoked: true });
    expect(by("DecimalDegrees<string>").revocation_time).toMatch(/Z$/);
  });

  it("a v0.2 record revoked by its attester shows revoked, as v0.1's do, everywhere", async () => {
    const c = chains[1]!;
    const uid = c.lp.uids["geojson-point"]!;
    const before = (await app.get(`${LIST}/stats`)).body.by_schema[DEVNET_SCHEMA_UIDS.appendix].revoked;
    await revoke(c.devnet.rpcUrl, c.devnet.eas, [uid], { schemaUid: DEVNET_SCHEMA_UIDS.appendix });
    await mine(c.devnet.rpcUrl, 2);
    const res = await post("/api/sync?chain=devnet2");
    expect(res.body.chains[0]).toMatchObject({ status: "ok", revocations: 1 });
    const rec = (await records(c.name)).get(uid.toLowerCase())!;
    expect(rec).toMatchObject({ revoked: true, protocol_version: "0.2" });
    expect(rec.revocation_time).toMatch(/Z$/);
    expect((await records(c.name, false)).has(uid.toLowerCase())).toBe(false);
    const feature = (
      await app.get(
        `/api/ogc/collections/location-proofs/items?chain=devnet2&filter=${encodeURIComponent(`uid = '${uid}'`)}`,
      )
    ).body;
    expect(feature.features[0].properties.revoked).toBe(true);
    expect((await app.get(`${LIST}/stats`)).body.by_schema[DEVNET_SCHEMA_UIDS.appendix].revoked).toBe(
      before + 1,
    );
  });

  it("a location schema registered later is discovered and indexed; one that is not about locations never is", async () => {
    const c = chains[0]!;
    const later = LATER;
    const other = OTHER;
    await registerSchemas(c.devnet.rpcUrl, c.devnet.schemaRegistry, [later, other]);
    const [laterUid] = await attest(
      c.devnet.rpcUrl,
      c.devnet.eas,
      [
        {
          data: encodeRecord(later, {
            lpVersion: "v0.2",
            srs: "WGS84",
            locationType: "geojson.point",
            location: '{"type":"Point","coordinates":[-3.7038,40.4168]}',
            note: "registered later",
          }),
        },
      ],
      { schemaUid: schemaUid(later) },
    );
    await attest(
      c.devnet.rpcUrl,
      c.devnet.eas,
      [{ data: encodeRecord(other, { name: "x", location: "y" }) }],
      {
        schemaUid: schemaUid(other),
      },
    );
    await mine(c.devnet.rpcUrl, 2);
    const res = await post("/api/sync?chain=devnet");
    expect(res.body.chains[0]).toMatchObject({ status: "ok", attestations: 1 });
    expect(res.body.chains[0].schemas.found).toBe(1);
    expect((await records(c.name)).get(laterUid!.toLowerCase())).toMatchObject({
      schema_uid: schemaUid(later),
      protocol_version: "0.2",
      lp_version: "v0.2",
      location_type_normalized: "geojson-point",
      longitude: -3.7038,
      application_fields: { note: "registered later" },
    });
    const config = (await app.get("/api/v0/config")).body;
    const listed = config.chains.find((x: { name: string }) => x.name === "devnet").schemas;
    expect(listed.map((s: { uid: string }) => s.uid)).toContain(schemaUid(later));
    expect(listed.map((s: { uid: string }) => s.uid)).not.toContain(schemaUid(other));
  });
});

describe("a writer killed in the middle of schema discovery", () => {
  let workers: SyncWorkers;
  let proxies: RpcProxy[] = [];
  let fresh: TestApp;
  let shared: Awaited<ReturnType<typeof shareDb>> | undefined;

  beforeAll(async () => {
    workers = await buildSyncWorkers();
  });
  afterAll(async () => {
    await workers?.dispose();
    await shared?.stop();
    for (const p of proxies) await p.close();
    proxies = [];
    await fresh?.close();
  });

  it("leaves both chains consistent, and the next runs converge to exactly the chains", {
    timeout: 240_000,
  }, async () => {
    // A database of its own: the chains are read from nothing, discovery first.
    fresh = await createTestApp(env);
    shared = await shareDb(fresh);
    const registry = chains[0]!.devnet.schemaRegistry.toLowerCase();
    let discoveryCalls = 0;
    let kill: (() => void) | undefined;
    for (const c of chains) {
      proxies.push(
        await startRpcProxy({
          target: c.devnet.rpcUrl,
          delayMs: 30,
          // Watching only: the kill comes once discovery has read past the blocks where the schemas were registered
          // (and committed them), long before it reaches the head.
          intercept: (call) => {
            const filter = call.params?.[0] as
              | { address?: string | string[]; fromBlock?: string }
              | undefined;
            // Discovery's request names the registry (and EAS, for its off-chain events: lib/sync/logs.ts).
            const addresses = [filter?.address ?? []].flat().map((a) => a.toLowerCase());
            if (call.method === "eth_getLogs" && addresses.includes(registry)) {
              if (Number(BigInt(filter?.fromBlock ?? "0x0")) >= 16 && ++discoveryCalls === 2) kill?.();
            }
            return undefined;
          },
        }),
      );
    }
    const worker = workers.start({
      dbUrl: shared.url,
      rpcUrl: proxies[0]!.url,
      rpcUrl2: proxies[1]!.url,
      options: {
        initialRange: 2,
        maxRange: 2,
        commitSize: 5,
        readBatchSize: 5,
        readConcurrency: 1,
        leaseMs: 3_000,
      },
    });
    const killed = new Promise<void>((resolve) => {
      kill = () => void worker.kill().then(resolve);
    });
    await worker.ready;
    await killed;
    await shared.settled();
    expect(
      worker.lines.some((l) => l.includes('"status"')),
      "killed inside its first run",
    ).toBe(false);

    // Where the kill left things: discovery part way, no attestation indexed past discovery's cursor (none at all:
    // the chain's stream waits for discovery), and the schemas known are exactly those registered up to its cursor.
    let discovered = 0;
    for (const c of chains) {
      const [s] = await queryRows<{ cursor: string | null; schema_cursor: string | null }>(
        fresh.db,
        sql`select cursor_block::text as cursor, schema_cursor_block::text as schema_cursor
              from sync_state where chain_id = ${c.devnet.chainId}`,
      );
      const head = (await blockNumber(c.devnet.rpcUrl)) - 2;
      const schemaCursor = s?.schema_cursor === null || s === undefined ? -1 : Number(s.schema_cursor);
      expect(schemaCursor, c.name).toBeLessThan(head);
      expect(s?.cursor ?? null, c.name).toBeNull();
      const known = await queryRows<{ uid: string; registered_block: string | null }>(
        fresh.db,
        sql`select uid, registered_block::text from chain_schemas where chain_id = ${c.devnet.chainId}`,
      );
      for (const k of known) {
        expect(k.uid).not.toBe(DEVNET_SCHEMA_UIDS.review);
        if (k.registered_block !== null) expect(Number(k.registered_block)).toBeLessThanOrEqual(schemaCursor);
      }
      discovered += known.filter((k) => k.registered_block !== null).length;
      expect((await dbState(fresh.db, c.devnet.chainId)).rows.size).toBe(0);
    }
    // The kill came after discovery had committed schemas it found.
    expect(discovered).toBeGreaterThan(0);

    // The next runs take over once the dead writer's lease lapses, and converge.
    const service = createSyncService({ db: fresh.db, config: loadConfig({ LOG_LEVEL: "silent", ...env }) });
    for (let run = 0; run < 40; run++) {
      const report = await service.sync("cron");
      if (report.chains.every((c) => c.status === "ok")) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    for (const c of chains) {
      const state = await dbState(fresh.db, c.devnet.chainId);
      expect(state.cursor).toBe((await blockNumber(c.devnet.rpcUrl)) - 2);
      const truth = await chainTruth(c.devnet.rpcUrl, c.devnet.eas, TRUTH_UIDS);
      expect(state.rows.size).toBe(truth.size);
      expectTruthUpToCursor(state, truth, `${c.name} after the kill`);
    }
    console.log(
      `faults (discovery): writer killed after ${discoveryCalls} discovery reads past block 16; converged`,
    );
  });
});
