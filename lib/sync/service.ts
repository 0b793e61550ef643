import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { inArray, sql } from "drizzle-orm";
import { type Db, getDb } from "../../db/client.js";
import { syncState } from "../../db/schema.js";
import { type ChainClient, createChainClient } from "../chains/client.js";
import { type ChainConfig, chainConfigs } from "../chains/registry.js";
import { type Config, getConfig } from "../config.js";
import { type ChainRunResult, createChainSync, type Trigger } from "./chain-sync.js";
import { type SyncOptions, syncOptions } from "./options.js";
import { reconcileRevocations } from "./revocations.js";
import { chainStatus } from "./status.js";
import { type WriterHealth, writerHealth } from "./writer-health.js";

export type SyncServiceDeps = {
  db: Db;
  config: Config;
  /** Replaces the viem client of a chain (tests: fault-injecting transports; benches: counting proxies). */
  clientFor?: (chain: ChainConfig) => ChainClient;
  options?: Partial<SyncOptions>;
};

export type SyncReport = {
  /** failures first; else `degraded` when a chain's writer is (lib/sync/writer-health.ts); else ok */
  status: "ok" | "degraded" | "partial_failure" | "failed";
  trigger: Trigger;
  started_at: string;
  duration_ms: number;
  chains: ReturnType<typeof toJson>[];
  failures: { chain: string; error: string | null }[];
  /** why chains are degraded, each prefixed with its chain's name */
  problems: string[];
};

const toJson = (r: ChainRunResult, writer: WriterHealth) => ({
  chain: r.chain,
  chain_id: r.chainId,
  status: r.status,
  ...(r.reason ? { reason: r.reason } : {}),
  // Who holds the chain while this run could not take it (skipped runs only; a run that held it released it).
  ...(r.status === "skipped" && r.writer.lease
    ? {
        lease: {
          holder: r.writer.lease.holder,
          expires_at: r.writer.lease.expiresAt.toISOString(),
          heartbeat_at: r.writer.lease.heartbeatAt?.toISOString() ?? null,
        },
      }
    : {}),
  writer,
  abandoned_runs: r.abandoned.length,
  from_block: r.fromBlock,
  to_block: r.toBlock,
  cursor_block: r.cursor,
  schema_cursor_block: r.schemaCursor,
  schemas: {
    found: r.schemas.found,
    backfilled: r.schemas.backfilled,
    joined: r.schemas.joined,
    rows_removed: r.schemas.removed,
    redecoded: r.schemas.redecoded,
  },
  head_block: r.head,
  confirmed_head: r.confirmedHead,
  attestations: r.attestations,
  revocations: r.revocations,
  rewound_blocks: r.rewound,
  rpc_requests: r.rpcRequests,
  duration_ms: r.durationMs,
  error: r.error,
});

/** The sync routes' HTTP status rule: 200 when no chain failed, 207 when some did, 500 when all did. */
export const failureStatus = (failed: number, total: number): number =>
  failed === 0 ? 200 : failed < total ? 207 : 500;

/** HTTP status of a sync report (the rule above). */
export const reportStatus = (report: SyncReport): number =>
  failureStatus(report.failures.length, report.chains.length);

/** Retry-After of the cron's 503 when no lease expiry says better: the cron's own period. */
const CRON_PERIOD_SECONDS = 60;

/**
 * The cron's answer: the failure rule above; else **503** (with Retry-After) once a chain was skipped
 * `alertAfterSkips` runs in a row, so the platform's cron monitoring sees a writer that holds a chain and does not
 * let go (a `degraded` report alone answers 200). Retry-After: seconds until the soonest held lease lapses.
 */
export function cronAnswer(
  report: SyncReport,
  alertAfterSkips: number,
  now = Date.now(),
): { status: number; headers?: Record<string, string> } {
  const failed = reportStatus(report);
  if (failed !== 200) return { status: failed };
  const stuck = report.chains.filter(
    (c) => c.status === "skipped" && c.writer.consecutive_skips >= alertAfterSkips,
  );
  if (stuck.length === 0) return { status: 200 };
  const waits = stuck.flatMap((c) =>
    c.lease ? [Math.ceil((Date.parse(c.lease.expires_at) - now) / 1000)] : [],
  );
  const seconds = waits.length ? Math.min(CRON_PERIOD_SECONDS, Math.max(1, ...waits)) : CRON_PERIOD_SECONDS;
  return { status: 503, headers: { "retry-after": String(seconds) } };
}

