// Removes stored proofs of one chain: all of them, one schema's, or listed uids — queued, then deleted in batches
// (docs/sync.md, "Removing rows"):
//
//   npm run remove-proofs -- sepolia --all                  every stored proof of the chain
//   npm run remove-proofs -- base --schema 0x…              one schema's proofs (comma-separated: one removal each)
//   npm run remove-proofs -- base --uids 0x…,0x…            these proofs (or --uids-file <file>: one uid a line)
//   npm run remove-proofs -- base --schema 0x… --queue      queue it only: the chain's sync runs delete it
//   npm run remove-proofs -- base --list                    the chain's removals not done yet
//   npm run remove-proofs -- base --resume                  finish the chain's removals not done yet
//
// A removal takes the rows that match when it is queued (up to the newest of their blocks); proofs indexed later are
// kept. It does not stop indexing: a schema removed but still allowed comes back with its next attestations (deny it
// with SCHEMA_DENY instead, which also removes its rows), and a re-index (`backfill --restart`) brings removed proofs
// back. Batches of 10,000 rows (the engine's deleteBatchSize), each one transaction under the chain's lease (the script
// waits while a sync run holds it, and lets go every 20 s so the cron's runs are not kept out); Ctrl-C stops after
// the batch in flight, and `--resume` (or the chain's sync runs) continues. Uses DATABASE_URL, else the embedded
// PGlite in DATA_DIR.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { CHAIN_NAMES, chainConfigs } from "../lib/chains/registry.js";
import { ConfigError, getConfig } from "../lib/config.js";
import { syncOptions } from "../lib/sync/options.js";
import {
  pendingRemovals,
  performRemoval,
  queueProofRemoval,
  type RemovalTarget,
} from "../lib/sync/removal.js";
import { openConfiguredDb } from "./open-db.js";

const UID = /^0x[0-9a-f]{64}$/;
const USAGE =
  "usage: npm run remove-proofs -- <chain> (--all | --schema <uid>[,<uid>] | --uids <uid>[,<uid>] | --uids-file <file> | --list | --resume) [--queue]";

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      all: { type: "boolean", default: false },
      schema: { type: "string" },
      uids: { type: "string" },
      "uids-file": { type: "string" },
      queue: { type: "boolean", default: false },
      list: { type: "boolean", default: false },
      resume: { type: "boolean", default: false },
    },
  });
  const name = positionals[0]?.toLowerCase();
  if (!name || !CHAIN_NAMES.includes(name) || positionals.length > 1)
    throw new ConfigError(`${USAGE}; chains: ${CHAIN_NAMES.join(", ")}`);
  const modes = [
    values.all,
    values.schema,
    values.uids,
    values["uids-file"],
    values.list,
    values.resume,
  ].filter((v) => v !== undefined && v !== false);
  if (modes.length !== 1) throw new ConfigError(USAGE);
  const list = (text: string) =>
    text
      .split(/[\s,]+/)
      .map((u) => u.trim().toLowerCase())
      .filter(Boolean);
  const schemas = values.schema === undefined ? undefined : list(values.schema);
  if (schemas && (schemas.length === 0 || !schemas.every((u) => UID.test(u))))
    throw new ConfigError("--schema takes schema UIDs (0x + 64 hex digits), comma-separated");
  const uidText =
    values.uids ?? (values["uids-file"] ? readFileSync(values["uids-file"], "utf8") : undefined);
  const uids = uidText === undefined ? undefined : [...new Set(list(uidText))];
  if (uids && (uids.length === 0 || !uids.every((u) => UID.test(u))))
    throw new ConfigError("--uids / --uids-file take attestation UIDs (0x + 64 hex digits)");

  const config = getConfig();
  const chain = chainConfigs(config).find((c) => c.name === name)!;
  if (values.queue && !chain.enabled)
    throw new ConfigError(`--queue: ${chain.name} is not synced by this deployment; run without --queue`);
  const options = syncOptions(config);
  const { handle, where } = await openConfiguredDb(config);
  const owner = `remove-proofs:${process.pid}`;
  try {
    let items = await pendingRemovals(handle.db, chain.chainId);
    if (values.list || values.resume) {
      console.log(`${chain.name}: ${items.length} removal(s) not done in ${where}`);
      for (const d of items)
        console.log(
          `  #${d.id} ${d.schemaUid ? `schema ${d.schemaUid}` : d.uids ? `${d.uids.length} uids` : "every proof"} up to block ${d.upToBlock}: ${d.rowsDeleted} / ${d.rowsTotal} rows deleted, queued ${d.requestedAt.toISOString()} by ${d.requestedBy}`,
        );
      if (values.list) return;
    } else {
      const targets: RemovalTarget[] = schemas
        ? schemas.map((schemaUid) => ({ schemaUid }))
        : uids
          ? [{ uids }]
          : [{}];
      items = [];
      for (const target of targets) {
        const d = await queueProofRemoval(handle.db, chain, target, owner);
        console.log(
          `queued removal #${d.id} of ${chain.name}: ${d.rowsTotal} rows (blocks up to ${d.upToBlock}) in ${where}`,
        );
        if (!d.completedAt) items.push(d);
      }
      if (values.queue) {
        console.log("the chain's sync runs delete it in batches; GET /api/sync/status shows what remains");
        return;
      }
    }

    let stop = false;
    process.on("SIGINT", () => {
      if (stop) process.exit(130);
      stop = true;
      console.log("\nstopping after the current batch… (the next run, or --resume, continues)");
    });
    const started = performance.now();
    for (const item of items) {
      let waiting = false;
      const r = await performRemoval({
        db: handle.db,
        chainId: chain.chainId,
        item,
        owner,
        batch: options.deleteBatchSize,
        leaseMs: options.leaseMs,
        statementTimeoutMs: options.statementTimeoutMs,
        stepMs: 20_000,
        shouldStop: () => stop,
        onWait: (holder) => {
          if (!waiting) process.stdout.write(`\n  waiting for the chain's lease (held by ${holder})…`);
          waiting = true;
        },
        onBatch: ({ id, total, deleted }) => {
          waiting = false;
          const pct = total ? Math.min(100, (deleted / total) * 100) : 100;
          const rate = deleted / Math.max(0.001, (performance.now() - started) / 1000);
          process.stdout.write(
            `\r  removal #${id}: ${deleted} / ${total} rows (${pct.toFixed(1)}%)  ${rate.toFixed(0)} rows/s   `,
          );
        },
      });
      console.log(`\n#${item.id}: ${r.done ? "done" : "stopped"}, ${r.deleted} rows deleted by this run`);
      if (stop) break;
    }
  } finally {
    await handle.close();
  }
}

main().catch((error) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
