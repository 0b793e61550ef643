import { fileURLToPath } from "node:url";
import type { DbHandle } from "./client.js";

const MIGRATIONS_FOLDER = fileURLToPath(new URL("./migrations", import.meta.url));

/** Applies the drizzle-kit migrations with the migrator of the handle's driver. Idempotent. */
export async function migrate(handle: DbHandle): Promise<void> {
  const config = { migrationsFolder: MIGRATIONS_FOLDER };
  switch (handle.kind) {
    case "pglite": {
      const { migrate } = await import("drizzle-orm/pglite/migrator");
      await migrate(handle.db as never, config);
      return;
    }
    case "pg": {
      const { migrate } = await import("drizzle-orm/node-postgres/migrator");
      await migrate(handle.db as never, config);
      return;
    }
    case "neon": {
      const { migrate } = await import("drizzle-orm/neon-serverless/migrator");
      await migrate(handle.db as never, config);
      return;
    }
  }
}
