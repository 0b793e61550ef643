import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { locationProofs as p } from "../db/schema.js";
import { whereClause } from "../lib/proofs/filter.js";
import { tileFilter } from "../lib/tiles/tile-content.js";
import { countsAnswer } from "../lib/tiles/tile-pyramid.js";

const d = new PgDialect();
const OGC = { includeRevoked: true, bboxMatchesMissing: true, timesMatchMissing: true };
const t = { z: 12, x: 2200, y: 1343 };
for (let r = 0; r < 3; r++) {
  const s = performance.now();
  for (let i = 0; i < 20000; i++) {
    countsAnswer(OGC, t);
    const w = whereClause(tileFilter(OGC, t));
    d.sqlToQuery(sql`select a from ${p} where ${w} limit 501`);
  }
  console.log((((performance.now() - s) / 20000) * 1000).toFixed(1), "µs per build");
}
