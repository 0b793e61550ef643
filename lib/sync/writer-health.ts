import type { SyncStateRow } from "../../db/schema.js";

/**
 * Is a chain's writer alive and getting its turns? The operator-facing `degraded` of /api/sync/status and of the
 * cron's answer. (It is not /health's `degraded`, which says the public data is stale: lib/v0/freshness.ts. A writer
 * that stays degraded long enough makes its chain's data stale too, so /health follows later.)
 *
 * A chain's writer is `degraded` when
 * - its lease holder missed two heartbeats (it renews every third of the lease period while a run is alive): the
 *   writer was killed or is stalled; the lease lapses by itself within one period and the next run takes over;
 * - its lease lapsed without being released and no run has taken the chain over yet;
 * - runs have been skipped (lease held by another writer) for longer than one lease period, or SYNC_ALERT_AFTER_SKIPS
 *   runs in a row (the cron then answers 503: lib/sync/service.ts cronAnswer);
 * - its last run was abandoned (its writer stopped before finishing).
 */
export type LeaseView = { holder: string; expiresAt: Date; heartbeatAt: Date | null };

export type WriterState = {
  lease: LeaseView | null;
  /** runs in a row that found the lease held, and since when */
  skips: number;
  skippedSince: Date | null;
  lastRun?: { status: string; startedAt: Date } | undefined;
};

export type WriterHealth = {
  status: "ok" | "degraded";
  problems: string[];
  consecutive_skips: number;
  skipped_since: string | null;
};

export const leaseView = (
  row: Pick<SyncStateRow, "leaseOwner" | "leaseExpiresAt" | "leaseHeartbeatAt">,
): LeaseView | null =>
  row.leaseOwner !== null && row.leaseExpiresAt !== null
    ? { holder: row.leaseOwner, expiresAt: row.leaseExpiresAt, heartbeatAt: row.leaseHeartbeatAt }
    : null;

export const writerState = (
  row: Pick<
    SyncStateRow,
    "leaseOwner" | "leaseExpiresAt" | "leaseHeartbeatAt" | "leaseSkips" | "skippedSince"
  >,
): WriterState => ({ lease: leaseView(row), skips: row.leaseSkips, skippedSince: row.skippedSince });

/**
 * The holder has missed two heartbeats: more than two thirds of its own lease period (expiry − last renewal, so a
 * holder configured with another period is judged by its own) passed since it last renewed.
 */
export function heartbeatOverdue(lease: LeaseView, now: Date): boolean {
  if (!lease.heartbeatAt) return false;
  const period = lease.expiresAt.getTime() - lease.heartbeatAt.getTime();
  return now.getTime() - lease.heartbeatAt.getTime() > (2 * period) / 3;
}

/** A skipped run's reason: who holds the chain, until when, and whether that holder still looks alive. */
export function skipReason(lease: LeaseView | null, now: Date): string {
  if (!lease) return "lease held by another writer (released while this run tried to take it)";
  const beat =
    lease.heartbeatAt && heartbeatOverdue(lease, now)
      ? ` (no heartbeat since ${lease.heartbeatAt.toISOString()}: its writer stopped)`
      : "";
  return `lease held by ${lease.holder} until ${lease.expiresAt.toISOString()}${beat}`;
}

/** The configured lease period and the skips in a row that make the cron answer 503. */
export type HealthRules = { leaseMs: number; alertAfterSkips: number };

export function writerHealth(s: WriterState, rules: HealthRules, now = new Date()): WriterHealth {
  const { leaseMs } = rules;
  const problems: string[] = [];
  const { lease } = s;
  if (lease && lease.expiresAt < now) {
    problems.push(
      `the lease of ${lease.holder} lapsed at ${lease.expiresAt.toISOString()} without being released (its writer ` +
        "stopped); the next run takes the chain over",
    );
  } else if (lease?.heartbeatAt && heartbeatOverdue(lease, now)) {
    problems.push(
      `lease holder ${lease.holder} stopped renewing its lease at ${lease.heartbeatAt.toISOString()} (killed or ` +
        `stalled); the lease lapses at ${lease.expiresAt.toISOString()} and the next run then takes the chain over`,
    );
  }
  const skippedFor = s.skippedSince ? now.getTime() - s.skippedSince.getTime() : 0;
  if (s.skippedSince && (skippedFor > leaseMs || s.skips >= rules.alertAfterSkips)) {
    const why =
      skippedFor > leaseMs
        ? `longer than the ${leaseMs / 1000} s lease period`
        : `SYNC_ALERT_AFTER_SKIPS is ${rules.alertAfterSkips}`;
    problems.push(
      `skipped ${s.skips} runs in a row since ${s.skippedSince.toISOString()} (${why})` +
        (lease ? `: lease held by ${lease.holder} until ${lease.expiresAt.toISOString()}` : ""),
    );
  }
  if (s.lastRun?.status === "abandoned") {
    problems.push(
      `the last run (started ${s.lastRun.startedAt.toISOString()}) was abandoned: its writer stopped before finishing`,
    );
  }
  return {
    status: problems.length ? "degraded" : "ok",
    problems,
    consecutive_skips: s.skips,
    skipped_since: s.skippedSince?.toISOString() ?? null,
  };
}
