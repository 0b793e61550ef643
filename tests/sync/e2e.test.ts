import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client.js";
import { attest, revoke } from "../../lib/devnet/eas.js";
import type { Devnet } from "../../lib/devnet/index.js";
import { encodeLocationProof } from "../../lib/devnet/location-data.js";
import { seedDevnet } from "../../lib/devnet/seed.js";
import { AUTH, blockNumber, mine, startTestDevnet } from "../helpers/anvil.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { endAfterAll } from "../helpers/fixtures.js";

let devnet: Devnet;
let app: TestApp;
let seeded: { uids: `0x${string}`[]; revoked: `0x${string}`[] };

const post = (path: string) => app.get(path, { method: "POST", headers: AUTH });
const proof = async (uid: string) => (await app.get(`/api/v0/location-proofs/${uid}`)).body;
const count = async () =>
  (await queryRows<{ n: number }>(app.db, sql`select count(*)::int as n from location_proofs`))[0]!.n;

beforeAll(async () => {
  devnet = await startTestDevnet();
  app = await createTestApp({ CRON_SECRET: "test-secret", RPC_URL_DEVNET: devnet.rpcUrl, CHAINS: "devnet" });
  seeded = await seedDevnet(devnet.rpcUrl, devnet.eas);
  await mine(devnet.rpcUrl, 3); // past the devnet's 2 confirmations
});
endAfterAll(() => [app, devnet]);

