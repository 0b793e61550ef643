import { AsyncLocalStorage, AsyncResource } from "node:async_hooks";
import { sql } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT, PgTransactionConfig } from "drizzle-orm/pg-core";
import { beforeStatement, timeLeft } from "../lib/budget/request-budget.js";
import { type Config, ConfigError, getConfig, requireDatabaseUrl } from "../lib/config.js";
import { warmWhenReused } from "./backend-warmup.js";
import { DatabaseTimeoutError, isDatabaseOutage } from "./errors.js";
import { namedQuery, PREPARED_PLAN_MODE } from "./prepared.js";
import { bucket, readKey } from "./read-scope.js";
import * as schema from "./schema.js";

/** The Drizzle database every module takes; the same for PGlite, node-postgres and Neon. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type DriverKind = "pglite" | "pg" | "neon";

export type DbHandle = {
  db: Db;
  kind: DriverKind;
  close(): Promise<void>;
};

/** Neon's hosts; any other postgres:// URL goes through node-postgres. DATABASE_DRIVER overrides the guess. */
export function driverFor(url: string, override?: string): "pg" | "neon" {
  if (override === "neon" || override === "pg") return override;
  const host = (() => {
    try {
      return new URL(url).hostname;
    } catch {
      return "";
    }
  })();
  return host.endsWith(".neon.tech") || host.endsWith(".neon.build") ? "neon" : "pg";
}

export type DatabaseBudgets = Config["database"];

/**
 * The client-side deadline is the server's statement_timeout plus this: a database that answers cancels the
 * statement itself (the connection stays healthy and is reused); one that does not answer at all (a stalled network,
 * a frozen server) is given up on by the client, which destroys the connection.
 */
export const DEADLINE_MARGIN_MS = 1000;

/**
 * For migrations and bulk loads (scripts, benchmarks, the test template): an index build over a large table can
 * take minutes. Never used by a route.
 */
export const MAINTENANCE_BUDGETS: DatabaseBudgets = {
  connectTimeoutMs: 10_000,
  statementTimeoutMs: 600_000,
  syncStatementTimeoutMs: 600_000,
};

/** The name our connections carry in pg_stat_activity (the fault test counts them by it). */
export const APPLICATION_NAME = "location-proof-query-service";

/** A longer statement budget for the queries run inside transactionWithBudget(); absent: the public budget. */
const statementBudget = new AsyncLocalStorage<number>();

type AnyClient = {
  query(...args: unknown[]): unknown;
  emit(event: string, ...args: unknown[]): boolean;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  connection?: { stream?: { destroy(): void } };
};

type QueryCallback = (error: unknown, result?: unknown) => void;
type DeadlineState = { expired: DatabaseTimeoutError | undefined; connection?: AnyClient["connection"] };

/*
 * The deadline's closures are made by these functions, outside the query method, on purpose. Closures made inside
 * the method let V8's scavenges keep each page's rows alive until they are promoted to the old generation (none of it
 * reachable), which brings on full mark-compact collections under load. Made here, a page's rows die young.
 */

/** Starts a statement's deadline on `client`; the function returned ends it and says which error to report. */
function armDeadline(client: DeadlineState, ms: number): (error: unknown) => unknown {
  const timer = setTimeout(() => {
    client.expired = new DatabaseTimeoutError(
      `the database did not answer within ${ms} ms; connection discarded`,
    );
    client.connection?.stream?.destroy();
  }, ms);
  return (error) => {
    clearTimeout(timer);
    return error && client.expired ? client.expired : error;
  };
}

const settledCallback =
  (callback: QueryCallback, settle: (error: unknown) => unknown): QueryCallback =>
  (error, result) =>
    callback(settle(error), result);

const settledPromise = (result: Promise<unknown>, settle: (error: unknown) => unknown) =>
  result.then(
    (value) => {
      settle(undefined);
      return value;
    },
    (error) => {
      throw settle(error);
    },
  );

/**
 * A node-postgres Client class (or Neon's, which is the same code) whose every query has a client-side deadline:
 * when it passes, the socket is destroyed, so the statement fails with a DatabaseTimeoutError, the client is no
 * longer queryable and the pool drops it on release — never reused, even when Drizzle releases a transaction's
 * client without an error. node-postgres' own `query_timeout` leaves the client in place, stuck behind the statement
 * it gave up on, so a stalled database would wedge the pool until a restart.
 */
