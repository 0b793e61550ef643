// Applies the migrations to DATABASE_URL (or the embedded database in DATA_DIR): `npm run db:migrate`.
import { getConfig } from "../lib/config.js";
import { openConfiguredDb } from "./open-db.js";

const { handle, where } = await openConfiguredDb(getConfig());
await handle.close();
console.log(`migrations applied to ${where}`);