describe("sync end to end (anvil + EAS + Multicall3 → database → API)", () => {
  it("POST /api/sync indexes every seeded attestation", async () => {
    const res = await post("/api/sync?chain=devnet");
    expect(res.body.failures).toEqual([]);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("ok");
    const chain = res.body.chains[0];
    expect(chain).toMatchObject({
      chain: "devnet",
      status: "ok",
      attestations: seeded.uids.length,
      error: null,
    });
    expect(chain.revocations).toBe(seeded.revoked.length);
    expect(chain.cursor_block).toBe((await blockNumber(devnet.rpcUrl)) - 2);
    expect(await count()).toBe(seeded.uids.length);
  });

  it("decodes each encoding into the right coordinates and keeps the raw location", async () => {
    const rows = await queryRows<{
      memo: string;
      longitude: number | null;
      latitude: number | null;
      location: string;
      min_lon: number | null;
      max_lon: number | null;
      geometry: { type: string } | null;
    }>(
      app.db,
      sql`select memo, longitude, latitude, location, min_lon, max_lon, geometry from location_proofs`,
    );
    const by = Object.fromEntries(rows.map((r) => [r.memo, r]));
    expect(by["San Francisco"]).toMatchObject({ longitude: -122.4194, latitude: 37.7749 });
    expect(by["Tokyo, latitude first"]).toMatchObject({ longitude: 139.6917, latitude: 35.6895 });
    expect(by["Null Island (zero is valid)"]).toMatchObject({ longitude: 0, latitude: 0 });
    expect(by["Lagos meridian, latitude zero"]).toMatchObject({ longitude: 3.3792, latitude: 0 });
    expect(by["Paris, polygon"]!.longitude).toBeCloseTo(2.3522, 6);
    expect(by["Rome, WKT"]).toMatchObject({ longitude: 12.4964, latitude: 41.9028 });
    expect(by["San Francisco, geohash"]!.longitude).toBeCloseTo(-122.4194, 3);
    // H3 cells: the boundary is the geometry, the centre the point; across ±180° the bounds have west > east.
    const h3 = by["San Francisco, H3 cell (resolution 9)"]!;
    expect(h3.geometry?.type).toBe("Polygon");
    expect(h3.longitude).toBeCloseTo(-122.418, 2);
    expect(h3.latitude).toBeCloseTo(37.777, 2);
    const across = by["H3 cell across the antimeridian (resolution 3)"]!;
    expect(across.min_lon!).toBeGreaterThan(across.max_lon!);
    for (const memo of [
      "Free-text address: no coordinates",
      "Latitude first under a lon-lat type: invalid",
      "Out of range: invalid",
      "Broken GeoJSON: invalid",
      "Web Mercator srs: not interpretable",
      "Not an H3 cell (14 digits): invalid",
    ]) {
      expect(by[memo], memo).toMatchObject({ longitude: null, latitude: null });
    }
    expect(by["Broken GeoJSON: invalid"]!.location).toBe("{not json");
  });

  it("stores undecodable data with decode_error and the raw bytes, and proofs are readable through the API", async () => {
    const rows = await queryRows<{ uid: string; data: string; decode_error: string | null }>(
      app.db,
      sql`select uid, data, decode_error from location_proofs where decode_error is not null order by data`,
    );
    expect(rows.map((r) => r.data).sort()).toEqual(["0x", "0xdeadbeef"]);
    const api = await proof(rows[0]!.uid);
    expect(api.decode_error ?? api.data?.decode_error).toBeTruthy();
    const noTime = await queryRows<{ event_timestamp: Date | null; event_timestamp_raw: string }>(
      app.db,
      sql`select event_timestamp, event_timestamp_raw from location_proofs where memo = 'No event timestamp'`,
    );
    expect(noTime[0]).toMatchObject({ event_timestamp: null, event_timestamp_raw: "0" });
  });

  it("marks the seeded revocations revoked, with a revocation time", async () => {
    const rows = await queryRows<{ uid: string; revoked: boolean; revocation_time: Date | null }>(
      app.db,
      sql`select uid, revoked, revocation_time from location_proofs where revoked`,
    );
    expect(rows.map((r) => r.uid).sort()).toEqual([...seeded.revoked].sort());
    expect(rows.every((r) => r.revocation_time !== null)).toBe(true);
  });

  it("is idempotent: re-indexing from the start gives the same rows", async () => {
    const snapshot = () =>
      queryRows(app.db, sql`select * from location_proofs order by uid`).then((rows) =>
        rows.map(({ indexed_at: _ignored, ...rest }) => rest),
      );
    const before = await snapshot();
    await app.db.execute(sql`update sync_state set cursor_block = null`);
    const res = await post("/api/sync");
    expect(res.status).toBe(200);
    expect(await snapshot()).toEqual(before);
  });

  it("an attestation written by another client appears after the next sync, and its revocation flips revoked", async () => {
    const [uid] = await attest(devnet.rpcUrl, devnet.eas, [
      {
        data: encodeLocationProof({
          locationType: "coordinate-decimal+lon-lat",
          location: "5.5, -4.25",
          memo: "late",
        }),
      },
    ]);
    await mine(devnet.rpcUrl, 2);
    await post("/api/sync");
    expect(await proof(uid!)).toMatchObject({ longitude: 5.5, latitude: -4.25, revoked: false });
    await revoke(devnet.rpcUrl, devnet.eas, [uid!]);
    await mine(devnet.rpcUrl, 2);
    const res = await post("/api/sync");
    expect(res.body.chains[0].revocations).toBe(1);
    expect(await proof(uid!)).toMatchObject({ revoked: true });
  });

  it("times past year 9999 (any uint64 is valid on chain) are stored as null, raw value kept, and the sync goes on", async () => {
    // PostgreSQL takes no year past 9999 in ISO text: one such attestation must not stall the chain's cursor.
    const [uid] = await attest(devnet.rpcUrl, devnet.eas, [
      {
        data: encodeLocationProof({
          eventTimestamp: 253_402_300_800n, // 10000-01-01T00:00:00Z
          locationType: "coordinate-decimal+lon-lat",
          location: "1.5, 2.5",
        }),
        expirationTime: 2n ** 63n,
      },
    ]);
    const [last] = await attest(devnet.rpcUrl, devnet.eas, [
      {
        data: encodeLocationProof({
          eventTimestamp: 253_402_300_799n, // 9999-12-31T23:59:59Z, the last second PostgreSQL takes as ISO text
          locationType: "coordinate-decimal+lon-lat",
          location: "3.5, 4.5",
        }),
      },
    ]);
    await mine(devnet.rpcUrl, 2);
    const res = await post("/api/sync");
    expect(res.status).toBe(200);
    expect(await proof(uid!)).toMatchObject({
      event_timestamp: null,
      event_timestamp_raw: "253402300800",
      expiration_time: null,
      longitude: 1.5,
    });
    expect(await proof(last!)).toMatchObject({ event_timestamp: "9999-12-31T23:59:59.000Z", longitude: 3.5 });
  });

  it("GET /api/sync/status reports the cursor at head − confirmations, the last run and the worker", async () => {
    const res = await app.get("/api/sync/status", { headers: AUTH });
    expect(res.status).toBe(200);
    const devnetStatus = res.body.chains.find((c: { chain: string }) => c.chain === "devnet");
    const head = await blockNumber(devnet.rpcUrl);
    expect(devnetStatus).toMatchObject({ enabled: true, paused: false, head_block: head, confirmations: 2 });
    expect(devnetStatus.cursor_block).toBe(head - 2);
    expect(devnetStatus.lag_blocks).toBe(2);
    expect(devnetStatus.last_run).toMatchObject({ status: "ok", trigger: "manual", error: null });
    expect(devnetStatus.lease).toBeNull();
    expect(res.body.worker.state).toBe("running");
    expect(res.body.chains.find((c: { chain: string }) => c.chain === "base")).toMatchObject({
      enabled: false,
    });
  });

  it("the worker can be paused: the cron skips a paused chain and says so; resume brings it back", async () => {
    let res = await post("/api/sync/worker?action=pause&chain=devnet");
    expect(res.status).toBe(200);
    expect(res.body.worker).toMatchObject({ state: "paused", paused_chains: ["devnet"] });
    res = await app.get("/api/cron/sync", { headers: AUTH });
    expect(res.status).toBe(200);
    expect(res.body.chains[0]).toMatchObject({ status: "skipped", reason: "paused" });
    const status = (await app.get("/api/sync/status", { headers: AUTH })).body;
    expect(status.chains.find((c: { chain: string }) => c.chain === "devnet")).toMatchObject({
      paused: true,
    });
    expect(status.worker.state).toBe("paused");
    res = await post("/api/sync/worker?action=resume");
    expect(res.body.worker.state).toBe("running");
    res = await app.get("/api/cron/sync", { headers: AUTH });
    expect(res.body.chains[0].status).toBe("ok");
    expect(
      (await app.get("/api/sync/worker", { headers: AUTH })).body.chains.find(
        (c: { chain: string }) => c.chain === "devnet",
      ),
    ).toMatchObject({ paused: false });
  });

  it("POST /api/sync/revocations reconciles stored proofs with the chain", async () => {
    const uid = seeded.revoked[0]!;
    await app.db.execute(
      sql`update location_proofs set revoked = false, revocation_time = null where uid = ${uid}`,
    );
    const res = await post("/api/sync/revocations?chain=devnet");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "ok", changed: 1 });
    expect(res.body.chains[0].checked).toBeGreaterThan(10);
    expect(await proof(uid)).toMatchObject({ revoked: true });
    expect((await post("/api/sync/revocations")).body.changed).toBe(0);
  });

  it("rejects bad input and missing credentials", async () => {
    const bad = await post("/api/sync?chain=atlantis");
    expect(bad.status).toBe(400);
    expect(bad.body.parameter).toBe("chain");
    expect(bad.body.message).toContain("devnet");
    expect((await post("/api/sync/worker?action=explode")).status).toBe(400);
    expect((await post("/api/sync/worker")).status).toBe(400);
    expect((await app.get("/api/sync", { method: "POST" })).status).toBe(401);
    expect((await app.get("/api/cron/sync")).status).toBe(401);
    expect((await app.get("/api/sync/status", { headers: { authorization: "Bearer wrong" } })).status).toBe(
      401,
    );
    expect((await app.get("/api/sync/status", { method: "POST", headers: AUTH })).status).toBe(405);
  });

  it("GET /api/cron/sync/test answers without credentials and without side effects", async () => {
    const runs = async () =>
      (await queryRows<{ n: number }>(app.db, sql`select count(*)::int as n from sync_runs`))[0]!.n;
    const before = await runs();
    const res = await app.get("/api/cron/sync/test");
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("ok");
    expect(res.headers.get("cache-control")).toContain("no-store");
    expect(await runs()).toBe(before);
  });
});
