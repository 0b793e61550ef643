import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { connect, type DbHandle, MAINTENANCE_BUDGETS } from "../db/client.js";
import { migrate } from "../db/migrate.js";
import { type Config, requireDatabaseUrl } from "../lib/config.js";

/** The database scripts use: DATABASE_URL when set, else the embedded PGlite in DATA_DIR. Migrated. */
export async function openConfiguredDb(
  config: Config,
  options: { maintenance?: boolean } = {},
): Promise<{ handle: DbHandle; where: string }> {
  let handle: DbHandle;
  let where: string;
  // A malformed DATABASE_URL stops the script (never a silent fallback to the embedded database).
  const url = requireDatabaseUrl(config);
  if (url) {
    // Migrations get a connection of their own without the request budgets (an index build can take minutes).
    const maintenance = await connect(url, config.databaseDriver, MAINTENANCE_BUDGETS);
    try {
      await migrate(maintenance);
    } finally {
      await maintenance.close();
    }
    // A bulk load's statements run for minutes: it asks for maintenance budgets, everything else keeps the request's.
    handle = await connect(
      url,
      config.databaseDriver,
      options.maintenance ? MAINTENANCE_BUDGETS : config.database,
    );
    const u = new URL(url);
    where = `${handle.kind} ${u.hostname}:${u.port || 5432}${u.pathname}`;
  } else {
    const dir = resolve(join(config.dataDir, "pglite"));
    mkdirSync(dir, { recursive: true });
    const { openPglite } = await import("../db/pglite.js");
    handle = await openPglite({ dataDir: dir });
    where = `embedded PGlite in ${dir}`;
    await migrate(handle);
  }
  return { handle, where };
}
