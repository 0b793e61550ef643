// A sync worker in a process of its own, for tests that kill it (tests/sync/killed-worker.test.ts): it runs the real sync
// service in a loop against the database in LPQS_DB (a postgres:// URL) and the chains in CHAINS (default devnet; their
// RPC_URL_DEVNET and RPC_URL_DEVNET2), printing one JSON line per chain and run, until it is killed. SYNC_OPTIONS (JSON) overrides the engine's step sizes and lease. With
// SYNC_STEPS=1 it also prints a line at every step of a run (the engine asks shouldStop() between steps, while it holds
// the lease), so a parent can kill it in the middle of a run: tests/sync/killed-writer.test.ts.
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
});
const handle = await connect(process.env.LPQS_DB!, "pg");
const service = createSyncService({
  db: handle.db,
  config,
  clientFor: (chain) => createChainClient(chain, { timeoutMs: 1000 }),
  options: {
    ...JSON.parse(process.env.SYNC_OPTIONS ?? "{}"),
    ...(process.env.SYNC_STEPS ? { shouldStop: step } : {}),
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
  const report = await service.sync("cron", chains);
  for (const c of report.chains) {
    process.stdout.write(
      `${JSON.stringify({ chain: c.chain, status: c.status, cursor: c.cursor_block, schema_cursor: c.schema_cursor_block, reason: c.reason })}\n`,
    );
  }
  await new Promise((r) => setTimeout(r, 50));
}
