import { beforeAll, describe, expect, it } from "vitest";
import { TEXT_CHARS } from "../../lib/bounds/limits.js";
import { attest } from "../../lib/devnet/eas.js";
import type { Devnet } from "../../lib/devnet/index.js";
import { encodeRecord, registerSchemas, schemaUid } from "../../lib/devnet/schemas.js";
import { AUTH, mine, oneDevnet, startTestDevnet } from "../helpers/anvil.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { endAfterAll } from "../helpers/fixtures.js";

/**
 * Bounded responses on attested values (issue #32, item 5): anyone may register a location schema and attest large
 * values. Here a schema registered on the devnet's EAS, an attestation of a memo and an application field far past
 * the lists' bounds (written through the real EAS contract, its data stored on chain), synced, then read: the list
 * cuts them and marks the record, the record by uid has them whole.
 */
const SCHEMA = "string lpVersion,string srs,string locationType,string location,string memo,string note";
let devnet: Devnet;
let app: TestApp;
let uid: string;
const memo = `a long memo ${"m".repeat(9_000)}`;
const note = `a long note ${"n".repeat(17_000)}`;

beforeAll(async () => {
  devnet = await startTestDevnet();
  await registerSchemas(devnet.rpcUrl, devnet.schemaRegistry, [SCHEMA]);
  const uids = (
    await attest(
      devnet.rpcUrl,
      devnet.eas,
      [
        {
          data: encodeRecord(SCHEMA, {
            lpVersion: "0.2",
            srs: "EPSG:4326",
            locationType: "coordinate-decimal+lon-lat",
            location: "13.405, 52.52",
            memo,
            note,
          }),
        },
      ],
      // Each 32 bytes stored costs 20,000 gas: a known bound skips the estimate.
      { schemaUid: schemaUid(SCHEMA), gasPerAttestation: 25_000_000n },
    )
  ).map((u) => u.toLowerCase());
  expect(uids).toHaveLength(1);
  uid = uids[0]!;
  await mine(devnet.rpcUrl, 3);
  app = await createTestApp(oneDevnet(devnet.rpcUrl));
  const sync = await app.get("/api/sync?chain=devnet", { method: "POST", headers: AUTH });
  expect(sync.status).toBe(200);
}, 180_000);
endAfterAll(() => [app, devnet]);

describe("values attested past the lists' bounds", () => {
  it("the native list and the OGC items cut them and mark the record; the record by uid has them whole", async () => {
    const list = await app.get("/api/v0/location-proofs?chain=devnet");
    expect(list.status).toBe(200);
    const record = list.body.data.find((r: { uid: string }) => r.uid === uid);
    expect(record.memo).toBe(memo.slice(0, TEXT_CHARS));
    expect(record.application_fields).toBeNull();
    expect(record.truncated).toEqual({
      fields: ["memo", "application_fields"],
      href: `/api/v0/location-proofs/${uid}`,
    });
    const items = await app.get("/api/ogc/collections/location-proofs/items?chain=devnet");
    const feature = items.body.features.find((f: { id: string }) => f.id === uid);
    expect(feature.properties.memo).toHaveLength(TEXT_CHARS);
    expect(feature.properties.truncated.fields).toEqual(["memo", "application_fields"]);
    const whole = await app.get(`/api/v0/location-proofs/${uid}`);
    expect(whole.body.memo).toBe(memo);
    expect(whole.body.application_fields).toEqual({ note });
    expect(whole.body).not.toHaveProperty("truncated");
  });
});
