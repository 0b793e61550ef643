// A sync worker in a process of its own, for tests that kill it (tests/sync/killed-worker.test.ts): it runs the real sync
// service in a loop against the database in LPQS_DB (a postgres:// URL) and the chains in CHAINS (default devnet; their
// RPC_URL_DEVNET and RPC_URL_DEVNET2), printing one JSON line per chain and run, until it is killed. SYNC_OPTIONS (JSON) overrides the engine's step sizes and lease. With
// SYNC_STEPS=1 it also prints a line at every step of a run (the engine asks shouldStop() between steps, while it holds
// the lease), so a parent can kill it in the middle of a run: tests/sync/killed-writer.test.ts. With SYNC_BATCH_LINES=1 it
// prints a line after every committed batch of the batched work (a delete batch, a reconciliation page) and then
// waits SYNC_BATCH_PAUSE_MS (default 0), so that a parent's kill lands between two batches; with
// SYNC_MODE=reconcile it runs revocation reconciliation calls instead of sync runs: tests/sync/killed-batches.test.ts.
// SCHEMA_DENY and CONFIRMATIONS_DEVNET are passed on to its configuration.
import { connect } from "../../db/client.js";
import { createChainClient } from "../../lib/chains/client.js";
import { loadConfig } from "../../lib/config.js";
import { createSyncService } from "../../lib/sync/service.js";

const chains = (process.env.CHAINS ?? "devnet").split(",");
const config = loadConfig({
  LOG_LEVEL: "silent",
  CHAINS: chains.join(","),
  RPC_URL_DEVNET: process.env.RPC_URL_DEVNET,
  ...(process.env.RPC_URL_DEVNET2 ? { RPC_URL_DEVNET2: process.env.RPC_URL_DEVNET2 } : {}),
  RATE_LIMIT_PER_MINUTE: "0",
  ...(process.env.SCHEMA_DENY ? { SCHEMA_DENY: process.env.SCHEMA_DENY } : {}),
  ...(process.env.CONFIRMATIONS_DEVNET ? { CONFIRMATIONS_DEVNET: process.env.CONFIRMATIONS_DEVNET } : {}),
});
const handle = await connect(process.env.LPQS_DB!, "pg");
const service = createSyncService({
  db: handle.db,
  config,
  clientFor: (chain) => createChainClient(chain, { timeoutMs: 1000 }),
  options: {
    ...JSON.parse(process.env.SYNC_OPTIONS ?? "{}"),
    ...(process.env.SYNC_STEPS ? { shouldStop: step } : {}),
    ...(process.env.SYNC_BATCH_LINES
      ? {
          afterBatch: async (b: { kind: string; rows: number; done: boolean }) => {
            process.stdout.write(`${JSON.stringify({ batch: b.kind, rows: b.rows, done: b.done })}\n`);
            await new Promise((r) => setTimeout(r, Number(process.env.SYNC_BATCH_PAUSE_MS ?? 0)));
          },
        }
      : {}),
  },
});
let steps = 0;
function step(): boolean {
  process.stdout.write(`${JSON.stringify({ step: ++steps })}\n`);
  return false;
}
// Dies with its parent: the parent holds our stdin.
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
process.stdout.write(`${JSON.stringify({ ready: true, pid: process.pid })}\n`);
for (;;) {
  if (process.env.SYNC_MODE === "reconcile") {
    const r = await service.reconcile(chains);
    for (const c of r.chains)
      process.stdout.write(`${JSON.stringify({ chain: c.chain, status: c.status, complete: c.complete })}\n`);
    await new Promise((r) => setTimeout(r, 50));
    continue;
  }
  const report = await service.sync("cron", chains);
  for (const c of report.chains) {
    process.stdout.write(
      `${JSON.stringify({ chain: c.chain, status: c.status, cursor: c.cursor_block, schema_cursor: c.schema_cursor_block, reason: c.reason })}\n`,
    );
  }
  await new Promise((r) => setTimeout(r, 50));
}
