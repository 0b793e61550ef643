import * as v from "valibot";

/**
 * Every environment variable the service reads is parsed here, once, with valibot.
 * A bad value fails loudly with the variable's name instead of surfacing later as a confusing runtime error.
 */

const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const intFrom = (name: string, min: number, max: number) =>
  v.pipe(
    v.string(),
    v.trim(),
    v.regex(/^\d+$/, `${name} must be a whole number`),
    v.transform(Number),
    v.minValue(min, `${name} must be at least ${min}`),
    v.maxValue(max, `${name} must be at most ${max}`),
  );

const optionalNonEmpty = v.optional(
  v.pipe(
    v.string(),
    v.trim(),
    v.transform((s) => (s === "" ? undefined : s)),
  ),
);

/** An optional string that, when set and not empty, must match `pattern`. */
const optionalMatching = (pattern: RegExp, message: string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.transform((s) => (s === "" ? undefined : s)),
      v.union([v.undefined(), v.pipe(v.string(), v.regex(pattern, message))]),
    ),
  );

const url = (name: string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.transform((s) => (s === "" ? undefined : s)),
      v.union([v.undefined(), v.pipe(v.string(), v.url(`${name} must be an absolute URL`))]),
    ),
  );

const EnvSchema = v.object({
  PORT: v.optional(intFrom("PORT", 0, 65535), "3000"),
  DATA_DIR: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, "DATA_DIR must not be empty")), ".data"),
  DATABASE_URL: optionalMatching(
    /^postgres(ql)?:\/\//,
    "DATABASE_URL must start with postgres:// or postgresql://",
  ),
  DATABASE_DRIVER: v.optional(v.picklist(["pg", "neon"], "DATABASE_DRIVER must be pg or neon")),
  PUBLIC_BASE_URL: url("PUBLIC_BASE_URL"),
  CRON_SECRET: optionalNonEmpty,
  LOG_LEVEL: v.optional(
    v.picklist(LOG_LEVELS, `LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}`),
    process.env.VITEST ? "silent" : "info",
  ),
  CHAINS: optionalNonEmpty,
  RATE_LIMIT_PER_MINUTE: v.optional(intFrom("RATE_LIMIT_PER_MINUTE", 0, 1_000_000), "100"),
  RATE_LIMIT_PREFIX: v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.regex(/^[A-Za-z0-9:._-]{1,64}$/, "RATE_LIMIT_PREFIX must be 1-64 characters of A-Z a-z 0-9 : . _ -"),
    ),
    "lpqs:rl",
  ),
  DEVNET_PORT: v.optional(intFrom("DEVNET_PORT", 1, 65535), "8545"),
  SYNC_TIME_BUDGET_MS: v.optional(intFrom("SYNC_TIME_BUDGET_MS", 1000, 3_600_000), "20000"),
  SYNC_BLOCK_BUDGET: v.optional(intFrom("SYNC_BLOCK_BUDGET", 1, 1_000_000_000), "5000000"),
  REDIS_URL: optionalMatching(/^rediss?:\/\//, "REDIS_URL must start with redis://"),
  UPSTASH_REDIS_REST_URL: url("UPSTASH_REDIS_REST_URL"),
  UPSTASH_REDIS_REST_TOKEN: optionalNonEmpty,
  VERCEL: optionalNonEmpty,
});

export type Config = {
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  /** Forces the driver for DATABASE_URL (default: Neon's serverless driver for *.neon.tech hosts, else node-postgres). */
  databaseDriver: "pg" | "neon" | undefined;
  publicBaseUrl: string | undefined;
  cronSecret: string | undefined;
  logLevel: LogLevel;
  /** Chain names selected by CHAINS; validated against the registry by lib/chains. */
  chains: string[] | undefined;
  rateLimitPerMinute: number;
  /** Key prefix of the rate limiter's counters in Redis (lets several deployments or test runs share one Redis). */
  rateLimitPrefix: string;
  devnetPort: number;
  /** Wall-clock budget of one sync invocation per chain (a Vercel function has 30 s; leave room to respond). */
  syncTimeBudgetMs: number;
  /** Most blocks one sync invocation scans per chain, so a long backfill proceeds in bounded steps. */
  syncBlockBudget: number;
  redisUrl: string | undefined;
  upstash: { url: string; token: string } | undefined;
  /** True when running on Vercel (VERCEL=1): production rules apply (no embedded database, fail closed). */
  onVercel: boolean;
  /** The raw environment, for per-chain variables (RPC_URL_<CHAIN>, START_BLOCK_<CHAIN>, ...). */
  env: Record<string, string | undefined>;
};

export class ConfigError extends Error {
  override name = "ConfigError";
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const result = v.safeParse(EnvSchema, env);
  if (!result.success) {
    const lines = result.issues.map((issue) => {
      const key = issue.path?.map((p) => String(p.key)).join(".") ?? "environment";
      return `${key}: ${issue.message}`;
    });
    throw new ConfigError(`Invalid environment:\n  ${lines.join("\n  ")}`);
  }
  const e = result.output;
  const onVercel = e.VERCEL === "1";
  if (onVercel && !e.DATABASE_URL) {
    throw new ConfigError(
      "DATABASE_URL is required on Vercel (the embedded PGlite database is for local runs only)",
    );
  }
  if ((e.UPSTASH_REDIS_REST_URL === undefined) !== (e.UPSTASH_REDIS_REST_TOKEN === undefined)) {
    throw new ConfigError("UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN must be set together");
  }
  return {
    port: e.PORT,
    dataDir: e.DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    databaseDriver: e.DATABASE_DRIVER,
    publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/+$/, ""),
    cronSecret: e.CRON_SECRET,
    logLevel: e.LOG_LEVEL,
    chains: e.CHAINS?.split(",")
      .map((c) => c.trim().toLowerCase())
      .filter(Boolean),
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    rateLimitPrefix: e.RATE_LIMIT_PREFIX,
    devnetPort: e.DEVNET_PORT,
    syncTimeBudgetMs: e.SYNC_TIME_BUDGET_MS,
    syncBlockBudget: e.SYNC_BLOCK_BUDGET,
    redisUrl: e.REDIS_URL,
    upstash:
      e.UPSTASH_REDIS_REST_URL && e.UPSTASH_REDIS_REST_TOKEN
        ? { url: e.UPSTASH_REDIS_REST_URL, token: e.UPSTASH_REDIS_REST_TOKEN }
        : undefined,
    onVercel,
    env,
  };
}

let cached: Config | undefined;

/** The process-wide configuration, parsed on first use. Tests and the dev server may replace it with setConfig. */
export function getConfig(): Config {
  cached ??= loadConfig();
  return cached;
}

export function setConfig(config: Config | undefined): void {
  cached = config;
}
