import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type Db, type DbHandle, setDatabase } from "../../db/client.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { usingPostgres } from "../helpers/test-db.js";

// A statement the database stops at the service's time budget is not an outage: the database answered (it is up),
// and the same request would run as long again. It is a 504 QueryTimeout saying what to do instead (follow `next`
// rather than a deep offset, narrow the filter), without Retry-After; a database that is really down stays a 503
// with Retry-After (db/errors.ts, lib/http/respond.ts).
let app: TestApp;
const PATHS = ["/api/v0/location-proofs?offset=3", "/api/ogc/collections/location-proofs/items?offset=3"];
const BUDGETS = { connectTimeoutMs: 2000, statementTimeoutMs: 300, syncStatementTimeoutMs: 1000 };

beforeAll(async () => {
  app = await createTestApp();
  await insertProofs(app.db, sampleProofs({ count: 30, seed: 8 }));
});
afterAll(() => app.close());

function expectQueryTimeout(res: { status: number; headers: Headers; body: any }) {
  expect(res.status, JSON.stringify(res.body)).toBe(504);
  expect(res.body.code).toBe("QueryTimeout");
  expect(res.body.message).toMatch(/database is available/);
  expect(res.body.message).toMatch(/`next` link/);
  expect(res.headers.get("retry-after")).toBeNull();
}

describe("a statement stopped at its budget", () => {
  it.skipIf(!usingPostgres())(
    "PostgreSQL: a page statement that cannot finish within statement_timeout is a 504 QueryTimeout, and the same request answers once it can run",
    { timeout: 30_000 },
    async () => {
      // The budget is 300 ms; another session holds the table, so the page's statement waits past it and the server
      // cancels it (SQLSTATE 57014, "canceling statement due to statement timeout"), as it would a slow one.
      const url = (app.handle as DbHandle & { url?: string }).url!;
      const slow = await connect(url, "pg", BUDGETS);
      const holder = new pg.Client({ connectionString: url });
      await holder.connect();
      setDatabase(slow);
      try {
        await holder.query("begin");
        await holder.query("lock table location_proofs in access exclusive mode");
        for (const path of PATHS) expectQueryTimeout(await app.get(path));
        await holder.query("rollback");
        for (const path of PATHS) expect((await app.get(path)).status).toBe(200);
      } finally {
        await holder.end();
        setDatabase(app.handle);
        await slow.close();
      }
    },
  );

  it.skipIf(usingPostgres())(
    "PGlite: the database's statement-timeout error (injected: PGlite has no statement_timeout) is a 504 QueryTimeout",
    async () => {
      // The one fault a real part cannot produce here: every statement fails as PostgreSQL fails one it cancels at
      // statement_timeout (PGlite's errors carry the SQLSTATE as `code`, as node-postgres' do).
      const timingOut = new Proxy(app.db, {
        get(target, key, receiver) {
          const value = Reflect.get(target, key, receiver);
          if (key !== "execute" && key !== "select") return value;
          return () => {
            throw Object.assign(new Error("canceling statement due to statement timeout"), {
              code: "57014",
              severity: "ERROR",
            });
          };
        },
      }) as Db;
      setDatabase({ ...app.handle, db: timingOut });
      try {
        for (const path of PATHS) expectQueryTimeout(await app.get(path));
      } finally {
        setDatabase(app.handle);
      }
      for (const path of PATHS) expect((await app.get(path)).status).toBe(200);
    },
  );

  it("a database that is down is still a 503 with Retry-After", { timeout: 30_000 }, async () => {
    // Nothing listens on port 1: every connection is refused.
    const down = await connect("postgres://postgres@127.0.0.1:1/none", "pg", BUDGETS);
    setDatabase(down);
    try {
      for (const path of PATHS) {
        const res = await app.get(path);
        expect(res.status).toBe(503);
        expect(res.body.code).toBe("ServiceUnavailable");
        expect(res.headers.get("retry-after")).toBe("5");
      }
    } finally {
      setDatabase(app.handle);
      await down.close();
    }
  });
});
