// Loads sample proofs into DATABASE_URL (or the embedded database):
//   npm run db:seed -- [count]              client-side sample proofs (default 500), as tests use them
//   npm run db:seed -- --synthetic N        N realistic synthetic proofs generated in the database
//                                           (lib/local/synthetic-proofs.ts says what they are), with the time and the
//                                           cost per proof of each phase: the rows and their triggers, each index
// Both are idempotent for a given count.
import { count } from "drizzle-orm";
import { locationProofs } from "../db/schema.js";
import { getConfig } from "../lib/config.js";
import { insertProofs, sampleProofs } from "../lib/local/sample-proofs.js";
import { bulkLoadSynthetic, type LoadPhase } from "../lib/local/synthetic-proofs.js";
import { openConfiguredDb } from "./open-db.js";

const args = process.argv.slice(2);
const synthetic = args[0] === "--synthetic";
const n = Number(synthetic ? args[1] : (args[0] ?? 500));
if (!Number.isInteger(n) || n < 1 || args.length > (synthetic ? 2 : 1)) {
  console.error("usage: npm run db:seed -- [count] | --synthetic N   (whole numbers ≥ 1)");
  process.exit(2);
}
const { handle, where } = await openConfiguredDb(getConfig(), { maintenance: synthetic });
const started = performance.now();
if (synthetic) {
  const phases: LoadPhase[] = [];
  await bulkLoadSynthetic(
    handle,
    n,
    (done) => process.stdout.write(`\r${done.toLocaleString("en")} / ${n.toLocaleString("en")}`),
    { onPhase: (phase) => phases.push(phase) },
  );
  process.stdout.write("\n");
  printPhases(phases, n);
} else {
  await insertProofs(handle.db, sampleProofs({ count: n, seed: 42 }));
}
const [row] = await handle.db.select({ n: count() }).from(locationProofs);
await handle.close();
console.log(
  `seeded ${n.toLocaleString("en")} ${synthetic ? "synthetic" : "sample"} proofs into ${where} in ${((performance.now() - started) / 1000).toFixed(1)} s (${Number(row?.n ?? 0).toLocaleString("en")} proofs stored)`,
);

/** What each step of the load cost, per proof: where a slower load spends its time. */
function printPhases(phases: LoadPhase[], rows: number): void {
  const total = phases.reduce((sum, p) => sum + p.ms, 0);
  console.log("phase                                              s    µs/proof  share");
  for (const p of [...phases].sort((a, b) => b.ms - a.ms)) {
    console.log(
      `${p.name.padEnd(48)} ${(p.ms / 1000).toFixed(1).padStart(6)} ${((p.ms * 1000) / rows).toFixed(1).padStart(10)} ${((100 * p.ms) / total).toFixed(1).padStart(5)} %`,
    );
  }
}
