import { defineConfig } from "drizzle-kit";

// Migrations are generated from db/schema.ts (`npm run db:generate`) and applied by db/migrate.ts on every driver.
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema.ts",
  out: "./db/migrations",
});
