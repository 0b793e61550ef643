import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setDatabase } from "../../db/client.js";
import { statementsSent, timeLeft, withRequestBudget } from "../../lib/budget/request-budget.js";
import { ConfigError, loadConfig } from "../../lib/config.js";
import { ApiError } from "../../lib/http/errors.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

/**
 * The request budget (lib/budget/request-budget.ts): a public request's statements get what is left of
 * REQUEST_BUDGET_MS, one with no time left is never sent, and the request answers 503 RequestBudgetExceeded with
 * Retry-After before the platform's own limit, never a hang until the function is killed.
 */
let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ CHAINS: "devnet,sepolia,base", REQUEST_BUDGET_MS: "800" });
  await insertProofs(app.db, sampleProofs({ count: 30, seed: 5, days: 30 }));
});
afterAll(() => app.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the request budget", () => {
  it("is configuration, within the functions' maxDuration", () => {
    expect(loadConfig({}).requestBudgetMs).toBe(10_000);
    expect(loadConfig({ REQUEST_BUDGET_MS: "2500" }).requestBudgetMs).toBe(2500);
    for (const bad of ["100", "30000", "ten"])
      expect(() => loadConfig({ REQUEST_BUDGET_MS: bad }), bad).toThrow(ConfigError);
  });

  it("counts a request's statements, and never sends one the request has no time left for", async () => {
    const outcome = await withRequestBudget(2000, async () => {
      await app.db.execute(sql`select 1`);
      const before = statementsSent();
      expect(timeLeft()!).toBeGreaterThan(0);
      await sleep(timeLeft()! + 5);
      const error = await app.db.execute(sql`select 1`).then(
        () => undefined,
        (e: unknown) => e,
      );
      return { before, error };
    });
    expect(outcome.before).toBe(1);
    expect(outcome.error).toBeInstanceOf(ApiError);
    expect(outcome.error).toMatchObject({ status: 503, code: "RequestBudgetExceeded" });
    // Outside a request nothing is counted or refused.
    expect(timeLeft()).toBeUndefined();
    await expect(app.db.execute(sql`select 1`)).resolves.toBeTruthy();
  });

  it("a request that spends its budget answers 503 RequestBudgetExceeded with Retry-After, within the budget", async () => {
    // A slow database, injected: a statement waits 850 ms before it is sent (a fault PGlite cannot produce
    // on demand; the PostgreSQL test below makes it with a lock instead): past the budget of 800 ms, it is not sent.
    const slow = new Proxy(app.db, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (key !== "execute" && key !== "select") return value;
        const call = value as (...a: unknown[]) => unknown;
        if (key === "execute")
          return async (...args: unknown[]) => {
            await sleep(850);
            return call.apply(target, args);
          };
        return (...args: unknown[]) => call.apply(target, args);
      },
    });
    const path = "/api/v0/location-proofs?limit=5&bbox=-170,-80,170,80&datetime=2020-01-01T00:00:00Z/..";
    expect((await app.get(path)).status).toBe(200);
    setDatabase({ db: slow as typeof app.db, kind: app.handle.kind, close: async () => {} });
    try {
      const started = performance.now();
      const res = await app.get(
        "/api/v0/location-proofs?limit=5&bbox=-170,-80,170,80&datetime=2020-01-01T00:00:00Z/..",
      );
      const took = performance.now() - started;
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ code: "RequestBudgetExceeded" });
      expect(res.body.message).toMatch(/800 ms/);
      expect(res.headers.get("retry-after")).toBe("2");
      expect(took).toBeLessThan(850 + 400);
    } finally {
      setDatabase(app.handle);
    }
  });

  it.skipIf(!process.env.DATABASE_URL)(
    "PostgreSQL: a statement waiting on a lock is given up at the request's deadline, not the statement's",
    async () => {
      const url = (app.handle as { url?: string }).url!;
      const locker = new pg.Client({ connectionString: url });
      await locker.connect();
      try {
        await locker.query("begin");
        await locker.query("lock table location_proofs in access exclusive mode");
        const started = performance.now();
        const res = await app.get("/api/v0/location-proofs?limit=5&chain=sepolia");
        const took = performance.now() - started;
        expect(res.status).toBe(503);
        expect(res.body).toMatchObject({ code: "RequestBudgetExceeded" });
        // The statement budget is 4 s: the request ended at its own 800 ms.
        expect(took).toBeLessThan(800 + 700);
      } finally {
        await locker.query("rollback");
        await locker.end();
      }
      // The pool recovers: the next request answers.
      expect((await app.get("/api/v0/location-proofs?limit=5&chain=base")).status).toBe(200);
    },
  );
});
