import { PGlite } from "@electric-sql/pglite";
import { postgis } from "@electric-sql/pglite-postgis";
import { drizzle } from "drizzle-orm/pglite";
import { type Db, type DbHandle, MAX_STATEMENT_PARAMETERS, STATEMENT_HOOK } from "./client.js";
import * as schema from "./schema.js";

/**
 * The embedded database for local runs and tests. Never imported by anything under api/ (docs/architecture.md,
 * "Runtime adapters"): the dev server and the tests inject it with setDatabase().
 *
 * `dataDir` is a folder (persistent) or undefined (in memory); `loadDataDir` restores a dumped, already migrated
 * template, which is much faster than migrating a fresh database.
 */
export async function openPglite(
  options: { dataDir?: string; loadDataDir?: Blob | File } = {},
): Promise<DbHandle & { client: PGlite }> {
  // PostGIS (migration 0006 creates the extension) must be loaded at every open, the restored template's included.
  // @electric-sql/pglite-postgis is built for one PGlite version: package.json pins the pair (docs/development.md).
  const client = await PGlite.create({
    extensions: { postgis },
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
  });
  // The request budget's hook (db/client.ts): PGlite cannot cancel a statement, so it is checked before each one.
  const db = drizzle({ client, schema, logger: PGLITE_STATEMENT_HOOK }) as unknown as Db;
  return { db, kind: "pglite", client, close: () => client.close() };
}

/** MAX_STATEMENT_PARAMETERS, enforced: a statement past it is refused here, never sent (db/client.ts says why). */
const PGLITE_STATEMENT_HOOK = {
  logQuery(query: string, params: unknown[]) {
    if (params.length > MAX_STATEMENT_PARAMETERS) {
      throw new Error(
        `A statement with ${params.length} parameters: one statement takes at most ${MAX_STATEMENT_PARAMETERS}`,
      );
    }
    STATEMENT_HOOK.logQuery(query);
  },
};
