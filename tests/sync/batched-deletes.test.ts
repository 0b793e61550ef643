import { beforeAll, describe, expect, it } from "vitest";
import { attest } from "../../lib/devnet/eas.js";
import type { Devnet } from "../../lib/devnet/index.js";
import { encodeLocationProof } from "../../lib/devnet/location-data.js";
import { DEVNET_SCHEMA_UIDS } from "../../lib/devnet/schemas.js";
import { AUTH, mine } from "../helpers/anvil.js";
import type { TestApp } from "../helpers/app.js";
import { endAfterAll } from "../helpers/fixtures.js";
import { schemaCounts } from "../helpers/schema-counts.js";
import { devnetSyncConfig, syncedDevnetWithCopies, syncService } from "../helpers/sync-service.js";

/**
 * Denying a schema with many rows: the rows go in batches across runs (lib/sync/deletes.ts), each batch its own
 * transaction, the count tables exact after every batch, the status showing what is left, and new attestations of
 * the other schemas indexed by every one of those runs. The denied schema's rows are synthetic copies of a real one
 * (new uids; the generated `shape` column is left to the database), so that the test has thousands without writing them on chain; the 500,000-row figure is bench:sync's.
 */
const SYNTHETIC = 2_000;
const BATCH = 300;
const { appendix } = DEVNET_SCHEMA_UIDS;

let devnet: Devnet;
let app: TestApp;

beforeAll(async () => {
  ({ devnet, app } = await syncedDevnetWithCopies({ count: SYNTHETIC, uidPrefix: "ee" }));
}, 120_000);
endAfterAll(() => [app, devnet]);

const sync = async (env: Record<string, string> = {}) =>
  (
    await syncService(app, {
      config: devnetSyncConfig(devnet.rpcUrl, { CONFIRMATIONS_DEVNET: "0", ...env }),
      options: { deleteBatchSize: BATCH, deleteBatchesPerRun: 1 },
    }).sync("manual")
  ).chains[0]!;
const counted = () => schemaCounts(app.db, appendix);

describe("a denied schema's rows go in batches across runs", () => {
  it("each run deletes one batch, counts stay exact, status shows the rest, other schemas keep being indexed", async () => {
    const start = await counted();
    expect(start.actual).toBeGreaterThan(SYNTHETIC);
    const data = encodeLocationProof({ locationType: "DecimalDegrees<string>", location: "3.5, 4.5" });
    const runs = [];
    for (let i = 0; i < Math.ceil(start.actual / BATCH) + 2; i++) {
      await attest(devnet.rpcUrl, devnet.eas, [{ data }]);
      await mine(devnet.rpcUrl, 1);
      const run = await sync({ SCHEMA_DENY: appendix });
      runs.push(run);
      expect(run.status === "ok" || run.status === "partial").toBe(true);
      // Every run indexes the new attestation of another schema, whatever is left to delete.
      expect(run.attestations).toBe(1);
      expect(run.schemas.rows_removed).toBeLessThanOrEqual(BATCH);
      const now = await counted();
      expect(now.counted).toBe(now.actual);
      expect(now.counted_total).toBe(now.total);
      expect(now.schema_total).toBe(now.total);
      const status = await app.get("/api/sync/status", { headers: AUTH });
      const devnetStatus = status.body.chains.find((c: { chain: string }) => c.chain === "devnet");
      expect(devnetStatus.deletes_pending).toBe(now.actual);
      if (now.actual === 0) break;
    }
    expect((await counted()).actual).toBe(0);
    expect(runs.length).toBe(Math.ceil(start.actual / BATCH));
    expect(runs.at(-1)!.status).toBe("ok");
  });
});
