import { sql } from "drizzle-orm";
import { type Config, getConfig, loadConfig } from "../../lib/config.js";
import type { Devnet } from "../../lib/devnet/index.js";
import { copyProof } from "../../lib/devnet/proof-copies.js";
import { seedLocationProtocol } from "../../lib/devnet/protocol-seed.js";
import { DEVNET_SCHEMA_UIDS } from "../../lib/devnet/schemas.js";
import { createSyncService, type SyncServiceDeps } from "../../lib/sync/service.js";
import { mine, oneDevnet, startTestDevnet } from "./anvil.js";
import { createTestApp, type TestApp } from "./app.js";

/** The configuration of a quiet sync of the one devnet at `rpcUrl` (its own, or a proxy's), `more` added. */
export const devnetSyncConfig = (rpcUrl: string, more: Record<string, string> = {}): Config =>
  loadConfig({ LOG_LEVEL: "silent", CHAINS: "devnet", RPC_URL_DEVNET: rpcUrl, ...more });

/**
 * The sync engine over the test app's database, as a test drives it: with the app's configuration unless the test
 * gives another (devnetSyncConfig), and the options and chain clients the test sets.
 */
export const syncService = (app: TestApp, deps: Partial<Omit<SyncServiceDeps, "db">> = {}) =>
  createSyncService({ ...deps, db: app.db, config: deps.config ?? getConfig() });

/**
 * The batched-delete tests' setting: a devnet with the Location Protocol's schemas seeded and mined past the
 * confirmations, synced once into a new test app, then `copies` synthetic rows of its appendix schema
 * (lib/devnet/proof-copies.ts), so that a delete has more rows than a batch.
 */
export async function syncedDevnetWithCopies(copies: {
  count: number;
  uidPrefix: string;
}): Promise<{ devnet: Devnet; app: TestApp }> {
  const devnet = await startTestDevnet();
  await seedLocationProtocol(devnet.rpcUrl, devnet);
  await mine(devnet.rpcUrl, 3);
  const app = await createTestApp(oneDevnet(devnet.rpcUrl));
  const first = (await syncService(app).sync("manual")).chains[0];
  if (first?.status !== "ok")
    throw new Error(`the first sync did not index the devnet: ${JSON.stringify(first)}`);
  await copyProof(app.db, { where: sql`schema_uid = ${DEVNET_SCHEMA_UIDS.appendix}`, ...copies });
  return { devnet, app };
}
