import { type Config, getConfig, loadConfig } from "../../lib/config.js";
import { createSyncService, type SyncServiceDeps } from "../../lib/sync/service.js";
import type { TestApp } from "./app.js";

/** The configuration of a quiet sync of the one devnet at `rpcUrl` (its own, or a proxy's), `more` added. */
export const devnetSyncConfig = (rpcUrl: string, more: Record<string, string> = {}): Config =>
  loadConfig({ LOG_LEVEL: "silent", CHAINS: "devnet", RPC_URL_DEVNET: rpcUrl, ...more });

/**
 * The sync engine over the test app's database, as a test drives it: with the app's configuration unless the test
 * gives another (devnetSyncConfig), and the options and chain clients the test sets.
 */
export const syncService = (app: TestApp, deps: Partial<Omit<SyncServiceDeps, "db">> = {}) =>
  createSyncService({ ...deps, db: app.db, config: deps.config ?? getConfig() });
