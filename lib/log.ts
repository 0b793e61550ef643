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
