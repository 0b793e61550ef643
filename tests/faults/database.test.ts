import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  APPLICATION_NAME,
  connect,
  type DbHandle,
  setDatabase,
  transactionWithBudget,
} from "../../db/client.js";
import { DatabaseTimeoutError, isDatabaseOutage } from "../../db/errors.js";
import { loadConfig, setConfig } from "../../lib/config.js";
import { createRouter, type Router } from "../../lib/local/router.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { ROOT } from "../helpers/app.js";
import { recordingRouter } from "../helpers/contract.js";
import { startTcpFaultProxy, type TcpFaultProxy } from "../helpers/tcp-fault-proxy.js";
import { openTestDb, usingPostgres } from "../helpers/test-db.js";
import { startWsBridge, type WsBridge } from "../helpers/ws-bridge.js";

/**
 * The database failing under the service, for real: a TCP proxy (tests/helpers/tcp-fault-proxy.ts) between the
 * driver and the CI PostgreSQL stalls (nothing passes, connections stay open), refuses (port closed, connections
 * reset) and resumes. With the default budgets (lib/config.ts), a data request during a stall or a refusal answers
 * 503 JSON with Retry-After within 10 s, requests succeed again within 10 s of the database coming back, without a
 * restart, and no connection is leaked (pg_stat_activity). Both production drivers: node-postgres, and Neon's Pool
 * through the WebSocket bridge (tests/helpers/ws-bridge.ts: Neon's endpoint, TLS on port 443) in front of the proxy;
 * and for Neon, the same faults of the endpoint itself (the bridge stalls, refuses, resumes) with the database
 * healthy behind it. PostgreSQL only (the proxy needs a TCP server; PGlite is in-process): skipped on the PGlite
 * pass like the other PostgreSQL-only tests.
 */
const BUDGET_MS = 10_000;
const DATA_PATHS = [
  "/api/v0/location-proofs?limit=5",
  "/api/v0/location-proofs/stats",
  "/api/ogc/collections/location-proofs/items?limit=5",
  "/api/v0/location-proofs?limit=5&bbox=-10,-10,10,10",
  "/api/ogc/collections/location-proofs/items?limit=2",
  "/api/v0/location-proofs?limit=1",
  "/api/ogc/collections/location-proofs/items?limit=3&bbox=-10,-10,10,10",
  "/health",
];

type Faulty = Pick<TcpFaultProxy, "stall" | "refuse" | "resume">;

