import { readFileSync } from "node:fs";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { BACKEND_WARMUP_SQL, WARM_AT_CHECKOUT } from "../../db/backend-warmup.js";
import { connect, type DbHandle, MAINTENANCE_BUDGETS, queryRows } from "../../db/client.js";

// A reused connection is warmed so that its server process keeps the memory its statements use (db/backend-warmup.ts).
// On the real PostgreSQL, whose processes this test reads in /proc (the server must run on this machine, as in CI).

const url = process.env.DATABASE_URL;
// A statement that uses and frees about half a megabyte in small blocks (the rows of a sort): below the block size
// that would raise glibc's thresholds by itself.
const CHURN = sql.raw(
  "select count(*)::int as n from (select g, md5(g::text) as m from generate_series(1, 5000) g order by m) s",
);

type Pooled = {
  connect(): Promise<{ query(text: string): Promise<{ rows: any[] }>; release(e?: Error): void }>;
};
const poolOf = (handle: DbHandle) => (handle.db as unknown as { $client: Pooled }).$client;

const minorFaults = (pid: number) =>
  Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[7]);

describe.skipIf(!url)("connections that keep their memory (PostgreSQL)", () => {
  const handles: DbHandle[] = [];
  const open = async (warmBackends: boolean) => {
    const handle = await connect(url!, "pg", MAINTENANCE_BUDGETS, { warmBackends });
    handles.push(handle);
    return handle;
  };
  afterAll(async () => {
    for (const handle of handles) await handle.close();
  });

  it(`a connection reused (its checkout ${WARM_AT_CHECKOUT}) stops taking page faults for a statement's memory`, async () => {
    const faultsPerStatement: number[] = [];
    for (const warm of [false, true]) {
      const handle = await open(warm);
      // One connection, checked out again for each statement (the pool hands back the one just released).
      const first = await poolOf(handle).connect();
      const pid = (await first.query("select pg_backend_pid() as pid")).rows[0].pid as number;
      first.release();
      for (let i = 0; i < 3; i++) await handle.db.execute(CHURN);
      const before = minorFaults(pid);
      for (let i = 0; i < 5; i++) {
        const rows = await queryRows<{ n: number }>(handle.db, CHURN);
        expect(rows[0]!.n).toBe(5000);
      }
      faultsPerStatement.push((minorFaults(pid) - before) / 5);
    }
    const [without, warmed] = faultsPerStatement;
    // Without the warm-up the server maps the statement's memory afresh each time (glibc's trim threshold): if it
    // does not, this server's allocator behaves otherwise and the warm-up has nothing to fix here.
    expect(without, "faults per statement, never warmed").toBeGreaterThan(50);
    expect(warmed, "faults per statement, warmed").toBeLessThan(10);
  });

  it("runs its statement once, at the second checkout, before the caller's", async () => {
    const handle = await open(true);
    const pool = poolOf(handle);
    // A checkout that runs one statement: its connection's server process.
    const checkout = async () => {
      const client = await pool.connect();
      try {
        return (await client.query("select pg_backend_pid() as pid")).rows[0].pid as number;
      } finally {
        client.release();
      }
    };
    const pid = await checkout();
    // What that process ran last, asked from another connection.
    const admin = await open(false);
    const seen = async () =>
      (
        await queryRows<{ query: string }>(
          admin.db,
          sql`select query from pg_stat_activity where pid = ${pid}`,
        )
      )[0]!.query;
    expect(await seen()).toBe("select pg_backend_pid() as pid");
    // The second checkout: the warm-up, then the caller's statement.
    const client = await pool.connect();
    expect(await seen()).toBe(BACKEND_WARMUP_SQL);
    client.release();
    // Not again.
    expect(await checkout()).toBe(pid);
    const third = await pool.connect();
    expect(await seen()).toBe("select pg_backend_pid() as pid");
    third.release();
  });

  it("a warm-up that fails leaves the connection to its caller's statement, which tells its own error; the pool goes on", async () => {
    const handle = await open(true);
    const pool = poolOf(handle);
    // The first checkout leaves its session in a failed transaction: the warm-up, at the second, is refused.
    const first = await pool.connect();
    await first.query("begin");
    await expect(first.query("select 1/0")).rejects.toMatchObject({ code: "22012" });
    first.release();
    await expect(handle.db.execute(sql`select 1 as one`)).rejects.toMatchObject({ cause: { code: "25P02" } });
    const rows = await queryRows<{ one: number }>(handle.db, sql`select 1 as one`);
    expect(rows[0]!.one).toBe(1);
  });
});
