import type { SignedOffchainAttestation } from "@ethereum-attestation-service/eas-sdk";
import type { Hex } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { LOCATION_SCHEMA_UID } from "../../lib/chains/schema.js";
import { DEVNET_ACCOUNTS, offchainOnChain } from "../../lib/devnet/eas.js";
import type { Devnet } from "../../lib/devnet/index.js";
import { encodeLocationProof } from "../../lib/devnet/location-data.js";
import { AUTH, blockNumber, mine, rpc, startTestDevnet } from "../helpers/anvil.js";
import type { TestApp } from "../helpers/app.js";
import { endAfterAll } from "../helpers/fixtures.js";
import { jsonOf, offchainOf, offchainTestApp, signOffchain } from "../helpers/offchain.js";

/**
 * Revocation and timestamps from the chain: EAS's revokeOffchain and timestamp, sent on the devnet, show on the
 * off-chain record after the next sync (the attester's revocation only), also for a record published after its
 * revocation; a reorg (anvil_rollback, then other blocks at those heights) takes them back.
 */

// The publisher (anvil's first default key) is DEVNET_ACCOUNTS[0], the attester.
const [ATTESTER, SOMEONE] = DEVNET_ACCOUNTS as [Hex, Hex];

let devnet: Devnet;
let app: TestApp;

const sign = (memo: string): Promise<SignedOffchainAttestation> =>
  signOffchain(offchainOf(devnet), {
    schema: LOCATION_SCHEMA_UID as Hex,
    data: encodeLocationProof({ locationType: "DecimalDegrees<string>", location: "1.5, 2.5", memo }),
  });

async function publish(s: SignedOffchainAttestation) {
  const res = await app.get("/api/v0/location-records", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: jsonOf(s),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const record = async (uid: string) => {
  const res = await app.get(`/api/v0/location-records/${uid}`);
  expect(res.status).toBe(200);
  return res.body as { revoked: boolean; revocation_time: string | null; timestamped_at: string | null };
};

const sync = async () => {
  const res = await app.get("/api/sync", { method: "POST", headers: AUTH });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

beforeAll(async () => {
  devnet = await startTestDevnet();
  await mine(devnet.rpcUrl, 2);
  // No confirmations, so that a reorg reaches indexed blocks without mining dozens of blocks.
  app = await offchainTestApp(devnet.rpcUrl);
  await sync();
}, 120_000);
endAfterAll(() => [app, devnet]);

describe("off-chain revocations and timestamps from the chain", () => {
  it("revokeOffchain by the attester and timestamp show after the next sync; a reorg takes them back", async () => {
    const [a, b, c] = [await sign("A"), await sign("B"), await sign("C")];
    for (const s of [a, b, c]) await publish(s);
    const uid = (s: SignedOffchainAttestation) => s.uid.toLowerCase() as Hex;
    const forkPoint = await blockNumber(devnet.rpcUrl);
    await offchainOnChain(devnet.rpcUrl, devnet.eas, "revokeOffchain", uid(a), { from: ATTESTER });
    // Anyone may call revokeOffchain; only the attester's revocation counts.
    await offchainOnChain(devnet.rpcUrl, devnet.eas, "revokeOffchain", uid(b), { from: SOMEONE });
    await offchainOnChain(devnet.rpcUrl, devnet.eas, "timestamp", uid(c), { from: SOMEONE });
    // Not before a sync has read them.
    expect(await record(uid(a))).toMatchObject({ revoked: false, revocation_time: null });

    await sync();
    const revoked = await record(uid(a));
    expect(revoked.revoked).toBe(true);
    expect(Date.parse(revoked.revocation_time!)).toBeGreaterThan(Date.now() - 600_000);
    expect(await record(uid(b))).toMatchObject({
      revoked: false,
      revocation_time: null,
      timestamped_at: null,
    });
    const stamped = await record(uid(c));
    expect(stamped.revoked).toBe(false);
    expect(Date.parse(stamped.timestamped_at!)).toBeGreaterThan(Date.now() - 600_000);

    // The lists: a revoked record is left out unless asked for, like a revoked on-chain proof.
    const listed = await app.get("/api/v0/location-proofs?source=offchain&limit=100");
    expect(listed.body.data.map((r: { uid: string }) => r.uid)).not.toContain(uid(a));
    const all = await app.get("/api/v0/location-proofs?source=offchain&includeRevoked=true&limit=100");
    expect(all.body.data.find((r: { uid: string }) => r.uid === uid(a))).toMatchObject({ revoked: true });

    // The three transactions' blocks are rolled back, and other (empty) blocks take their heights: a reorg.
    const depth = (await blockNumber(devnet.rpcUrl)) - forkPoint;
    await rpc(devnet.rpcUrl, "anvil_rollback", [depth]);
    await mine(devnet.rpcUrl, depth + 1);
    const after = await sync();
    expect(after.chains[0].rewound_blocks).toBeGreaterThan(0);
    expect(await record(uid(a))).toMatchObject({ revoked: false, revocation_time: null });
    expect(await record(uid(c))).toMatchObject({ timestamped_at: null });
  });

  it("a record revoked on chain before it was published is revoked when published", async () => {
    const d = await sign("D");
    await offchainOnChain(devnet.rpcUrl, devnet.eas, "revokeOffchain", d.uid as Hex, { from: ATTESTER });
    await sync();
    const body = await publish(d);
    expect(body.revoked).toBe(true);
    expect(body.revocation_time).not.toBeNull();
    expect((await record(d.uid.toLowerCase())).revoked).toBe(true);
  });
});
