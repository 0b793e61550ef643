// Syncs one chain from its start block (or --from) up to its confirmed head, in bounded steps, with a progress line:
//
//   npm run backfill -- sepolia                 resume from the stored cursor (or the start block)
//   npm run backfill -- base --from 26000000    start at this block when nothing is indexed yet
//   npm run backfill -- devnet --restart        re-index from the start block (rows are upserted, no duplicates)
//   npm run backfill -- base --schema 0x…       index these schemas (comma-separated UIDs) alone, from where each
//                                               starts (its registration, or the start block; --from overrides) up to
//                                               the chain's cursor; the chain's cursor and other schemas are untouched
//
// A chain newly enabled (CHAINS) is backfilled by the first form; a schema newly allowed (SCHEMA_ALLOW, SCHEMA_MODE,
// SCHEMA_DENY) is backfilled by the cron's runs as well, a step per run, or at once by the --schema form.
//
// Uses DATABASE_URL, else the embedded PGlite in DATA_DIR, and RPC_URL_<CHAIN> (see docs/location-protocol.md). It
// takes the chain's lease like any sync, so a cron run meanwhile simply skips the chain. Ctrl-C stops after the batch
// in flight is committed; a second Ctrl-C quits at once (the batch in flight is lost, the next run resumes from the
// cursor).
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { queryRows } from "../db/client.js";
import { createChainClient } from "../lib/chains/client.js";
import { CHAIN_NAMES, chainConfigs } from "../lib/chains/registry.js";
import { ConfigError, getConfig } from "../lib/config.js";
import { createChainSync } from "../lib/sync/chain-sync.js";
import { syncOptions } from "../lib/sync/options.js";
import { openConfiguredDb } from "./open-db.js";

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      from: { type: "string" },
      restart: { type: "boolean", default: false },
      schema: { type: "string" },
    },
  });
  const name = positionals[0]?.toLowerCase();
  if (!name || !CHAIN_NAMES.includes(name)) {
    throw new ConfigError(
      `usage: npm run backfill -- <chain> [--from <block>] [--restart] [--schema <uid>[,<uid>]]; chains: ${CHAIN_NAMES.join(", ")}`,
    );
  }
  if (values.from !== undefined && !/^\d+$/.test(values.from))
    throw new ConfigError("--from takes a block number");
  const schemas = values.schema?.split(",").map((u) => u.trim().toLowerCase());
  if (schemas && !schemas.every((u) => /^0x[0-9a-f]{64}$/.test(u)))
    throw new ConfigError("--schema takes schema UIDs (0x + 64 hex digits), comma-separated");
  if (schemas && values.restart)
    throw new ConfigError("--schema always starts its schemas over: no --restart");
  const config = getConfig();
  const base = chainConfigs(config).find((c) => c.name === name)!;
  // With --schema, --from is where the schemas' backfill starts; otherwise where the chain starts.
  const chain = values.from === undefined || schemas ? base : { ...base, startBlock: Number(values.from) };
  const { handle, where } = await openConfiguredDb(config);
  let requests = 0;
  const client = createChainClient(chain, { onRequest: () => requests++ });
  if (values.restart)
    await handle.db.execute(sql`update sync_state set cursor_block = null where chain_id = ${chain.chainId}`);
  const head = Number(await client.getBlockNumber());
  const [state] = await queryRows<{ cursor_block: string | null }>(
    handle.db,
    sql`select cursor_block from sync_state where chain_id = ${chain.chainId}`,
  );
  // A schema's backfill ends at the chain's cursor; the chain's own at its confirmed head.
  const target = schemas ? Number(state?.cursor_block ?? -1) : head - chain.confirmations;
  const from = schemas ? Number(values.from ?? chain.startBlock) : chain.startBlock;
  console.log(
    `backfill ${chain.name} (chain id ${chain.chainId})${schemas ? ` schemas ${schemas.join(", ")}` : ""} into ${where}; up to block ${target}`,
  );

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
    const span = Math.max(1, target - from + 1);
    const pct = Math.min(100, ((cursor - from + 1) / span) * 100);
    const rate = total / Math.max(0.001, (performance.now() - started) / 1000);
    process.stdout.write(
      `\r  block ${cursor} / ${target} (${pct.toFixed(1)}%)  ${total} attestations  ${rate.toFixed(0)}/s  ${requests} RPC requests   `,
    );
  };
  // One engine for every run: with --schema it starts the schemas' backfill once, and later runs continue it.
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
    ...(schemas
      ? {
          onlySchemas: { uids: schemas, ...(values.from !== undefined ? { from: Number(values.from) } : {}) },
        }
      : {}),
  });
  while (!stop) {
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
