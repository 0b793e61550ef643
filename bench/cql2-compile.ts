/**
 * Parsing and compiling CQL2 (lib/ogc/cql2/) for the largest filters the limits allow, in both encodings, without a
 * database: the time from the filter's text to the SQL handed to the driver (parse, type-check, compile, and
 * drizzle's rendering to SQL text and parameters). Goal (issue 34): ≤ 2 ms each, p50.
 */
import { PgDialect } from "drizzle-orm/pg-core";
import { cql2Filter, type FilterLang } from "../lib/ogc/cql2/index.js";
import { CQL_LIMITS } from "../lib/ogc/cql2/literals.js";

const dialect = new PgDialect();

/** Filters at the limits: the most IN items, the most vertices, the deepest nesting, many predicates. */
function largest(): [string, FilterLang, string][] {
  const inList = `chain IN (${Array.from({ length: CQL_LIMITS.listItems }, (_, i) => `'c${i}'`).join(",")})`;
  const ring = (n: number) => {
    const pts = Array.from({ length: n }, (_, i) => {
      const a = (2 * Math.PI * i) / n;
      return `${(10 * Math.cos(a)).toFixed(3)} ${(10 * Math.sin(a)).toFixed(3)}`;
    });
    return `POLYGON((${[...pts, pts[0]].join(",")}))`;
  };
  const manyVertices = `S_INTERSECTS(geometry, ${ring(600)})`;
  const predicates = Array.from(
    { length: 60 },
    (_, i) =>
      `(block_number >= ${i} AND T_DURING(event_timestamp, INTERVAL('2025-01-01', '..')) OR CASEI(memo) LIKE 'x${i}%')`,
  ).join(" AND ");
  const deep = `${"NOT (".repeat(CQL_LIMITS.depth / 2)}chain = 'base'${")".repeat(CQL_LIMITS.depth / 2)}`;
  // The most predicates the length allows: the shortest comparison there is, ORed, each a bound parameter.
  const shortest: string[] = [];
  for (let i = 0, length = -4; ; i++) {
    const p = `srs='${i % 10}'`;
    if (length + 4 + p.length > CQL_LIMITS.length) break;
    shortest.push(p);
    length += 4 + p.length;
  }
  const most = shortest.join(" OR ");
  const jsonOr = (n: number) =>
    JSON.stringify({
      op: "or",
      args: Array.from({ length: n }, (_, i) => ({ op: "=", args: [{ property: "srs" }, `${i % 10}`] })),
    });
  let jsonCount = 2;
  while (jsonOr(jsonCount + 1).length <= CQL_LIMITS.length) jsonCount++;
  const jsonIn = JSON.stringify({
    op: "in",
    args: [{ property: "chain" }, Array.from({ length: CQL_LIMITS.listItems }, (_, i) => `c${i}`)],
  });
  const out: [string, FilterLang, string][] = [
    ["IN list of 1000 (text)", "cql2-text", inList],
    ["IN list of 1000 (JSON)", "cql2-json", jsonIn],
    ["polygon of 600 vertices (text)", "cql2-text", manyVertices],
    ["180 predicates (text)", "cql2-text", predicates],
    ["32 levels (text)", "cql2-text", deep],
    [`${shortest.length} predicates, the most that fit (text)`, "cql2-text", most],
    [`${jsonCount} predicates, the most that fit (JSON)`, "cql2-json", jsonOr(jsonCount)],
  ];
  return out.filter(([, , f]) => f.length <= CQL_LIMITS.length);
}

const p50 = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [name, lang, filter] of largest()) {
  const times: number[] = [];
  for (let i = 0; i < 300; i++) {
    const t = performance.now();
    dialect.sqlToQuery(cql2Filter(filter, "point", lang));
    times.push(performance.now() - t);
  }
  console.log(
    `${name}: ${filter.length} chars, parse+compile p50 ${p50(times.slice(50)).toFixed(3)} ms (goal ≤ 2 ms)`,
  );
}
