/**
 * What a database failure means for a caller: an outage (the database is unreachable, stalled, overloaded or
 * restarting — retry later: 503), a statement the database stopped at its time budget (it is up; the same request
 * would take as long again: lib/http/respond.ts says what to do instead), or anything else (a bug: 500). One
 * classification for every driver, used by lib/http/respond.ts (the one place errors become responses) and by the
 * logs.
 */

/** Our own client-side deadline fired (db/client.ts): the connection was discarded, the statement abandoned. */
export class DatabaseTimeoutError extends Error {
  override name = "DatabaseTimeoutError";
  readonly code = "LPQS_DEADLINE";
}

/**
 * SQLSTATE classes and codes of a database that cannot serve now (PostgreSQL appendix A): 08 connection exception,
 * 53 insufficient resources (too many connections, out of memory or disk), 57P01-57P05 shutdown / cannot connect
 * now / idle-session timeout, 57014 statement cancelled (by an administrator or a failover; one stopped at our
 * statement_timeout is not an outage: isStatementTimeout), 55P03 lock not available, 40001/40P01 serialization
 * failure and deadlock (transient by definition).
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

/**
 * True when the database stopped the statement at its statement_timeout (SQLSTATE 57014, with PostgreSQL's own
 * message for that cause; a cancel for another reason says "due to user request"). The server answered, so it is
 * up and the connection is healthy: the statement needed longer than the budget. Our own client-side deadline
 * (DatabaseTimeoutError) is not this: it fires when no answer came at all (Neon without a role-level
 * statement_timeout ends up there too), an outage.
 */
export function isStatementTimeout(error: unknown): boolean {
  return errorChain(error).some(
    (e) => e.code === "57014" && /statement timeout/i.test(String(e.message ?? "")),
  );
}

/** True when the failure is the database being unavailable (retry later), not a bug in the request or the code. */
export function isDatabaseOutage(error: unknown): boolean {
  if (isStatementTimeout(error)) return false;
  return errorChain(error).some((e) => {
    if (e instanceof DatabaseTimeoutError) return true;
    const code = typeof e.code === "string" ? e.code : undefined;
    if (code && (OUTAGE_ERRNO.has(code) || OUTAGE_SQLSTATE.test(code))) return true;
    return OUTAGE_MESSAGE.test(String(e.message ?? ""));
  });
}
