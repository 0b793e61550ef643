import { beforeAll, describe, expect, it } from "vitest";
import { attest } from "../../lib/devnet/eas.js";
import type { Devnet } from "../../lib/devnet/index.js";
import { encodeRecord, registerSchemas, schemaUid } from "../../lib/devnet/schemas.js";
import { insertProofs } from "../../lib/local/sample-proofs.js";
import { AUTH, mine, oneDevnet, startTestDevnet } from "../helpers/anvil.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { endAfterAll } from "../helpers/fixtures.js";
import { geojsonProof } from "../helpers/geojson-proofs.js";

/**
 * A point at a subnormal distance from zero is valid GeoJSON, and anyone can attest one. Stored as attested in the
 * point and bounds columns, beside proofs at [0, 0] (common: Null Island), GiST's box arithmetic failed the insert
 * with "value out of range: underflow", and the sync stopped at that attestation on every run. The location columns
 * are stored snapped near zero (lib/location/columns.ts, SNAP); the attested geometry is kept as attested.
 * Here: enough proofs at [0, 0] for the GiST indexes to have inner pages (inserted as rows, as the indexer stores
 * them), then such attestations written through the real EAS contract on the devnet, and synced.
 */
const SCHEMA = "string lpVersion,string srs,string locationType,string location";
const TINY: [number, number][] = [
  [1e-200, 1e-200],
  [-5e-324, 2.5e-310],
];
let devnet: Devnet;
let app: TestApp;
let uids: string[];
let firstSync: { status: number; body: unknown };

const nullIsland = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, i) =>
    geojsonProof(`${prefix} ${i}`, { type: "Point", coordinates: [0, 0] }),
  );
beforeAll(async () => {
  devnet = await startTestDevnet();
  await registerSchemas(devnet.rpcUrl, devnet.schemaRegistry, [SCHEMA]);
  uids = (
    await attest(
      devnet.rpcUrl,
      devnet.eas,
      TINY.map((coordinates) => ({
        data: encodeRecord(SCHEMA, {
          lpVersion: "0.2",
          srs: "EPSG:4326",
          locationType: "geojson-point",
          location: JSON.stringify({ type: "Point", coordinates }),
        }),
      })),
      { schemaUid: schemaUid(SCHEMA) },
    )
  ).map((u) => u.toLowerCase());
  await mine(devnet.rpcUrl, 3);
  app = await createTestApp(oneDevnet(devnet.rpcUrl));
  await insertProofs(app.db, nullIsland(400, "null island"));
  firstSync = await app.get("/api/sync?chain=devnet", { method: "POST", headers: AUTH });
}, 180_000);
endAfterAll(() => [app, devnet]);

describe("coordinates at subnormal distances from zero", () => {
  it("are indexed on the first run, as zero in the location columns, the attested geometry kept", async () => {
    expect(firstSync.status, JSON.stringify(firstSync.body)).toBe(200);
    for (const [i, uid] of uids.entries()) {
      const record = await app.get(`/api/v0/location-proofs/${uid}`);
      expect(record.status).toBe(200);
      expect(record.body.longitude).toBe(0);
      expect(record.body.latitude).toBe(0);
      expect(JSON.parse(record.body.location)).toEqual({ type: "Point", coordinates: TINY[i] });
    }
    // A box around zero finds them, through the bounds' index and the point's.
    const native = await app.get("/api/v0/location-proofs?chain=devnet&bbox=-1,-1,1,1");
    expect(native.body.data.map((r: { uid: string }) => r.uid).sort()).toEqual([...uids].sort());
    const items = await app.get(
      "/api/ogc/collections/location-proofs/items?chain=devnet&bbox=-1,-1,1,1&limit=100",
    );
    expect(items.body.features.map((f: { id: string }) => f.id).sort()).toEqual([...uids].sort());
  });

  it("stored unsnapped, they fail the insert (the hazard the snap removes, on this engine)", async () => {
    const [row] = nullIsland(1, "unsnapped");
    const raw = {
      ...row!,
      longitude: 1e-200,
      latitude: 1e-200,
      minLon: 1e-200,
      minLat: 1e-200,
      maxLon: 1e-200,
      maxLat: 1e-200,
    };
    const error = await insertProofs(app.db, [raw]).then(
      () => undefined,
      (e: Error & { cause?: Error }) => e,
    );
    expect(String(error?.cause?.message ?? error?.message)).toMatch(/underflow/);
  });
});
