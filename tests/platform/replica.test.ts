import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connect,
  type DbHandle,
  getDatabase,
  MAINTENANCE_BUDGETS,
  queryRows,
  setDatabase,
  setReadDatabases,
} from "../../db/client.js";
import { migrate } from "../../db/migrate.js";
import { loadConfig, setConfig } from "../../lib/config.js";
import { createRouter } from "../../lib/local/router.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { ROOT, TEST_BASE } from "../helpers/app.js";
import { adminQuery, withDatabase } from "../helpers/test-db.js";

/*
 * Read replicas against a real streaming replica of PostgreSQL 15: scripts/ci/replica.sh starts a primary and a
 * replica whose replay waits 2 s (recovery_min_apply_delay), and .ci/run passes their URLs. The public reads go to
 * the replica, the restricted routes and the writes to the primary; while the replica lags, a page's count always
 * agrees with its rows, and /health reports the lag.
 */
const PRIMARY = process.env.LPQS_REPLICA_PRIMARY_URL;
const REPLICA = process.env.LPQS_REPLICA_READ_URL;
const DB = `lpqs_replica_${process.pid}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!PRIMARY || !REPLICA)(
  "read replicas (a real streaming replica, scripts/ci/replica.sh)",
  () => {
    let primary: DbHandle;
    let replica: DbHandle;
    const router = createRouter(ROOT);
    const get = async (path: string, headers: Record<string, string> = {}) => {
      const res = await router.handle(new Request(new URL(path, TEST_BASE), { headers }));
      return { status: res.status, body: (await res.json()) as any };
    };
    const total = async () =>
      (await get("/api/v0/location-proofs?limit=100")).body.pagination.total as number;
    const primaryCount = async () =>
      Number(
        (await queryRows<{ n: string }>(primary.db, sql`select count(*) as n from location_proofs`))[0]!.n,
      );

    beforeAll(async () => {
      await adminQuery(PRIMARY!, `drop database if exists ${DB} with (force)`);
      await adminQuery(PRIMARY!, `create database ${DB}`);
      primary = await connect(withDatabase(PRIMARY!, DB), "pg", MAINTENANCE_BUDGETS);
      await migrate(primary);
      // The new database reaches the replica after its apply delay.
      for (let i = 0; ; i++) {
        try {
          replica = await connect(withDatabase(REPLICA!, DB), "pg");
          await queryRows(replica.db, sql`select 1 from location_proofs limit 1`);
          break;
        } catch (error) {
          await replica?.close().catch(() => {});
          if (i > 60) throw error;
          await sleep(500);
        }
      }
      setConfig(loadConfig({ LOG_LEVEL: "silent", RATE_LIMIT_PER_MINUTE: "0" }));
      setDatabase(primary);
      setReadDatabases([replica]);
    }, 120_000);

    afterAll(async () => {
      setReadDatabases(undefined);
      setDatabase(undefined);
      setConfig(undefined);
      await replica?.close();
      await primary?.close();
      if (PRIMARY) await adminQuery(PRIMARY, `drop database if exists ${DB} with (force)`);
    });

    it("serves the public reads from the replica, and reports its lag in /health", async () => {
      const before = await total();
      await insertProofs(primary.db, sampleProofs({ count: 20, seed: 11 }));
      const written = await primaryCount();
      expect(written).toBe(before + 20);
      // The replica has not replayed the write yet: the public list still shows what it had.
      expect(await total()).toBe(before);
      // Outside a public read, the service's database is the primary.
      expect(
        Number(
          (
            await queryRows<{ n: string }>(
              (
                await getDatabase()
              ).db,
              sql`select count(*) as n from location_proofs`,
            )
          )[0]!.n,
        ),
      ).toBe(written);
      const health = await get("/health");
      expect(health.status).toBe(200);
      expect(health.body.checks.replicas).toHaveLength(1);
      expect(health.body.checks.replicas[0].status).toBe("ok");
      expect(health.body.checks.replicas[0].lag_seconds).toBeGreaterThan(0);
      // What the primary answers (it lists the unrevoked ones by default); within the apply delay, the replica too.
      setReadDatabases([primary]);
      const expected = await total().finally(() => setReadDatabases([replica]));
      expect(expected).toBeGreaterThan(before);
      const deadline = Date.now() + 15_000;
      while ((await total()) !== expected && Date.now() < deadline) await sleep(200);
      expect(await total()).toBe(expected);
    });

    it("never shows a count from a newer snapshot than the page's rows while the replica replays", async () => {
      const seen: [number, number][] = [];
      const writes = (async () => {
        for (let i = 0; i < 6; i++) {
          await insertProofs(primary.db, sampleProofs({ count: 3, seed: 100 + i }));
          await sleep(300);
        }
      })();
      const until = Date.now() + 6000;
      while (Date.now() < until) {
        const page = await get("/api/v0/location-proofs?limit=100");
        seen.push([page.body.pagination.total, page.body.data.length]);
        await sleep(50);
      }
      await writes;
      for (const [count, rows] of seen) expect(count).toBe(rows);
      // The replica replayed at least one of the writes while we watched, and the totals never went backwards.
      expect(new Set(seen.map(([count]) => count)).size).toBeGreaterThan(1);
      for (let i = 1; i < seen.length; i++) expect(seen[i]![0]).toBeGreaterThanOrEqual(seen[i - 1]![0]);
    });

    it("keeps each client on one replica", async () => {
      // Two readers that differ: the replica and the primary itself. Each client address always reads the same one.
      setReadDatabases([replica, primary]);
      try {
        await insertProofs(primary.db, sampleProofs({ count: 5, seed: 999 }));
        const byClient = new Map<string, Set<number>>();
        for (let i = 0; i < 40; i++) {
          const ip = `203.0.113.${i % 8}`;
          const page = await get("/api/v0/location-proofs?limit=1", { "x-real-ip": ip });
          byClient.set(ip, (byClient.get(ip) ?? new Set()).add(page.body.pagination.total));
        }
        // Within the apply delay, the two readers disagree; each client saw one of them only.
        for (const totals of byClient.values()) expect(totals.size).toBe(1);
        expect(new Set([...byClient.values()].flatMap((t) => [...t])).size).toBe(2);
      } finally {
        setReadDatabases([replica]);
      }
    });
  },
);