function withDeadline<C extends new (...args: any[]) => AnyClient>(
  Base: C,
  budgets: DatabaseBudgets,
  prepare = false,
): C {
  return class DeadlineClient extends Base {
    /** Set when a deadline fired: every error this connection reports from then on is this one. */
    expired: DatabaseTimeoutError | undefined;

    constructor(...args: any[]) {
      super(...args);
      // A connection that ends under a checked-out client emits 'error'; the statement in flight already gets it,
      // and with no listener the event would crash the process.
      this.on("error", () => {});
    }

    // The pool hears of a broken connection through this event before the query callback runs: it must carry the
    // deadline's error, not the "Connection terminated unexpectedly" that destroying the socket causes.
    override emit(event: string, ...args: unknown[]): boolean {
      if (event === "error" && this.expired) args[0] = this.expired;
      return (super.emit as (event: string, ...args: unknown[]) => boolean)(event, ...args);
    }

    override query(...args: unknown[]): unknown {
      // Long statements named, to be parsed once per connection (db/prepared.ts).
      if (prepare) args[0] = namedQuery(this, args[0]);
      const settle = armDeadline(this, statementDeadline(budgets));
      const at = args.findIndex((a) => typeof a === "function");
      if (at >= 0) {
        args[at] = settledCallback(args[at] as QueryCallback, settle);
        return super.query(...args);
      }
      const result = super.query(...args) as Promise<unknown> | undefined;
      if (result && typeof result.then === "function") return settledPromise(result, settle);
      // A query object carrying its own callback (not used by Drizzle): its caller owns the wait.
      settle(undefined);
      return result;
    }
  };
}

/**
 * A statement's client-side deadline: its budget (the public one, or a transaction's) and a margin for the server
 * to stop it first; within a request, never later than the request's own deadline (lib/budget/request-budget.ts).
 * Passing that one discards the connection — the server still ends the statement at its statement_timeout — and
 * the request answers 503 RequestBudgetExceeded (lib/http/respond.ts).
 */
function statementDeadline(budgets: DatabaseBudgets): number {
  const own = (statementBudget.getStore() ?? budgets.statementTimeoutMs) + DEADLINE_MARGIN_MS;
  const left = timeLeft();
  return left === undefined ? own : Math.max(1, Math.min(own, left));
}

/**
 * The most bind parameters one statement may carry, on every driver. PostgreSQL's protocol allows 65,535, but the
 * pinned PGlite (the one its PostGIS build needs) answers a statement with more than 32,767 with no error, no rows and
 * no effect, and every later statement of the session with no rows either: a silent loss. So the PGlite driver
 * refuses such a statement before it is sent (db/pglite.ts), and bulk writers size their chunks by it.
 */
export const MAX_STATEMENT_PARAMETERS = 32_767;

/**
 * Drizzle's logger sees every statement as it is sent, in the caller's async context: where the request's budget
 * counts it, and refuses one the request has no time left for (before it reaches the database).
 */
export const STATEMENT_HOOK = { logQuery: (query: string) => beforeStatement(query) };

/**
 * A pool whose `connect(callback)` calls back in the caller's async context. The pool calls a waiting request back
 * from the release of another one's connection, which would run the statement under that other request's budget.
 */
function keepCallerContext<P extends { connect(...args: any[]): unknown }>(pool: P): P {
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  (pool as { connect: (...args: unknown[]) => unknown }).connect = (...args: unknown[]) =>
    typeof args[0] === "function"
      ? connect(AsyncResource.bind(args[0] as (...a: unknown[]) => unknown))
      : connect(...args);
  return pool;
}

/** Pool options both drivers share: the connection wait (new or from a full pool) is bounded, idle ones expire. */
const poolOptions = (url: string, budgets: DatabaseBudgets) => ({
  connectionString: url,
  max: 5,
  connectionTimeoutMillis: budgets.connectTimeoutMs,
  idleTimeoutMillis: 10_000,
  application_name: APPLICATION_NAME,
});

/** A new pool as the service uses it: callbacks in the caller's context, connections warmed when reused. */
const servicePool = <P extends { connect(...args: any[]): unknown }>(pool: P, options: ConnectOptions): P =>
  keepCallerContext(options.warmBackends === false ? pool : warmWhenReused(pool));

