// Loads synthetic sample proofs: `npm run db:seed -- [count]` (default 500). Idempotent for a given count.
import { count } from "drizzle-orm";
import { locationProofs } from "../db/schema.js";
import { getConfig } from "../lib/config.js";
import { insertProofs, sampleProofs } from "../lib/local/sample-proofs.js";
import { openConfiguredDb } from "./open-db.js";

const n = Number(process.argv[2] ?? 500);
if (!Number.isInteger(n) || n < 1) {
  console.error("usage: npm run db:seed -- [count]   (a whole number ≥ 1)");
  process.exit(2);
}
const { handle, where } = await openConfiguredDb(getConfig());
await insertProofs(handle.db, sampleProofs({ count: n, seed: 42 }));
const [row] = await handle.db.select({ n: count() }).from(locationProofs);
await handle.close();
console.log(`seeded ${n} sample proofs into ${where} (${row?.n ?? 0} proofs stored)`);
