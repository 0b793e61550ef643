import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client.js";
import {
  namedQuery,
  PREPARE_MAX_CHARS,
  PREPARE_MIN_CHARS,
  PREPARED_PER_CONNECTION,
} from "../../db/prepared.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

// Long statements are named, so a connection parses each text once (db/prepared.ts); their plans stay per
// execution (force_custom_plan), and the answers stay byte for byte what they were.

const long = (n: number) => `select ${n} as n /* ${"x".repeat(PREPARE_MIN_CHARS)} */`;
const nameOf = (connection: object, text: string) =>
  (namedQuery(connection, { text }) as { name?: string }).name;

describe("which statements are named", () => {
  it("a long text from its second sighting on a connection, never a short or a huge one, a named one or a bare string", () => {
    const connection = {};
    expect(nameOf(connection, long(1))).toBeUndefined();
    const name = nameOf(connection, long(1));
    expect(name).toMatch(/^lpqs_[\w-]{32}$/);
    expect(nameOf(connection, long(1))).toBe(name);
    expect(nameOf({}, long(1)), "another connection has seen it once").toBeUndefined();
    for (const text of ["select 1", `select 1 /* ${"x".repeat(PREPARE_MAX_CHARS)} */`]) {
      nameOf(connection, text);
      expect(nameOf(connection, text), `${text.length} chars`).toBeUndefined();
    }
    expect(namedQuery(connection, { text: long(1), name: "mine" })).toEqual({ text: long(1), name: "mine" });
    expect(namedQuery(connection, long(1))).toBe(long(1));
  });

  it(`at most ${PREPARED_PER_CONNECTION} texts per connection; the rest go unnamed`, () => {
    const connection = {};
    const named = new Set<string>();
    for (let i = 0; i < PREPARED_PER_CONNECTION + 10; i++) {
      nameOf(connection, long(i));
      const name = nameOf(connection, long(i));
      if (name) named.add(name);
    }
    expect(named.size).toBe(PREPARED_PER_CONNECTION);
  });
});

describe.skipIf(!process.env.DATABASE_URL)("on PostgreSQL (node-postgres)", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
    await insertProofs(app.db, sampleProofs({ count: 30, seed: 5, now: new Date("2026-01-01T00:00:00Z") }));
  }, 120_000);
  afterAll(() => app?.close());

  it("a page's statement is parsed once per connection, planned for each request's own values, its answer unchanged", async () => {
    const bodies = new Set<string>();
    const paths = [
      "/api/ogc/collections/location-proofs/items?limit=3&bbox=-180,-60,180,60",
      "/api/ogc/collections/location-proofs/items?limit=3&bbox=0,0,60,60",
    ];
    for (let i = 0; i < 6; i++) {
      for (const path of paths) {
        const res = await app.request(path);
        expect(res.status).toBe(200);
        bodies.add(`${path} ${(await res.text()).replace(/"timeStamp":"[^"]*"/, "")}`);
      }
    }
    expect(bodies.size, "each path answers the same bytes every time").toBe(paths.length);
    // Requests one after another reuse the pool's most recently released connection: this one.
    const statements = await queryRows<{ name: string; statement: string; generic: number; custom: number }>(
      app.db,
      sql`select name, statement, generic_plans::int as generic, custom_plans::int as custom from pg_prepared_statements where name like 'lpqs\\_%'`,
    );
    // The page statement of these requests: the one run most often.
    const page = statements
      .filter((s) => s.statement.includes('"json"'))
      .sort((a, b) => b.custom + b.generic - (a.custom + a.generic))[0];
    expect(page, JSON.stringify(statements.map((s) => s.statement.slice(0, 80)))).toBeDefined();
    expect(page!.generic).toBe(0);
    expect(page!.custom).toBeGreaterThanOrEqual(4);
    const [mode] = await queryRows<{ mode: string }>(
      app.db,
      sql`select current_setting('plan_cache_mode') as mode`,
    );
    expect(mode!.mode).toBe("force_custom_plan");
  });
});
