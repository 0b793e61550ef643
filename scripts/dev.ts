// The local server: `npm run dev`. Serves the same api/ tree with the same routing as Vercel (lib/local/router.ts),
// on an embedded PGlite in DATA_DIR unless DATABASE_URL is set, and runs the vercel.json crons in-process.
//
//   npm run dev                     two devnets (local anvils + EAS, chain ids 31337 and 31338, ports DEVNET_PORT and
//                                   DEVNET_PORT+1) indexed by the real sync engine
//   npm run dev -- --no-devnet      no devnet (e.g. with CHAINS=sepolia to sync a real chain)
//   npm run dev -- --seed 500       also load 500 synthetic sample proofs (see lib/local/sample-proofs.ts)
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { setDatabase } from "../db/client.js";
import { chainConfigs, DEVNET_CHAINS } from "../lib/chains/registry.js";
import { ConfigError, getConfig } from "../lib/config.js";
import type { Devnet } from "../lib/devnet/index.js";
import { callCron, startCrons } from "../lib/local/cron.js";
import { serve } from "../lib/local/http-server.js";
import { createRouter } from "../lib/local/router.js";
import { insertProofs, sampleProofs } from "../lib/local/sample-proofs.js";
import { openConfiguredDb } from "./open-db.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

async function main() {
  const { values } = parseArgs({
    options: {
      "no-devnet": { type: "boolean", default: false },
      "no-cron": { type: "boolean", default: false },
      seed: { type: "string" },
    },
  });
  const config = getConfig();
  const seed = values.seed === undefined ? 0 : Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0) throw new ConfigError("--seed takes a whole number of proofs");

  const { handle, where } = await openConfiguredDb(config);
  setDatabase(handle);
  if (seed > 0) await insertProofs(handle.db, sampleProofs({ count: seed, seed: 42 }));

  // Each local devnet runs when it is among the synced chains (both are, by default) unless --no-devnet: two anvils
  // with their own chain ids, so that several chains sync at once as in production.
  const chains = chainConfigs(config);
  const devnets: { name: string; devnet: Devnet }[] = [];
  if (!values["no-devnet"]) {
    const { startDevnet } = await import("../lib/devnet/index.js");
    for (const d of DEVNET_CHAINS) {
      if (!chains.find((c) => c.name === d.name)?.enabled) continue;
      devnets.push({
        name: d.name,
        devnet: await startDevnet({
          port: config.devnetPort + d.portOffset,
          chainId: d.chainId,
          statePath: join(config.dataDir, `${d.name}-state.json`),
          seed: true,
        }),
      });
    }
  }

  const router = createRouter(ROOT);
  const { server, url } = await serve(router, config.port);
  const crons = values["no-cron"]
    ? undefined
    : startCrons({ root: ROOT, baseUrl: url, cronSecret: config.cronSecret });

  console.log(`listening on ${url}`);
  console.log(`  database: ${where}${seed ? ` (+${seed} sample proofs)` : ""}`);
  for (const { name, devnet } of devnets) {
    console.log(`  ${`${name}:`.padEnd(9)} ${devnet.rpcUrl} (chain id ${devnet.chainId}), EAS ${devnet.eas}`);
    if (devnet.seeded.length) {
      console.log(
        `            seeded ${devnet.seeded.length} sample attestations (and ${devnet.seededOthers} of a schema not about locations)`,
      );
    }
  }
  const synced = chains.filter((c) => c.enabled).map((c) => c.name);
  console.log(
    `  syncing:  ${synced.join(", ") || "no chains"}${crons ? " (cron every minute)" : " (cron off)"}`,
  );
  console.log(`  try: ${url}/api/v0/location-proofs  ${url}/api/ogc  ${url}/health`);
  // The first sync runs right away (once the seeded blocks have their confirmations), not at the next minute.
  if (crons) setTimeout(() => void callCron(url, "/api/cron/sync", config.cronSecret), 3000).unref();

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    crons?.stop();
    server.close();
    for (const { devnet } of devnets) await devnet.stop();
    await handle.close();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
