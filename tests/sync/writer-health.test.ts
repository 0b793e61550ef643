import { describe, expect, it } from "vitest";
import { cronAnswer, type SyncReport } from "../../lib/sync/service.js";
import { heartbeatOverdue, skipReason, writerHealth } from "../../lib/sync/writer-health.js";

/**
 * The rules of a writer's health, on the clock (the killed-writer scenario end to end is
 * tests/sync/killed-writer.test.ts; these are the cases it cannot reach in a bounded time: a live holder that keeps the
 * chain past a lease period, the thresholds, Retry-After).
 */
const T = Date.parse("2026-11-23T10:00:00.000Z");
const at = (ms: number) => new Date(T + ms);
const RULES = { leaseMs: 30_000, alertAfterSkips: 3 };
const lease = (heartbeatMs: number) => ({
  holder: "host:1:abcd",
  heartbeatAt: at(heartbeatMs),
  expiresAt: at(heartbeatMs + 30_000),
});

describe("writer health", () => {
  it("a holder is overdue after missing two heartbeats (two thirds of its own period)", () => {
    expect(heartbeatOverdue(lease(0), at(19_999))).toBe(false);
    expect(heartbeatOverdue(lease(0), at(20_001))).toBe(true);
    // Judged by the holder's own period, whatever the reader's configuration.
    const long = { holder: "h", heartbeatAt: at(0), expiresAt: at(300_000) };
    expect(heartbeatOverdue(long, at(60_000))).toBe(false);
  });

  it("skip reasons name the holder and the expiry, and a dead holder as such", () => {
    expect(skipReason(lease(0), at(1_000))).toBe("lease held by host:1:abcd until 2026-11-23T10:00:30.000Z");
    expect(skipReason(lease(0), at(25_000))).toBe(
      "lease held by host:1:abcd until 2026-11-23T10:00:30.000Z (no heartbeat since 2026-11-23T10:00:00.000Z: its writer stopped)",
    );
    expect(skipReason(null, at(0))).not.toMatch(/null|undefined/);
  });

  it("a live, heartbeating holder is fine; one that stopped, or a lapsed lease, is degraded", () => {
    const live = writerHealth({ lease: lease(0), skips: 1, skippedSince: at(0) }, RULES, at(5_000));
    expect(live).toEqual({
      status: "ok",
      problems: [],
      consecutive_skips: 1,
      skipped_since: at(0).toISOString(),
    });
    const stopped = writerHealth({ lease: lease(0), skips: 0, skippedSince: null }, RULES, at(21_000));
    expect(stopped.status).toBe("degraded");
    expect(stopped.problems[0]).toMatch(
      /^lease holder host:1:abcd stopped renewing its lease at 2026-11-23T10:00:00/,
    );
    const lapsed = writerHealth({ lease: lease(0), skips: 0, skippedSince: null }, RULES, at(31_000));
    expect(lapsed.problems[0]).toMatch(/lapsed at 2026-11-23T10:00:30.000Z without being released/);
  });

  it("runs skipped for longer than one lease period are degraded even while the holder heartbeats", () => {
    // A stalled-but-alive writer: it renews every 10 s, yet keeps the chain.
    const health = writerHealth({ lease: lease(40_000), skips: 2, skippedSince: at(0) }, RULES, at(45_000));
    expect(health.status).toBe("degraded");
    expect(health.problems).toEqual([
      "skipped 2 runs in a row since 2026-11-23T10:00:00.000Z (longer than the 30 s lease period): " +
        "lease held by host:1:abcd until 2026-11-23T10:01:10.000Z",
    ]);
    // ...and so are SYNC_ALERT_AFTER_SKIPS skips in a row, however short.
    const many = writerHealth({ lease: lease(0), skips: 3, skippedSince: at(0) }, RULES, at(2_000));
    expect(many.problems[0]).toMatch(/skipped 3 runs in a row .*SYNC_ALERT_AFTER_SKIPS is 3/);
  });

  it("an abandoned last run is degraded; a paused chain is not", () => {
    const abandoned = writerHealth(
      { lease: null, skips: 0, skippedSince: null, lastRun: { status: "abandoned", startedAt: at(0) } },
      RULES,
      at(1_000),
    );
    expect(abandoned.problems).toEqual([
      "the last run (started 2026-11-23T10:00:00.000Z) was abandoned: its writer stopped before finishing",
    ]);
    const paused = writerHealth(
      { lease: null, skips: 0, skippedSince: null, lastRun: { status: "skipped", startedAt: at(0) } },
      RULES,
      at(1_000),
    );
    expect(paused.status).toBe("ok");
  });
});

describe("the cron's answer", () => {
  const report = (chains: Partial<SyncReport["chains"][number]>[], failures = 0) =>
    ({
      chains,
      failures: Array.from({ length: failures }, () => ({ chain: "x", error: "e" })),
    }) as unknown as SyncReport;
  const skipped = (skips: number, expiresInMs?: number) => ({
    status: "skipped" as const,
    writer: { status: "ok" as const, problems: [], consecutive_skips: skips, skipped_since: null },
    ...(expiresInMs === undefined
      ? {}
      : { lease: { holder: "h", expires_at: at(expiresInMs).toISOString(), heartbeat_at: null } }),
  });

  it("is 503 with Retry-After (until the lease lapses, 1–60 s) from the SYNC_ALERT_AFTER_SKIPS-th skip in a row", () => {
    expect(cronAnswer(report([skipped(2, 12_000)]), 3, T)).toEqual({ status: 200 });
    expect(cronAnswer(report([skipped(3, 12_000)]), 3, T)).toEqual({
      status: 503,
      headers: { "retry-after": "12" },
    });
    expect(cronAnswer(report([skipped(3, 200)]), 3, T).headers).toEqual({ "retry-after": "1" });
    expect(cronAnswer(report([skipped(5, 3_600_000)]), 3, T).headers).toEqual({ "retry-after": "60" });
    expect(cronAnswer(report([skipped(5)]), 3, T).headers).toEqual({ "retry-after": "60" });
  });

  it("failures keep their own statuses first", () => {
    expect(cronAnswer(report([skipped(9, 1_000), { status: "error" }], 1), 3, T)).toEqual({ status: 207 });
    expect(cronAnswer(report([{ status: "error" }], 1), 3, T)).toEqual({ status: 500 });
  });
});
