import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import pg from "pg";
import { locationProofs as p } from "../db/schema.js";
import { whereClause } from "../lib/proofs/filter.js";
import { tileFilter } from "../lib/tiles/tile-content.js";

const [z, x, y] = process.argv.slice(2).map(Number) as [number, number, number];
const d = new PgDialect();
const w = whereClause(
  tileFilter({ includeRevoked: true, bboxMatchesMissing: true, timesMatchMissing: true }, { z, x, y }),
);
const q = d.sqlToQuery(sql`select uid from ${p} where ${w} limit 501`);
const c = new pg.Client("postgres://postgres@127.0.0.1:5432/lpqs_bench_tiles");
await c.connect();
for (let i = 0; i < 3; i++) {
  const r = await c.query(`explain (analyze, buffers) ${q.sql}`, q.params as unknown[]);
  if (i === 2) console.log(r.rows.map((x: any) => x["QUERY PLAN"]).join("\n"));
}
console.log(q.sql, q.params);
await c.end();
