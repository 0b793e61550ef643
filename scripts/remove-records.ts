// Removes published off-chain location records: an operator's action, never a public one (docs/offchain.md,
// "Removing records"):
//
//   npm run remove-records -- --uids 0x…,0x…              these records (or --uids-file <file>: one uid a line)
//   npm run remove-records -- --attester 0x…              every record this address signed (spam)
//   npm run remove-records -- --uids 0x… --chain base     only on that chain (a uid is per chain)
//   npm run remove-records -- --attester 0x… --dry-run    list what would go, remove nothing
//
// One statement; the data version moves with it, so every cached list, tile and count is revalidated. A removed
// record can be published again by anyone holding its signed original: to keep an attester out, set
// PUBLISH_MODE=allowlist. Uses DATABASE_URL, else the embedded PGlite in DATA_DIR.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { CHAIN_NAMES, chainConfigs } from "../lib/chains/registry.js";
import { ConfigError, getConfig } from "../lib/config.js";
import { log } from "../lib/log.js";
import { removeRecords } from "../lib/offchain/records.js";
import { openConfiguredDb } from "./open-db.js";

const UID = /^0x[0-9a-f]{64}$/;
const ADDRESS = /^0x[0-9a-f]{40}$/;
const USAGE =
  "usage: npm run remove-records -- (--uids <uid>[,<uid>] | --uids-file <file> | --attester <address>) [--chain <name>] [--dry-run]";

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      uids: { type: "string" },
      "uids-file": { type: "string" },
      attester: { type: "string" },
      chain: { type: "string" },
      "dry-run": { type: "boolean", default: false },
    },
  });
  const modes = [values.uids, values["uids-file"], values.attester].filter((v) => v !== undefined);
  if (positionals.length || modes.length !== 1) throw new ConfigError(USAGE);
  const uidText =
    values.uids ?? (values["uids-file"] ? readFileSync(values["uids-file"], "utf8") : undefined);
  const uids =
    uidText === undefined
      ? undefined
      : [
          ...new Set(
            uidText
              .split(/[\s,]+/)
              .map((u) => u.toLowerCase())
              .filter(Boolean),
          ),
        ];
  if (uids && (uids.length === 0 || !uids.every((u) => UID.test(u))))
    throw new ConfigError("--uids / --uids-file take attestation UIDs (0x + 64 hex digits)");
  const attester = values.attester?.toLowerCase();
  if (attester !== undefined && !ADDRESS.test(attester))
    throw new ConfigError("--attester takes an address (0x + 40 hex digits)");
  const config = getConfig();
  const name = values.chain?.toLowerCase();
  if (name !== undefined && !CHAIN_NAMES.includes(name))
    throw new ConfigError(`--chain: one of ${CHAIN_NAMES.join(", ")}`);
  const chainId = name === undefined ? undefined : chainConfigs(config).find((c) => c.name === name)!.chainId;

  const dryRun = values["dry-run"];
  const { handle, where } = await openConfiguredDb(config);
  try {
    const removed = await removeRecords(handle.db, { uids, attester, chainId }, dryRun);
    for (const r of removed) console.log(`  chain ${r.chainId} ${r.uid} (signed by ${r.attester})`);
    console.log(
      `${dryRun ? "would remove" : "removed"} ${removed.length} off-chain record(s) in ${where}${
        uids && removed.length < uids.length ? ` (${uids.length - removed.length} of the uids held none)` : ""
      }`,
    );
    if (!dryRun && removed.length)
      log("info", "offchain records removed", {
        by: "remove-records",
        count: removed.length,
        records: removed,
      });
  } finally {
    await handle.close();
  }
}

main().catch((error) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
