import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { ConfigError, getConfig } from "../lib/config.js";
import * as schema from "./schema.js";

/** The Drizzle database every module takes; the same for PGlite, node-postgres and Neon. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type DriverKind = "pglite" | "pg" | "neon";

export type DbHandle = {
  db: Db;
  kind: DriverKind;
  close(): Promise<void>;
};

/** Neon's hosts; any other postgres:// URL goes through node-postgres. DATABASE_DRIVER overrides the guess. */
export function driverFor(url: string, override?: string): "pg" | "neon" {
  if (override === "neon" || override === "pg") return override;
  const host = (() => {
    try {
      return new URL(url).hostname;
    } catch {
      return "";
    }
  })();
  return host.endsWith(".neon.tech") || host.endsWith(".neon.build") ? "neon" : "pg";
}

/**
 * Opens a server database. The drivers are imported lazily so a function only loads the one it uses.
 * PGlite is not reachable from here on purpose: it is injected (db/pglite.ts) by the dev server and tests, so it
 * is never traced into a deployed function.
 */
export async function connect(url: string, override?: string): Promise<DbHandle> {
  if (driverFor(url, override) === "neon") {
    const [{ Pool, neonConfig }, { drizzle }, ws] = await Promise.all([
      import("@neondatabase/serverless"),
      import("drizzle-orm/neon-serverless"),
      import("ws"),
    ]);
    // Node 20 has no global WebSocket; Neon's Pool needs one for transactions (the sync engine uses them).
    neonConfig.webSocketConstructor ??= ws.default as unknown as typeof WebSocket;
    const pool = new Pool({ connectionString: url, max: 5 });
    const db = drizzle({ client: pool, schema }) as unknown as Db;
    return { db, kind: "neon", close: () => pool.end() };
  }
  const [{ default: pg }, { drizzle }] = await Promise.all([
    import("pg"),
    import("drizzle-orm/node-postgres"),
  ]);
  const pool = new pg.Pool({ connectionString: url, max: 5 });
  // An idle client that loses its server must not crash the process; the next query reports the failure.
  pool.on("error", () => {});
  const db = drizzle({ client: pool, schema }) as unknown as Db;
  return { db, kind: "pg", close: () => pool.end() };
}

let current: Promise<DbHandle> | undefined;

/** Installs the database every route uses (PGlite from the dev server and tests, or any handle). */
export function setDatabase(handle: DbHandle | Promise<DbHandle> | undefined): void {
  current = handle === undefined ? undefined : Promise.resolve(handle);
}

/** The process-wide database: an injected one, else DATABASE_URL. */
export function getDatabase(): Promise<DbHandle> {
  if (!current) {
    const config = getConfig();
    if (!config.databaseUrl) {
      throw new ConfigError(
        "DATABASE_URL is not set and no embedded database was started (run the service with `npm run dev`)",
      );
    }
    current = connect(config.databaseUrl, config.databaseDriver);
    // A failed connection attempt must not be cached forever.
    current.catch(() => {
      current = undefined;
    });
  }
  return current;
}

export async function getDb(): Promise<Db> {
  return (await getDatabase()).db;
}

/** Runs raw SQL and returns its rows; every driver's result carries `rows`. */
export async function queryRows<T = Record<string, unknown>>(
  db: Db,
  query: import("drizzle-orm").SQL,
): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}
