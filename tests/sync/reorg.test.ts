import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client.js";
import { attest } from "../../lib/devnet/eas.js";
import { type Devnet, startDevnet } from "../../lib/devnet/index.js";
import { encodeLocationProof } from "../../lib/devnet/location-data.js";
import { encodeRecord, registerSchemas, schemaUid } from "../../lib/devnet/schemas.js";
import { attestAcrossFork, blockNumber, mine, oneDevnet, rpc, startTestDevnet } from "../helpers/anvil.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { endAfterAll } from "../helpers/fixtures.js";
import { syncService } from "../helpers/sync-service.js";

let devnet: Devnet;
let app: TestApp;

const proofData = (memo: string) =>
  encodeLocationProof({ locationType: "DecimalDegrees<string>", location: "1.5, 2.5", memo });
const sync = async () => {
  const report = await syncService(app).sync("manual");
  return report.chains[0]!;
};
const rows = async () =>
  Object.fromEntries(
    (
      await queryRows<{ uid: string; revoked: boolean; memo: string }>(
        app.db,
        sql`select uid, revoked, memo from location_proofs`,
      )
    ).map((r) => [r.memo, r]),
  );

beforeAll(async () => {
  devnet = await startTestDevnet();
  // Confirmations 0, so that the reorgs below reach indexed blocks without mining dozens of blocks.
  app = await createTestApp(oneDevnet(devnet.rpcUrl, { CONFIRMATIONS_DEVNET: "0" }));
});
endAfterAll(() => [app, devnet]);

describe("reorgs", () => {
  it("anvil_reorg: rows of orphaned blocks go, canonical ones stay, an orphaned revocation is undone", async () => {
    const { forkPoint } = await attestAcrossFork(devnet, proofData);
    expect(await sync()).toMatchObject({ status: "ok", attestations: 2, revocations: 1 });
    expect(await rows()).toMatchObject({ A: { revoked: true }, B: { revoked: false } });

    // Replace every block after the fork point with empty ones (same height: only hashes tell).
    const depth = (await blockNumber(devnet.rpcUrl)) - forkPoint;
    await rpc(devnet.rpcUrl, "anvil_reorg", [depth, []]);
    const result = await sync();
    expect(result.status).toBe("ok");
    // Back to the newest stored block still canonical (A's, at or below the fork point).
    expect(result.rewound_blocks).toBeGreaterThanOrEqual(depth);
    const after = await rows();
    expect(after.B).toBeUndefined();
    expect(after.A).toMatchObject({ revoked: false });
  });

  it("anvil_rollback below the cursor: the run waits for a block at that height; a different one is a reorg", async () => {
    await attest(devnet.rpcUrl, devnet.eas, [{ data: proofData("C") }]);
    expect((await sync()).status).toBe("ok");
    expect((await rows()).C).toBeDefined();
    await rpc(devnet.rpcUrl, "anvil_rollback", [1]);
    // The head is now below the cursor: a block above the head proves nothing (a lagging node looks the same), so
    // the run waits and deletes nothing (lib/sync/reorg.ts).
    const waiting = await sync();
    expect(waiting).toMatchObject({ status: "ok", rewound_blocks: 0 });
    expect((await rows()).C).toBeDefined();
    // A different block at C's height proves the reorg: C goes, D arrives.
    await attest(devnet.rpcUrl, devnet.eas, [{ data: proofData("D") }]);
    const result = await sync();
    expect(result).toMatchObject({ status: "ok", attestations: 1 });
    expect(result.rewound_blocks).toBeGreaterThan(0);
    expect(Object.keys(await rows()).sort()).toEqual(["A", "D"]);
  });

  it("a schema registered in an orphaned block is forgotten with its rows; registered on the new branch, found again", async () => {
    const schema = "string lp_version,string srs,string location_type,string location,string reorg_note";
    const uidOf = schemaUid(schema);
    const write = async (note: string) => {
      await registerSchemas(devnet.rpcUrl, devnet.schemaRegistry, [schema]);
      const [uid] = await attest(
        devnet.rpcUrl,
        devnet.eas,
        [
          {
            data: encodeRecord(schema, {
              lp_version: "0.2",
              location_type: "h3",
              location: "8928308280fffff",
              reorg_note: note,
            }),
          },
        ],
        { schemaUid: uidOf },
      );
      return uid!.toLowerCase();
    };
    const known = async () =>
      (await queryRows<{ uid: string }>(app.db, sql`select uid from chain_schemas where uid = ${uidOf}`))
        .length;
    const forkPoint = await blockNumber(devnet.rpcUrl);
    const first = await write("orphaned");
    const before = await sync();
    expect(before).toMatchObject({ status: "ok", attestations: 1 });
    expect(before.schemas.found).toBe(1);
    expect(await known()).toBe(1);

    // The registration and the attestation are replaced by empty blocks: discovery's cursor passed them too.
    await rpc(devnet.rpcUrl, "anvil_reorg", [(await blockNumber(devnet.rpcUrl)) - forkPoint, []]);
    const after = await sync();
    expect(after.status).toBe("ok");
    expect(after.rewound_blocks).toBeGreaterThan(0);
    expect(await known()).toBe(0);
    expect((await queryRows(app.db, sql`select uid from location_proofs where uid = ${first}`)).length).toBe(
      0,
    );

    const second = await write("canonical");
    const again = await sync();
    expect(again).toMatchObject({ status: "ok", attestations: 1 });
    expect(again.schemas.found).toBe(1);
    expect(await known()).toBe(1);
    const [row] = await queryRows<{ application_fields: unknown }>(
      app.db,
      sql`select application_fields from location_proofs where uid = ${second}`,
    );
    expect(row!.application_fields).toEqual({ reorg_note: "canonical" });
  });

  it("a devnet that was reset (different chain, same port) is re-indexed from the start, never a crash", async () => {
    const port = Number(new URL(devnet.rpcUrl).port);
    await devnet.stop();
    devnet = await startDevnet({ port, blockTimeSeconds: 0 });
    await attest(devnet.rpcUrl, devnet.eas, [{ data: proofData("E") }]);
    await mine(devnet.rpcUrl, 1);
    const result = await sync();
    expect(result.status).toBe("ok");
    expect(result.rewound_blocks).toBeGreaterThan(0);
    expect(Object.keys(await rows())).toEqual(["E"]);
    const [state] = await queryRows<{ cursor_block: string }>(
      app.db,
      sql`select cursor_block from sync_state`,
    );
    expect(Number(state!.cursor_block)).toBe(await blockNumber(devnet.rpcUrl));
  });
});
