// Syncs one chain from its start block (or --from) up to its confirmed head, in bounded steps, with a progress line:
//
//   npm run backfill -- sepolia                 resume from the stored cursor (or the start block)
//   npm run backfill -- base --from 26000000    start at this block when nothing is indexed yet
//   npm run backfill -- devnet --restart        re-index from the start block (rows are upserted, no duplicates)
//
// Uses DATABASE_URL, else the embedded PGlite in DATA_DIR, and RPC_URL_<CHAIN> (see README). It takes the chain's
// lease like any sync, so a cron run meanwhile simply skips the chain. Ctrl-C stops after the batch in flight is
// committed; a second Ctrl-C quits at once (the batch in flight is lost, the next run resumes from the cursor).
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { createChainClient } from "../lib/chains/client.js";
import { CHAIN_NAMES, chainConfigs } from "../lib/chains/registry.js";
import { ConfigError, getConfig } from "../lib/config.js";
import { createChainSync } from "../lib/sync/chain-sync.js";
import { syncOptions } from "../lib/sync/options.js";
import { openConfiguredDb } from "./open-db.js";

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { from: { type: "string" }, restart: { type: "boolean", default: false } },
  });
  const name = positionals[0]?.toLowerCase();
  if (!name || !CHAIN_NAMES.includes(name)) {
    throw new ConfigError(
      `usage: npm run backfill -- <chain> [--from <block>] [--restart]; chains: ${CHAIN_NAMES.join(", ")}`,
    );
  }
  if (values.from !== undefined && !/^\d+$/.test(values.from))
    throw new ConfigError("--from takes a block number");
  const config = getConfig();
  const base = chainConfigs(config).find((c) => c.name === name)!;
  const chain = values.from === undefined ? base : { ...base, startBlock: Number(values.from) };
  const { handle, where } = await openConfiguredDb(config);
  let requests = 0;
  const client = createChainClient(chain, { onRequest: () => requests++ });
  if (values.restart)
    await handle.db.execute(sql`update sync_state set cursor_block = null where chain_id = ${chain.chainId}`);
  const head = Number(await client.getBlockNumber());
  const target = head - chain.confirmations;
  console.log(`backfill ${chain.name} (chain id ${chain.chainId}) into ${where}; confirmed head ${target}`);

  let stop = false;
  process.on("SIGINT", () => {
    if (stop) {
      console.log("\nstopped (the batch in flight is lost; the next run resumes from the cursor)");
      process.exit(130);
    }
    stop = true;
    console.log("\nstopping after the current batch… (Ctrl-C again to quit now)");
  });
  const started = performance.now();
  let total = 0;
  let failures = 0;
  let done = 0; // attestations of finished runs
  const progress = ({ cursor, attestations }: { cursor: number; attestations: number }) => {
    total = done + attestations;
    const span = Math.max(1, target - chain.startBlock + 1);
    const pct = Math.min(100, ((cursor - chain.startBlock + 1) / span) * 100);
    const rate = total / Math.max(0.001, (performance.now() - started) / 1000);
    process.stdout.write(
      `\r  block ${cursor} / ${target} (${pct.toFixed(1)}%)  ${total} attestations  ${rate.toFixed(0)}/s  ${requests} RPC requests   `,
    );
  };
  while (!stop) {
    const sync = createChainSync({
      db: handle.db,
      chain,
      client,
      options: syncOptions(config, {
        timeBudgetMs: 60_000,
        blockBudget: 1_000_000_000,
        shouldStop: () => stop,
      }),
      owner: `backfill:${process.pid}`,
      requests: () => requests,
      afterCommit: progress,
    });
    const result = await sync.run("backfill");
    done += result.attestations;
    total = done;
    if (result.status === "ok") break;
    if (result.status === "skipped") throw new Error(`chain ${chain.name} is busy: ${result.reason}`);
    if (result.status === "error") {
      if (stop) {
        console.log(`\n  ${result.error}`);
        break;
      }
      if (++failures > 5) throw new Error(result.error ?? "sync failed");
      console.log(`\n  ${result.error} — retrying in ${failures * 2} s`);
      await new Promise((r) => setTimeout(r, failures * 2000));
    } else failures = 0;
  }
  console.log(
    `\n${stop ? "stopped" : "done"}: ${total} attestations in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  await handle.close();
}

main().catch((error) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
