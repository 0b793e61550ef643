import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { connect, type DbHandle } from "../db/client.js";
import { migrate } from "../db/migrate.js";
import type { Config } from "../lib/config.js";

/** The database scripts use: DATABASE_URL when set, else the embedded PGlite in DATA_DIR. Migrated. */
export async function openConfiguredDb(config: Config): Promise<{ handle: DbHandle; where: string }> {
  let handle: DbHandle;
  let where: string;
  if (config.databaseUrl) {
    handle = await connect(config.databaseUrl, config.databaseDriver);
    const u = new URL(config.databaseUrl);
    where = `${handle.kind} ${u.hostname}:${u.port || 5432}${u.pathname}`;
  } else {
    const dir = resolve(join(config.dataDir, "pglite"));
    mkdirSync(dir, { recursive: true });
    const { openPglite } = await import("../db/pglite.js");
    handle = await openPglite({ dataDir: dir });
    where = `embedded PGlite in ${dir}`;
  }
  await migrate(handle);
  return { handle, where };
}