/** How connect() opens a pool; the defaults are the service's. */
export type ConnectOptions = {
  /** false: connections are never warmed (db/backend-warmup.ts), for `npm run bench:backends` to compare. */
  warmBackends?: boolean;
};

/**
 * Opens a server database. The drivers are imported lazily so a function only loads the one it uses.
 * PGlite is not reachable from here on purpose: it is injected (db/pglite.ts) by the dev server and tests, so it
 * is never traced into a deployed function.
 *
 * Every wait is bounded (docs/security.md, "Database outages and timeouts"): the connection (`connectTimeoutMs`,
 * also the wait for a free pool slot), each statement (server-side `statement_timeout` where the driver can send
 * it, and always the client-side deadline above), and a dead peer under an idle connection (TCP keepalive,
 * node-postgres).
 */
export async function connect(
  url: string,
  override?: string,
  budgets: DatabaseBudgets = getConfig().database,
  options: ConnectOptions = {},
): Promise<DbHandle> {
  if (driverFor(url, override) === "neon") {
    const [{ Pool, Client, neonConfig }, { drizzle }, ws] = await Promise.all([
      import("@neondatabase/serverless"),
      import("drizzle-orm/neon-serverless"),
      import("ws"),
    ]);
    // Node 20 has no global WebSocket; Neon's Pool needs one for transactions (the sync engine uses them).
    neonConfig.webSocketConstructor ??= ws.default as unknown as typeof WebSocket;
    // No statement_timeout startup parameter here: Neon's pooled endpoint (PgBouncer, transaction mode) refuses
    // startup parameters it does not know. The client deadline applies; the server-side limit is set on the role
    // (docs/deploy.md) and by SET LOCAL in the sync engine's transactions.
    const DeadlinePool = class extends Pool {
      constructor(options: ConstructorParameters<typeof Pool>[0]) {
        super(options);
        // Neon's Pool fixes its Client class in its constructor (it ignores the `Client` option).
        (this as unknown as { Client: unknown }).Client = withDeadline(
          Client as unknown as new (
            ...args: any[]
          ) => AnyClient,
          budgets,
        );
      }
    };
    const pool = servicePool(new DeadlinePool(poolOptions(url, budgets)), options);
    return pooledHandle<typeof pool, import("@neondatabase/serverless").PoolClient>(
      pool,
      "neon",
      (client) => drizzle({ client, schema, logger: STATEMENT_HOOK }) as unknown as Db,
    );
  }
  const [{ default: pg }, { drizzle }] = await Promise.all([
    import("pg"),
    import("drizzle-orm/node-postgres"),
  ]);
  const pool = servicePool(
    new pg.Pool({
      ...poolOptions(url, budgets),
      Client: withDeadline(pg.Client as unknown as new (...args: any[]) => AnyClient, budgets, true) as never,
      // Named statements are planned for each execution's parameters, as unnamed ones are (db/prepared.ts).
      options: PREPARED_PLAN_MODE,
      // Sent at connection startup: the server cancels a statement that runs too long, and ends a session left idle
      // inside a transaction (a client that died mid-commit) instead of holding its locks.
      statement_timeout: budgets.statementTimeoutMs,
      idle_in_transaction_session_timeout: budgets.syncStatementTimeoutMs + DEADLINE_MARGIN_MS,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    }),
    options,
  );
  return pooledHandle<typeof pool, import("pg").PoolClient>(
    pool,
    "pg",
    (client) => drizzle({ client, schema, logger: STATEMENT_HOOK }) as unknown as Db,
  );
}

/**
 * A driver's pool as a handle: `over` is drizzle over the pool, or over one client checked out of it for a
 * transaction (dedicatedConnections).
 */
function pooledHandle<
  P extends {
    on(event: "error", listener: () => void): unknown;
    connect(): Promise<C>;
    end(): Promise<void>;
  },
  C extends { release(error?: Error): void },
>(pool: P, kind: DriverKind, over: (client: P | C) => Db): DbHandle {
  // An idle client that loses its server must not crash the process; the next query reports the failure.
  pool.on("error", () => {});
  const db = over(pool);
  dedicatedConnections.set(db, async () => {
    const client = await pool.connect();
    return { db: over(client), release: (e) => client.release(e) };
  });
  return { db, kind, close: () => pool.end() };
}

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/**
 * How to check one connection out of a pooled Db, for transactions. Drizzle's own pool transactions (node-postgres
 * and Neon alike) send BEGIN before their try/finally: a BEGIN that fails — a stalled or lost connection — never
 * releases its client, and a few such failures exhaust the pool for good. Transactions here hold the client
 * themselves and always release it (with the error, so a broken connection is dropped, never reused).
 */
