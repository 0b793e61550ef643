import { isStatementTimeout } from "../../db/errors.js";

/**
 * A run's hard end (SyncOptions.deadlineMs after it started): the time budget only stops new work from starting,
 * and a getLogs, a Multicall3 read or a commit started just before it could otherwise run past the function's
 * maxDuration and be killed mid-write. Every RPC request of the run carries an AbortSignal that fires at the deadline
 * (lib/chains/client.ts withRpcSignal), and every commit gets the time left as its statement budget (budgetMs): a
 * run stops early — its transaction rolled back whole, its cursor where the last commit left it — rather than being
 * killed.
 */
export class DeadlineError extends Error {
  override name = "DeadlineError";
}

/** Below this, a commit is not started: it could not finish, and a statement cancelled at once only costs time. */
const LEAST_COMMIT_MS = 50;

/** The statement budget of a commit: the engine's own, or the time the run has left when that is shorter. */
export function budgetMs(w: { statementTimeoutMs: number; deadline?: number }): number {
  if (w.deadline === undefined) return w.statementTimeoutMs;
  const left = w.deadline - Date.now();
  if (left < LEAST_COMMIT_MS)
    throw new DeadlineError("the run's deadline came before this commit; nothing written");
  return Math.min(w.statementTimeoutMs, left);
}

/** The run ended at its deadline: an aborted RPC request, a commit cancelled by its shortened budget, or none begun. */
export function isDeadline(error: unknown, signal: AbortSignal): boolean {
  if (error instanceof DeadlineError) return true;
  if (!signal.aborted) return false;
  for (let e = error as { name?: string; cause?: unknown } | undefined, depth = 0; e && depth < 6; depth++) {
    if (e.name === "TimeoutError" || e.name === "AbortError" || e.name === "DeadlineError") return true;
    e = e.cause as typeof e;
  }
  return isStatementTimeout(error);
}