/** HTTP status of a revocation reconciliation: the same rule, over its chains. */
export const reconcileStatus = (result: { chains: readonly { status: string }[] }): number =>
  failureStatus(result.chains.filter((c) => c.status === "error").length, result.chains.length);

/**
 * What the sync routes call: runs chains (concurrently, each under its own lease and budget), reports status,
 * reconciles revocations, pauses and resumes the worker. Everything it knows is in the database, never in memory.
 */
export function createSyncService(deps: SyncServiceDeps) {
  const { db, config } = deps;
  const chains = chainConfigs(config);
  const enabled = chains.filter((c) => c.enabled);
  const options = syncOptions(config, deps.options);
  const rules = { leaseMs: options.leaseMs, alertAfterSkips: config.syncAlertAfterSkips };
  const instance = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  // Each run is a writer of its own: two runs of one chain in this process (a cron tick meeting a manual sync) must
  // meet at the lease like runs of two processes, never both pass it as "already ours".
  let runs = 0;
  const nextOwner = () => `${instance}:${++runs}`;
  // RPC requests per chain: runs of several chains overlap, so one shared counter would charge each chain's run with
  // the others' requests.
  const requests = new Map<string, number>();
  const requestsOf = (chain: ChainConfig) => () => requests.get(chain.name) ?? 0;
  const clients = new Map<string, ChainClient>();
  const clientFor = (chain: ChainConfig): ChainClient => {
    const injected = deps.clientFor?.(chain);
    if (injected) return injected;
    let c = clients.get(chain.name);
    if (!c) {
      c = createChainClient(chain, {
        onRequest: () => requests.set(chain.name, (requests.get(chain.name) ?? 0) + 1),
      });
      clients.set(chain.name, c);
    }
    return c;
  };
  /** Names given by a route (already validated) → what a run over each of those chains needs; none → every enabled chain. */
  const runsOver = (names?: readonly string[]) =>
    (names?.length ? enabled.filter((c) => names.includes(c.name)) : enabled).map((chain) => ({
      db,
      chain,
      client: clientFor(chain),
      options,
      requests: requestsOf(chain),
    }));

  async function sync(trigger: Trigger, names?: readonly string[]): Promise<SyncReport> {
    const started = performance.now();
    const startedAt = new Date().toISOString();
    const results = await Promise.all(
      runsOver(names).map((run) => createChainSync({ ...run, owner: nextOwner() }).run(trigger)),
    );
    const failures = results
      .filter((r) => r.status === "error")
      .map((r) => ({ chain: r.chain, error: r.error }));
    const now = new Date();
    const chainsJson = results.map((r) => toJson(r, writerHealth(r.writer, rules, now)));
    const problems = chainsJson.flatMap((c) => c.writer.problems.map((p) => `${c.chain}: ${p}`));
    return {
      status:
        failures.length > 0
          ? failures.length < results.length
            ? "partial_failure"
            : "failed"
          : problems.length > 0
            ? "degraded"
            : "ok",
      trigger,
      started_at: startedAt,
      duration_ms: Math.round(performance.now() - started),
      chains: chainsJson,
      failures,
      problems,
    };
  }

  /** The scheduled job: every enabled, unpaused chain, and the cron's HTTP answer (cronAnswer). */
  async function cron() {
    const report = await sync("cron");
    return { report, ...cronAnswer(report, config.syncAlertAfterSkips) };
  }

  async function status() {
    const rows = await Promise.all(
      chains.map((c) =>
        chainStatus({
          db,
          chain: c,
          client: c.enabled ? clientFor(c) : undefined,
          rules,
          ...(options.reconcilePageSize ? { reconcilePageSize: options.reconcilePageSize } : {}),
        }),
      ),
    );
    const paused = rows.filter((r) => r.enabled && r.paused).map((r) => r.chain);
    const problems = rows
      .filter((r) => r.enabled)
      .flatMap((r) => r.writer.problems.map((p) => `${r.chain}: ${p}`));
    return {
      time: new Date().toISOString(),
      /** `degraded` when an enabled chain's writer is (lib/sync/writer-health.ts); not /health's data staleness */
      status: problems.length ? ("degraded" as const) : ("ok" as const),
      problems,
      worker: workerSummary(
        enabled.map((c) => c.name),
        paused,
      ),
      chains: rows,
    };
  }

  async function reconcile(names?: readonly string[]) {
    const results = await Promise.all(
      runsOver(names).map((run) => reconcileRevocations({ ...run, trigger: "manual" })),
    );
    return {
      status: results.some((r) => r.status === "error")
        ? "error"
        : results.every((r) => r.complete)
          ? "ok"
          : "partial",
      checked: results.reduce((n, r) => n + r.checked, 0),
      changed: results.reduce((n, r) => n + r.changed, 0),
      chains: results.map((r) => ({
        chain: r.chain,
        status: r.status,
        checked: r.checked,
        changed: r.changed,
        missing: r.missing,
        complete: r.complete,
        block_number: r.blockNumber,
        duration_ms: r.durationMs,
        ...(r.reason ? { reason: r.reason } : {}),
        ...(r.error ? { error: r.error } : {}),
      })),
    };
  }

  /** Creates the missing sync_state rows of every configured chain: one statement, no reads. */
  const ensureRows = async () => {
    if (chains.length === 0) return;
    await db
      .insert(syncState)
      .values(chains.map((c) => ({ chainId: c.chainId, chain: c.name })))
      .onConflictDoNothing();
  };

  async function worker() {
    await ensureRows();
    return readWorker();
  }

  async function readWorker() {
    const rows = await db.select().from(syncState).orderBy(syncState.chain);
    const byId = new Map(rows.map((r) => [r.chainId, r]));
    const list = chains.map((c) => ({
      chain: c.name,
      enabled: c.enabled,
      paused: byId.get(c.chainId)?.paused ?? false,
      paused_at: byId.get(c.chainId)?.pausedAt?.toISOString() ?? null,
    }));
    const paused = list.filter((c) => c.enabled && c.paused).map((c) => c.chain);
    return {
      worker: workerSummary(
        enabled.map((c) => c.name),
        paused,
      ),
      chains: list,
    };
  }

  /** Pauses or resumes the background (cron) worker for some chains or all of them; persisted. */
  async function setWorker(action: "pause" | "resume", names?: readonly string[]) {
    const targets = names?.length ? chains.filter((c) => names.includes(c.name)) : chains;
    await ensureRows();
    await db
      .update(syncState)
      .set(action === "pause" ? { paused: true, pausedAt: sql`now()` } : { paused: false, pausedAt: null })
      .where(
        inArray(
          syncState.chainId,
          targets.map((c) => c.chainId),
        ),
      );
    return readWorker();
  }

  return { chains, enabled, clientFor, sync, cron, status, reconcile, worker, setWorker };
}

export type SyncService = ReturnType<typeof createSyncService>;

function workerSummary(enabled: string[], paused: string[]) {
  return {
    state: paused.length === 0 ? "running" : paused.length >= enabled.length ? "paused" : "partially_paused",
    schedule: "every minute (vercel.json crons → GET /api/cron/sync)",
    paused_chains: paused,
  };
}

const services = new WeakMap<Config, WeakMap<Db, SyncService>>();

/**
 * The service over the process's database and configuration (what the routes use): one per database and
 * configuration for the life of the process (a warm function instance), so its chain clients, their connections and
 * their request counts serve every request after the first.
 */
export async function getSyncService(): Promise<SyncService> {
  const db = await getDb();
  const config = getConfig();
  let byDb = services.get(config);
  if (!byDb) {
    byDb = new WeakMap();
    services.set(config, byDb);
  }
  let service = byDb.get(db);
  if (!service) {
    service = createSyncService({ db, config });
    byDb.set(db, service);
  }
  return service;
}

/** Chain names a sync route accepts (the enabled chains), for its 400 message. */
export const enabledChainNames = (config: Config = getConfig()): string[] =>
  chainConfigs(config)
    .filter((c) => c.enabled)
    .map((c) => c.name);
