import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { locationProofs as p } from "../../db/schema.js";
import { orderBy, orderKeys } from "../../lib/proofs/sort.js";
import { renderedOnce } from "../../lib/proofs/sql-once.js";

const dialect = new PgDialect();
const render = (expr: ReturnType<typeof sql>) => dialect.sqlToQuery(expr);

// Constant parts of the page statements are rendered to text once (lib/proofs/sql-once.ts): the text must be what
// Drizzle renders each time, and a part holding a value must be refused, never rendered without it.
describe("renderedOnce", () => {
  it("gives the text Drizzle renders, with no parameter", () => {
    const expr = sql`${p.eventTimestamp} desc nulls last, ${p.uid} asc`;
    expect(render(renderedOnce(expr))).toEqual({ sql: render(expr).sql, params: [] });
  });

  it("refuses an expression that holds a parameter", () => {
    expect(() => renderedOnce(sql`${p.uid} = ${"0xabc"}`)).toThrow(/holds parameters/);
  });

  it("keeps one ORDER BY per sort shape", () => {
    const byTime = render(sql.join(orderBy(orderKeys()), sql`, `)).sql;
    const byChain = render(
      sql.join(orderBy(orderKeys([{ field: "chain", descending: false }])), sql`, `),
    ).sql;
    const avoiding = render(sql.join(orderBy(orderKeys(), { avoidIndex: true }), sql`, `)).sql;
    expect(byTime).toBe(
      '"location_proofs"."event_timestamp" desc nulls last, "location_proofs"."uid" asc nulls last, "location_proofs"."chain_id" asc nulls last',
    );
    expect(byChain).toMatch(/^"location_proofs"."chain" asc nulls last, /);
    expect(avoiding).toMatch(
      /^coalesce\("location_proofs"."event_timestamp", "location_proofs"."event_timestamp"\) desc/,
    );
    expect(render(sql.join(orderBy(orderKeys()), sql`, `)).sql).toBe(byTime);
  });
});
