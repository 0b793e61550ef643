/**
 * What a database failure means for a caller: an outage (the database is unreachable, stalled, overloaded or
 * restarting — retry later: 503) or anything else (a bug: 500). One classification for every driver, used by
 * lib/http/respond.ts (the one place errors become responses) and by the logs.
 */

/** Our own client-side deadline fired (db/client.ts): the connection was discarded, the statement abandoned. */
export class DatabaseTimeoutError extends Error {
  override name = "DatabaseTimeoutError";
  readonly code = "LPQS_DEADLINE";
}

/**
 * SQLSTATE classes and codes of a database that cannot serve now (PostgreSQL appendix A): 08 connection exception,
 * 53 insufficient resources (too many connections, out of memory or disk), 57P01-57P05 shutdown / cannot connect
 * now / idle-session timeout, 57014 statement cancelled (our statement_timeout), 55P03 lock not available,
 * 40001/40P01 serialization failure and deadlock (transient by definition).
 */
const OUTAGE_SQLSTATE = /^(08[0-9A-Z]{3}|53[0-9A-Z]{3}|57P0[1-5]|57014|55P03|40001|40P01)$/;

/** Socket errors of a database that is down, unreachable or gone. */
const OUTAGE_ERRNO = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
]);

/**
 * Driver messages without a code that mean the same (node-postgres and pg-pool, which Neon's Pool bundles, and
 * PGlite): a connection that timed out, ended or broke, and a pool or database that was closed.
 */
const OUTAGE_MESSAGE =
  /timeout exceeded when trying to connect|Query read timeout|Connection terminated|connection error and is not queryable|Client was closed|Cannot use a pool after calling end|PGlite is closed|WebSocket/i;

type Described = {
  name?: string;
  message?: string;
  code?: unknown;
  cause?: unknown;
  errors?: unknown;
  error?: unknown;
};

/**
 * The error, its causes (Drizzle wraps the driver's error), the members of an AggregateError and the error a
 * WebSocket ErrorEvent carries (Neon's driver fails a query so when its WebSocket cannot connect: the socket's
 * ECONNREFUSED is inside), outermost first.
 */
export function errorChain(error: unknown): Described[] {
  const chain: Described[] = [];
  const visit = (e: unknown, depth: number) => {
    if (depth > 5 || typeof e !== "object" || e === null || chain.includes(e as Described)) return;
    chain.push(e as Described);
    const d = e as Described;
    if (Array.isArray(d.errors)) for (const inner of d.errors) visit(inner, depth + 1);
    visit(d.cause, depth + 1);
    visit(d.error, depth + 1);
  };
  visit(error, 0);
  return chain;
}

/** The driver-level error of a failure: the innermost one carrying a code (SQLSTATE or errno), if any. */
export function databaseErrorOf(error: unknown): { code: string | undefined; message: string } | undefined {
  const chain = errorChain(error);
  const coded = [...chain].reverse().find((e) => typeof e.code === "string");
  if (coded) return { code: coded.code as string, message: String(coded.message ?? "") };
  return undefined;
}

/** True when the failure is the database being unavailable (retry later), not a bug in the request or the code. */
export function isDatabaseOutage(error: unknown): boolean {
  return errorChain(error).some((e) => {
    if (e instanceof DatabaseTimeoutError) return true;
    const code = typeof e.code === "string" ? e.code : undefined;
    if (code && (OUTAGE_ERRNO.has(code) || OUTAGE_SQLSTATE.test(code))) return true;
    return OUTAGE_MESSAGE.test(String(e.message ?? ""));
  });
}
