import { AsyncLocalStorage } from "node:async_hooks";
import { ApiError } from "../http/errors.js";

/**
 * The time one public request may take, end to end, and what its statements may still spend of it.
 *
 * A statement budget alone (DATABASE_STATEMENT_TIMEOUT_MS) lets a request run statement after statement until the
 * platform kills the function (Vercel: maxDuration), which answers the client with the platform's own 504 and leaves
 * the work done for nothing. Here a request carries a deadline (REQUEST_BUDGET_MS from its arrival, well within
 * maxDuration), every statement it sends gets the time the request has left as its deadline (db/client.ts), and a
 * statement that would start with less than MIN_STATEMENT_MS left is never sent: the request answers 503
 * `RequestBudgetExceeded` with Retry-After instead (requestBudgetExceeded).
 *
 * Why 503 and not a 4xx: the request is valid, and what it costs depends on the load and the data (a queue for the
 * pool, a cold cache, a busy database); the same request usually answers on a quieter instance, so the client is told
 * when to retry. What a request's size alone makes too costly is refused before any work as a 400 naming the limit
 * (GraphQL's cost and aliases, `limit`, the bounded rings of the nearest-first order).
 */

/** The least time worth starting a statement with: anything less would fail at its deadline after loading the database. */
export const MIN_STATEMENT_MS = 25;
/** What a client is told to wait before the same request again. */
export const BUDGET_RETRY_AFTER_SECONDS = 2;

type Budget = { deadline: number; ms: number; statements: number };
const current = new AsyncLocalStorage<Budget>();

/** Runs `work` (one request) with a budget of `ms` from `started` (performance.now(); default now). */
export function withRequestBudget<T>(
  ms: number,
  work: () => Promise<T>,
  started = performance.now(),
): Promise<T> {
  return current.run({ deadline: started + ms, ms, statements: 0 }, work);
}

/** The milliseconds the current request has left, or undefined outside a request with a budget. */
export function timeLeft(): number | undefined {
  const budget = current.getStore();
  return budget ? budget.deadline - performance.now() : undefined;
}

/** Whether the current request has spent its budget (false outside one). */
export const budgetSpent = (): boolean => (timeLeft() ?? 1) <= 0;

/** The statements the current request has sent so far (undefined outside one): the log line carries it. */
export const statementsSent = (): number | undefined => current.getStore()?.statements;

/** Transaction control must always run (a rollback skipped would leave the connection inside a transaction). */
const CONTROL = /^\s*(begin|commit|rollback|set|savepoint|release|start)\b/i;

/**
 * Called as each statement is sent (drizzle's logger hook, in the caller's async context): counts it, and refuses
 * it when the request has less than MIN_STATEMENT_MS left, before anything reaches the database.
 */
export function beforeStatement(text: string): void {
  const budget = current.getStore();
  if (!budget || CONTROL.test(text)) return;
  budget.statements++;
  if (budget.deadline - performance.now() < MIN_STATEMENT_MS) throw requestBudgetExceeded(budget.ms);
}

/** The answer of a request whose budget ran out: 503 with Retry-After (see the module's comment for why). */
export function requestBudgetExceeded(ms = current.getStore()?.ms): ApiError {
  return new ApiError(
    503,
    "RequestBudgetExceeded",
    `The request did not finish within this service's time budget for one request${ms ? ` (${ms} ms)` : ""}; what was left of it was not started. Retry shortly; if it fails again, narrow the request (a smaller limit, a narrower filter, a cursor instead of a deep offset).`,
    { headers: { "retry-after": String(BUDGET_RETRY_AFTER_SECONDS) } },
  );
}