describe.skipIf(!usingPostgres()).each([
  { driver: "pg", at: "database" },
  { driver: "neon", at: "database" },
  { driver: "neon", at: "Neon endpoint" },
] as const)("$at faults ($driver driver)", ({ driver, at }) => {
  let testDb: DbHandle & { url?: string };
  let proxy: TcpFaultProxy;
  let bridge: WsBridge | undefined;
  /** What fails: the TCP proxy before PostgreSQL, or the bridge that plays Neon's endpoint. */
  let fault: Faulty;
  let handle: DbHandle;
  let router: Router;
  let database: string;

  /** Backends of the test database's own (direct) connections, which are not the pool under test. */
  let ownPids: number[] = [];

  /** The pool's connections to the test database, as the server sees them (asked directly, not via the proxy). */
  async function backends(): Promise<{ total: number; busy: number }> {
    const client = new pg.Client({ connectionString: testDb.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        `select count(*)::int as total, count(*) filter (where state <> 'idle')::int as busy
             from pg_stat_activity where datname = $1 and application_name = $2 and pid <> all($3::int[])`,
        [database, APPLICATION_NAME, ownPids],
      );
      return rows[0];
    } finally {
      await client.end();
    }
  }

  const request = async (path: string) => {
    const started = performance.now();
    const res = await router.handle(new Request(`http://localhost${path}`));
    return { res, ms: performance.now() - started, body: await res.json() };
  };

  /** How long after now the first data request succeeds (polling; Infinity if not within the budget). */
  async function recoveryMs(): Promise<number> {
    const started = performance.now();
    while (performance.now() - started < BUDGET_MS) {
      if ((await request(DATA_PATHS[0]!)).res.status === 200) return performance.now() - started;
      await new Promise((r) => setTimeout(r, 100));
    }
    return Number.POSITIVE_INFINITY;
  }

  beforeAll(async () => {
    testDb = await openTestDb();
    database = new URL(testDb.url!).pathname.slice(1);
    await insertProofs(testDb.db, sampleProofs({ count: 50, seed: 3 }));
    const admin = new pg.Client({ connectionString: testDb.url });
    await admin.connect();
    ownPids = (
      await admin.query("select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()", [
        database,
      ])
    ).rows.map((r: { pid: number }) => r.pid);
    await admin.end();
    proxy = await startTcpFaultProxy({
      host: "127.0.0.1",
      port: Number(new URL(testDb.url!).port || 5432),
    });
    const config = loadConfig({ LOG_LEVEL: "silent", RATE_LIMIT_PER_MINUTE: "0" });
    setConfig(config);
    if (driver === "neon") bridge = await startWsBridge({ host: "127.0.0.1", port: proxy.port });
    fault = at === "database" ? proxy : bridge!;
    // Through the proxy (node-postgres) or through the bridge and then the proxy (Neon).
    const url = bridge ? bridge.via(testDb.url!) : proxy.via(testDb.url!);
    handle = await connect(url, driver, config.database);
    setDatabase(handle);
    router = recordingRouter(createRouter(ROOT));
  });
  afterAll(async () => {
    setDatabase(undefined);
    setConfig(undefined);
    await handle?.close().catch(() => {});
    await bridge?.close();
    await proxy?.close();
    await testDb?.close();
  });

  it("answers 503 with Retry-After within 10 s while the database stalls, and recovers within 10 s", {
    timeout: 60_000,
  }, async () => {
    // Warm: several connections open in the pool.
    for (const r of await Promise.all(DATA_PATHS.map(request)))
      expect(r.res.status, JSON.stringify(r.body)).toBe(200);
    const before = await backends();
    expect(before.total).toBeGreaterThan(0);

    fault.stall();
    // More requests than the pool has connections: some wait for a slot, some for a new connection.
    const stalled = await Promise.all([...DATA_PATHS, ...DATA_PATHS].map(request));
    for (const { res, ms, body } of stalled) {
      expect(res.status, JSON.stringify(body)).toBe(503);
      expect(ms).toBeLessThan(BUDGET_MS);
      expect(res.headers.get("content-type")).toMatch(/json/);
      if (body.checks === undefined && !body.details) {
        // a data route: the outage answer
        expect(res.headers.get("retry-after")).toBe("5");
        expect(body).toMatchObject({ code: "ServiceUnavailable" });
      }
      expect(JSON.stringify(body)).not.toMatch(/select|ECONN|127\.0\.0\.1|terminated|timeout exceeded/i);
    }

    await fault.resume();
    const resumed = performance.now();
    expect(await recoveryMs(), "a request succeeds within 10 s of the database coming back").toBeLessThan(
      BUDGET_MS,
    );
    // Every route, concurrently: no pooled connection is left stuck behind a statement it gave up on.
    for (const r of await Promise.all([...DATA_PATHS, ...DATA_PATHS].map(request))) {
      expect(r.res.status).toBe(200);
      expect(r.ms).toBeLessThan(BUDGET_MS);
    }

    // No leaked connections: the stalled ones were discarded (the pool holds at most 5) and none is left busy.
    // A stalled proxy does not read, so it learns of the driver's closes once traffic flows: allow it a moment.
    let after = await backends();
    for (let i = 0; i < 30 && (after.busy > 0 || after.total > 5); i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = await backends();
    }
    expect(after.total).toBeLessThanOrEqual(5);
    expect(after.busy).toBe(0);
    console.log(
      `faults (${at}, ${driver}): stall → ${stalled.length} × 503 in ≤ ${Math.round(Math.max(...stalled.map((s) => s.ms)))} ms; ` +
        `recovered in ${Math.round(performance.now() - resumed)} ms; backends before ${before.total}, after ${after.total}`,
    );
  });

  it("answers 503 (not 500) when the database refuses connections, and recovers", {
    timeout: 30_000,
  }, async () => {
    await fault.refuse();
    // The pool hears of its reset idle connections asynchronously (a request that catches one first is a 503 too).
    await new Promise((r) => setTimeout(r, 300));
    const refused = await Promise.all(DATA_PATHS.slice(0, 4).map(request));
    for (const { res, ms, body } of refused) {
      expect(res.status, JSON.stringify(body)).toBe(503);
      expect(res.headers.get("retry-after")).toBe("5");
      expect(ms).toBeLessThan(BUDGET_MS);
    }
    await fault.resume();
    expect(await recoveryMs()).toBeLessThan(BUDGET_MS);
  });

  it("discards a connection whose transaction stalled; the pool keeps working after", {
    timeout: 30_000,
  }, async () => {
    fault.stall();
    const started = performance.now();
    const failed = await transactionWithBudget(handle.db, 1000, async (tx) => {
      await tx.execute(sql`select 1`);
    }).catch((error: unknown) => error);
    expect(isDatabaseOutage(failed)).toBe(true);
    expect(performance.now() - started).toBeLessThan(BUDGET_MS);
    await fault.resume();
    // Drizzle releases a transaction's client without an error; a stuck one would be handed out again here.
    const results = await Promise.all(
      Array.from({ length: 10 }, () => handle.db.execute(sql`select 1 as one`)),
    );
    expect(results).toHaveLength(10);
    const clean = await transactionWithBudget(handle.db, 1000, async (tx) =>
      tx.execute(sql`select 2 as two`),
    );
    expect(clean).toBeDefined();
  });

  it("stops a statement at the statement budget: the server cancels it (57014) or the client deadline fires", {
    timeout: 30_000,
  }, async () => {
    const started = performance.now();
    // (Neon's driver cannot cancel a statement it gives up on: keep the one it leaves running short.)
    const seconds = driver === "neon" ? 7 : 30;
    const error = await handle.db.execute(sql`select pg_sleep(${seconds})`).catch((e: unknown) => e);
    const ms = performance.now() - started;
    expect(isDatabaseOutage(error)).toBe(true);
    // 4 s statement_timeout, then 1 s of margin before the client gives up on its own.
    expect(ms).toBeLessThan(6_000);
    if (driver === "neon") expect(error).toBeInstanceOf(Error);
    else expect(JSON.stringify((error as { cause?: { code?: string } }).cause?.code)).toBe('"57014"');
    const timedOut =
      error instanceof DatabaseTimeoutError ||
      (error as { cause?: unknown }).cause instanceof DatabaseTimeoutError;
    if (driver === "pg") expect(timedOut).toBe(false);
    const res = await request(DATA_PATHS[0]!);
    expect(res.res.status).toBe(200);
  });

  it("leaves no connection behind once the pool is closed", { timeout: 60_000 }, async () => {
    // pool.end() waits for every checked-out client: a transaction that leaked one (a failed BEGIN under Drizzle's
    // own pool transactions) would hang here.
    await handle.close();
    let left = await backends();
    // Neon's driver does not cancel a statement it gave up on (pg_sleep above): it ends with the statement.
    for (let i = 0; i < 100 && left.total > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      left = await backends();
    }
    expect(left.total).toBe(0);
  });
});
