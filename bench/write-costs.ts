/**
 * bench:writes: what each index and each count trigger of location_proofs costs per inserted proof, on a table that
 * already holds `--rows` proofs (bench:scale's database), through the sync's own commit statement (the insert of
 * lib/sync/store/batch.ts: the rows as one JSON parameter, ON CONFLICT on the key).
 *
 * Each variant runs in a transaction that is rolled back, so the table stays as loaded:
 * - "everything": the table as the sync writes to it;
 * - "the table alone": every secondary index dropped and every user trigger disabled (the heap, the primary key and
 *   the JSON's expansion);
 * - for each secondary index and each insert trigger: the table alone plus that one part. Its cost is its time less
 *   the table alone's: adding one part at a time keeps each figure the difference of two small times.
 * Each round runs the variants in a new order, and each figure is the median of the rounds. The bulk loader prints
 * its own phases (`npm run db:seed -- --synthetic N`, scripts/seed.ts).
 *
 * Options: --rows N (1,000,000), --batch B (2,000 proofs per commit), --commits C (2 per variant and round),
 * --rounds R (3), --db NAME (SCALE_DB), --keep (reuse a database that holds the rows).
 */
import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import pg from "pg";
import { connect, MAINTENANCE_BUDGETS, queryRows } from "../db/client.js";
import { loadSyntheticProofs, syntheticUids } from "../lib/local/synthetic-proofs.js";
import { COLUMNS, UPSERT_SET } from "../lib/sync/store/proof-columns.js";
import { benchArgs, benchDatabase, benchDatabaseUrl, diskPerProof, SCALE_DB } from "./common.js";
import { f1, lpad, pad, percentile } from "./figures.js";

const ARGS = benchArgs({
  numbers: { rows: 1_000_000, batch: 2_000, commits: 2, rounds: 3 },
  flags: ["keep"],
  texts: ["db"],
});
const DB = ARGS.db ?? SCALE_DB;
const SEED = 11;
const NOW = new Date();
await benchDatabase(DB, ARGS.rows, ARGS.keep);
const url = benchDatabaseUrl(DB);

/** The rows of each commit as the sync sends them: made by the synthetic generator and read back as JSON. */
async function commitsAsJson(): Promise<string[]> {
  const handle = await connect(url, "pg", MAINTENANCE_BUDGETS);
  const out: string[] = [];
  const rollback = new Error("rolled back");
  try {
    await handle.db.transaction(async (tx) => {
      for (let c = 0; c < ARGS.commits; c++) {
        const from = 1 + c * ARGS.batch;
        // A commit's rows are the attestations of a few minutes of blocks: their times (and block numbers) are the
        // newest and close together, as the sync writes them.
        await loadSyntheticProofs(tx as never, {
          count: ARGS.batch,
          from,
          seed: SEED,
          end: NOW,
          days: 1 / 96,
        });
        const [made] = await queryRows<{ rows: string }>(
          tx as never,
          sql`select json_agg(p)::text as rows from location_proofs p where uid in ${syntheticUids(SEED, from, ARGS.batch)}`,
        );
        out.push(made!.rows);
      }
      throw rollback;
    });
  } catch (error) {
    if (error !== rollback) throw error;
  } finally {
    await handle.close();
  }
  return out;
}

const commits = await commitsAsJson();
const client = new pg.Client({ connectionString: url });
await client.connect();
const insert = new PgDialect().sqlToQuery(
  sql`insert into location_proofs (${COLUMNS})
    select ${COLUMNS} from json_populate_recordset(null::location_proofs, $1::json)
    on conflict (chain_id, uid) do update set ${UPSERT_SET}`,
).sql;

const names = async (query: string) => (await client.query<{ name: string }>(query)).rows.map((r) => r.name);
const indexes = await names(
  `select indexname as name from pg_indexes where tablename = 'location_proofs' and indexname <> 'location_proofs_pkey'
     order by 1`,
);
// Insert triggers (tgtype bit 2): the count tables' and the data version's.
const triggers = await names(
  `select tgname as name from pg_trigger where tgrelid = 'location_proofs'::regclass and not tgisinternal
     and tgtype & 4 = 4 order by 1`,
);

type Variant = { name: string; kind: "all" | "alone" | "index" | "trigger" };
const variants: Variant[] = [
  { name: "everything", kind: "all" },
  { name: "the table alone", kind: "alone" },
  ...indexes.map((name) => ({ name, kind: "index" as const })),
  ...triggers.map((name) => ({ name, kind: "trigger" as const })),
];

/** One variant's commits, timed, in a transaction rolled back afterwards: µs per proof. */
async function measure(v: Variant): Promise<number> {
  await client.query("begin");
  try {
    await client.query("set local jit = off");
    if (v.kind !== "all") {
      for (const ix of indexes) if (ix !== v.name) await client.query(`drop index "${ix}"`);
      for (const t of triggers)
        if (t !== v.name) await client.query(`alter table location_proofs disable trigger "${t}"`);
    }
    const started = performance.now();
    for (const rows of commits) await client.query(insert, [rows]);
    return ((performance.now() - started) * 1000) / (commits.length * ARGS.batch);
  } finally {
    await client.query("rollback");
  }
}

const times = new Map<string, number[]>(variants.map((v) => [v.name, []]));
await measure(variants[0]!); // warm-up: the indexes' pages into memory
for (let round = 0; round < ARGS.rounds; round++) {
  const order = [...variants].sort(() => Math.random() - 0.5);
  for (const v of order) times.get(v.name)!.push(await measure(v));
  process.stdout.write(`\rround ${round + 1} / ${ARGS.rounds}`);
}
await client.query("vacuum location_proofs");

const median = (name: string) => percentile(times.get(name)!, 0.5);
const all = median("everything");
const alone = median("the table alone");
const parts = variants
  .filter((v) => v.kind === "index" || v.kind === "trigger")
  .map((v) => ({ ...v, cost: median(v.name) - alone }))
  .sort((a, b) => b.cost - a.cost);
await client.end();

console.log(
  `\n\nbench:writes: ${ARGS.rows.toLocaleString("en")} proofs held; ${ARGS.commits} commits of ${ARGS.batch.toLocaleString("en")} proofs per variant, the sync's insert; median of ${ARGS.rounds} rounds`,
);
console.log(await diskPerProof(DB, ARGS.rows));
console.log(`\n${pad("part", 48)} ${lpad("µs/proof", 9)}  share of everything`);
console.log(`${pad("everything (as the sync writes)", 48)} ${lpad(f1(all), 9)}  100 %`);
console.log(
  `${pad("the table alone (heap, primary key, JSON)", 48)} ${lpad(f1(alone), 9)}  ${f1((100 * alone) / all)} %`,
);
for (const p of parts) {
  console.log(`${pad(`${p.kind} ${p.name}`, 48)} ${lpad(f1(p.cost), 9)}  ${f1((100 * p.cost) / all)} %`);
}
const summed = alone + parts.reduce((s, p) => s + p.cost, 0);
console.log(
  `${pad("the table alone + every part, added up", 48)} ${lpad(f1(summed), 9)}  ${f1((100 * summed) / all)} %`,
);
console.log(
  `\na million proofs through the sync's commits at this rate: ${f1(all)} s of database time (goal ≤ 180 s)`,
);
