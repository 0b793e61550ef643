import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client.js";
import { attest } from "../../lib/devnet/eas.js";
import type { Devnet } from "../../lib/devnet/index.js";
import { encodeLocationProof } from "../../lib/devnet/location-data.js";
import { copyProof } from "../../lib/devnet/proof-copies.js";
import {
  AUTH,
  attestAcrossFork,
  blockNumber,
  mine,
  oneDevnet,
  rpc,
  startTestDevnet,
} from "../helpers/anvil.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { endAfterAll } from "../helpers/fixtures.js";
import { syncService } from "../helpers/sync-service.js";

/**
 * A deep rewind (issue #33): the rows of orphaned blocks go in batches across runs (lib/sync/deletes.ts
 * finishRewinds), each its own transaction, the count tables exact after every batch, the status showing what is
 * left, and nothing indexed past the fork until they are gone. The orphaned block's rows are a real attestation and
 * synthetic copies of it (new uids, same block), so that the rewind has more rows than a batch without writing them
 * on chain; the reorg itself is anvil's (`anvil_reorg`).
 */
const SYNTHETIC = 700;
const BATCH = 300;

let devnet: Devnet;
let app: TestApp;

const proofData = (memo: string) =>
  encodeLocationProof({ locationType: "DecimalDegrees<string>", location: "1.5, 2.5", memo });
const sync = async () =>
  (await syncService(app, { options: { deleteBatchSize: BATCH, deleteBatchesPerRun: 1 } }).sync("manual"))
    .chains[0]!;
const state = async () =>
  (
    await queryRows<{
      rows: number;
      counted: number;
      revoked: number;
      counted_revoked: number;
      cursor: number;
      memos: string[];
    }>(
      app.db,
      sql`select (select count(*)::int from location_proofs) as rows,
                 (select coalesce(sum(n), 0)::int from proof_counts) as counted,
                 (select count(*)::int from location_proofs where revoked) as revoked,
                 (select coalesce(sum(n), 0)::int from proof_counts where revoked) as counted_revoked,
                 (select cursor_block::int from sync_state where chain = 'devnet') as cursor,
                 (select coalesce(array_agg(distinct memo order by memo), '{}') from location_proofs) as memos`,
    )
  )[0]!;

beforeAll(async () => {
  devnet = await startTestDevnet();
  app = await createTestApp(oneDevnet(devnet.rpcUrl, { CONFIRMATIONS_DEVNET: "0" }));
}, 120_000);
endAfterAll(() => [app, devnet]);

describe("a deep rewind goes in batches across runs", () => {
  it("each run deletes one batch, counts stay exact, status shows the rest, nothing is indexed past the fork meanwhile", async () => {
    const { forkPoint } = await attestAcrossFork(devnet, proofData);
    expect(await sync()).toMatchObject({ status: "ok", attestations: 2, revocations: 1 });
    await copyProof(app.db, { where: sql`memo = 'B'`, count: SYNTHETIC, uidPrefix: "dd" });
    const before = await state();
    expect(before).toMatchObject({
      rows: SYNTHETIC + 2,
      counted: SYNTHETIC + 2,
      revoked: 1,
      counted_revoked: 1,
    });

    // Every block after the fork point replaced (same height: only hashes tell), then one more proof on the new branch.
    await rpc(devnet.rpcUrl, "anvil_reorg", [(await blockNumber(devnet.rpcUrl)) - forkPoint, []]);
    await attest(devnet.rpcUrl, devnet.eas, [{ data: proofData("C") }]);
    await mine(devnet.rpcUrl, 1);

    const orphaned = SYNTHETIC + 1;
    const runs = [];
    for (let i = 0; i < Math.ceil(orphaned / BATCH) + 2; i++) {
      const run = await sync();
      runs.push(run);
      const now = await state();
      // Counts exact after every batch.
      expect(now.counted).toBe(now.rows);
      expect(now.counted_revoked).toBe(now.revoked);
      expect(run.schemas.rows_removed ?? 0).toBeLessThanOrEqual(BATCH);
      const status = await app.get("/api/sync/status", { headers: AUTH });
      const chain = status.body.chains.find((c: { chain: string }) => c.chain === "devnet");
      if (run.status === "partial") {
        expect(run.reason).toBe("rewind pending");
        // The cursor is back at (or below) the fork, and the new branch's proof waits for the rewind to finish.
        expect(now.cursor).toBeLessThanOrEqual(forkPoint);
        expect(now.memos).not.toContain("C");
        expect(chain.deletes.rewind).toMatchObject({ rows_total: orphaned, rows_left: now.rows - 1 });
        expect(chain.deletes_pending).toBe(now.rows - 1);
      } else {
        expect(run.status).toBe("ok");
        expect(chain.deletes.rewind).toBeNull();
        expect(chain.deletes_pending).toBe(0);
        break;
      }
    }
    expect(runs.length).toBe(Math.ceil(orphaned / BATCH));
    expect(runs[0]!.rewound_blocks).toBeGreaterThan(0);
    const after = await state();
    // B and its copies gone, A's orphaned revocation undone, C indexed by the run that finished the rewind.
    expect(after.memos).toEqual(["A", "C"]);
    expect(after).toMatchObject({ rows: 2, counted: 2, revoked: 0, counted_revoked: 0 });
  });
});
