import { getConfig, type LogLevel } from "./config.js";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** Structured logs: one JSON line per event, e.g. one per request and one per sync run. */
export function log(
  level: Exclude<LogLevel, "silent">,
  msg: string,
  fields: Record<string, unknown> = {},
): void {
  let threshold: LogLevel = "info";
  try {
    threshold = getConfig().logLevel;
  } catch {
    // A broken configuration must still be loggable.
  }
  if (ORDER[level] < ORDER[threshold]) return;
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }, (_k, value) =>
    typeof value === "bigint" ? value.toString() : value,
  );
  if (level === "error" || level === "warn") process.stderr.write(`${line}\n`);
  else process.stdout.write(`${line}\n`);
}

const logged = new Set<string>();

/** Logs an event once per process (per instance, on Vercel): e.g. a missing setting, not once per request. */
export function logOnce(
  key: string,
  level: Exclude<LogLevel, "silent">,
  msg: string,
  fields: Record<string, unknown> = {},
): void {
  if (logged.has(key)) return;
  logged.add(key);
  log(level, msg, fields);
}

/** PostgreSQL's fields of a server error (node-postgres and Neon name them the same); a socket error's errno. */
const DRIVER_FIELDS = [
  "code",
  "severity",
  "detail",
  "hint",
  "schema",
  "table",
  "column",
  "constraint",
  "routine",
];

/**
 * An error as log fields: name, message, the driver's code and details, the stack, and its cause — Drizzle wraps
 * the driver's error in one whose message is the failed SQL, so without the cause the log would lose PostgreSQL's
 * own message and SQLSTATE. For the logs only: never put this in a response.
 */
export function errorFields(error: unknown, depth = 0): Record<string, unknown> | string {
  if (!(error instanceof Error)) return String(error);
  const e = error as Error & Record<string, unknown>;
  const fields: Record<string, unknown> = { name: e.name, message: e.message.slice(0, 2000) };
  for (const key of DRIVER_FIELDS) if (e[key] !== undefined && e[key] !== "") fields[key] = e[key];
  if (depth === 0 && e.stack) fields.stack = e.stack;
  if (e.cause !== undefined && depth < 4) fields.cause = errorFields(e.cause, depth + 1);
  return fields;
}