const dedicatedConnections = new WeakMap<Db, () => Promise<{ db: Db; release(error?: Error): void }>>();

/**
 * A transaction whose statements may each take `ms` (the sync engine's commits, which write thousands of rows): the
 * server is told with SET LOCAL (transaction-scoped, so safe behind a transaction-mode pooler), and the client
 * deadline of the queries inside follows it. Everything else keeps the public budget. The only way this service
 * opens a transaction (see dedicatedConnections for why not `db.transaction` directly).
 */
export function transactionWithBudget<T>(
  db: Db,
  ms: number,
  work: (tx: Tx) => Promise<T>,
  config?: PgTransactionConfig,
): Promise<T> {
  const run = async (tx: Tx) => {
    await tx.execute(sql.raw(`set local statement_timeout = ${Math.max(1, Math.floor(ms))}`));
    return work(tx);
  };
  return statementBudget.run(ms, async () => {
    const checkout = dedicatedConnections.get(db);
    // PGlite (one in-process session) has no pool to leak from.
    if (!checkout) return db.transaction(run, config);
    const connection = await checkout();
    let failure: Error | undefined;
    try {
      return await connection.db.transaction(run, config);
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      connection.release(failure && isDatabaseOutage(failure) ? failure : undefined);
    }
  });
}

let current: Promise<DbHandle> | undefined;

/** Installs the database every route uses (PGlite from the dev server and tests, or any handle). */
export function setDatabase(handle: DbHandle | Promise<DbHandle> | undefined): void {
  current = handle === undefined ? undefined : Promise.resolve(handle);
}

let injectedReaders: Promise<DbHandle>[] | undefined;
const openedReaders = new Map<string, Promise<DbHandle>>();

/** Installs the replicas the public reads use (tests), or undefined to go back to DATABASE_READ_URL. */
export function setReadDatabases(handles: (DbHandle | Promise<DbHandle>)[] | undefined): void {
  injectedReaders = handles?.map((h) => Promise.resolve(h));
}

export const hasInjectedReadDatabases = () => injectedReaders !== undefined;

/** The replicas' handles (each opened on first use), in the order DATABASE_READ_URL lists them. */
export function readDatabases(): Promise<DbHandle>[] {
  if (injectedReaders) return injectedReaders;
  const config = getConfig();
  if (config.databaseReadProblem) throw new ConfigError(config.databaseReadProblem, ["DATABASE_READ_URL"]);
  return config.databaseReadUrls.map((url) => {
    let handle = openedReaders.get(url);
    if (!handle) {
      handle = connect(url, config.databaseDriver, config.database);
      openedReaders.set(url, handle);
      // A failed connection attempt must not be cached forever.
      handle.catch(() => openedReaders.delete(url));
    }
    return handle;
  });
}

/**
 * The database of whoever asks: inside a public read (db/read-scope.ts) the replica chosen for its client, when
 * replicas are configured; otherwise the primary.
 */
export function getDatabase(): Promise<DbHandle> {
  const key = readKey();
  if (key !== undefined) {
    const readers = readDatabases();
    if (readers.length) return readers[bucket(key, readers.length)]!;
  }
  return getPrimaryDatabase();
}

/** The process-wide primary: an injected one, else DATABASE_URL. The sync, the cron and every write use it. */
export function getPrimaryDatabase(): Promise<DbHandle> {
  if (!current) {
    const config = getConfig();
    const url = requireDatabaseUrl(config);
    if (!url) {
      throw new ConfigError(
        "DATABASE_URL is not set and no embedded database was started (run the service with `npm run dev`)",
        ["DATABASE_URL"],
      );
    }
    current = connect(url, config.databaseDriver, config.database);
    // A failed connection attempt must not be cached forever.
    current.catch(() => {
      current = undefined;
    });
  }
  return current;
}

export async function getDb(): Promise<Db> {
  return (await getDatabase()).db;
}

/** Runs raw SQL and returns its rows; every driver's result carries `rows`. */
export async function queryRows<T = Record<string, unknown>>(
  db: Db,
  query: import("drizzle-orm").SQL,
): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}
