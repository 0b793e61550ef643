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

/** A comma-separated list of schema UIDs (0x + 64 hex digits), lowercased; empty when unset. */
const uidList = (name: string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.transform((s) =>
        s
          .split(",")
          .map((u) => u.trim().toLowerCase())
          .filter(Boolean),
      ),
      v.check(
        (list) => list.every((u) => /^0x[0-9a-f]{64}$/.test(u)),
        `${name} must be comma-separated schema UIDs (0x + 64 hex digits)`,
      ),
    ),
    "",
  );

const EnvSchema = v.object({
  PORT: v.optional(intFrom("PORT", 0, 65535), "3000"),
  DATA_DIR: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, "DATA_DIR must not be empty")), ".data"),
  // Checked by databaseProblem() below, not here: a bad DATABASE_URL must not take the routes that need no
  // database (/, /api/v0/config) down with it; the ones that do answer a 503 naming it.
  DATABASE_URL: optionalNonEmpty,
  DATABASE_DRIVER: v.optional(v.picklist(["pg", "neon"], "DATABASE_DRIVER must be pg or neon")),
  // Checked by databaseProblem() below too: a bad replica URL takes down the public reads, never the sync.
  DATABASE_READ_URL: optionalNonEmpty,
  PUBLIC_BASE_URL: url("PUBLIC_BASE_URL"),
  CRON_SECRET: optionalNonEmpty,
  LOG_LEVEL: v.optional(
    v.picklist(LOG_LEVELS, `LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}`),
    process.env.VITEST ? "silent" : "info",
  ),
  CHAINS: optionalNonEmpty,
  // Which location schemas are indexed (lib/sync/schemas.ts): discovered by their field names, or the known ones only;
  // UIDs allowed or denied by the operator.
  SCHEMA_MODE: v.optional(
    v.picklist(["discover", "known"], "SCHEMA_MODE must be discover or known"),
    "discover",
  ),
  SCHEMA_ALLOW: uidList("SCHEMA_ALLOW"),
  SCHEMA_DENY: uidList("SCHEMA_DENY"),
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
  SYNC_STALE_AFTER_SECONDS: v.optional(intFrom("SYNC_STALE_AFTER_SECONDS", 1, 31 * 86_400), "600"),
  SYNC_LEASE_MS: v.optional(intFrom("SYNC_LEASE_MS", 3_000, 3_600_000), "30000"),
  SYNC_ALERT_AFTER_SKIPS: v.optional(intFrom("SYNC_ALERT_AFTER_SKIPS", 1, 10_000), "3"),
  DATABASE_CONNECT_TIMEOUT_MS: v.optional(intFrom("DATABASE_CONNECT_TIMEOUT_MS", 100, 60_000), "3000"),
  DATABASE_STATEMENT_TIMEOUT_MS: v.optional(intFrom("DATABASE_STATEMENT_TIMEOUT_MS", 100, 600_000), "4000"),
  SYNC_STATEMENT_TIMEOUT_MS: v.optional(intFrom("SYNC_STATEMENT_TIMEOUT_MS", 100, 600_000), "8000"),
  // Within the functions' maxDuration (30 s in vercel.json), with room to answer.
  REQUEST_BUDGET_MS: v.optional(intFrom("REQUEST_BUDGET_MS", 500, 25_000), "10000"),
  // Off-chain publishing's settings, checked by publishSettings() (lib/offchain/settings.ts) when a publication
  // comes: a bad value refuses publications with an error naming it, never the reads.
  PUBLISH_MODE: v.optional(v.string()),
  PUBLISH_ATTESTERS: v.optional(v.string()),
  PUBLISH_PER_MINUTE_CLIENT: v.optional(v.string()),
  PUBLISH_PER_MINUTE_ATTESTER: v.optional(v.string()),
  PUBLISH_MAX_BYTES: v.optional(v.string()),
  OFFCHAIN_MAX_CLOCK_SKEW_SECONDS: v.optional(v.string()),
  REDIS_URL: optionalMatching(/^rediss?:\/\//, "REDIS_URL must start with redis://"),
  UPSTASH_REDIS_REST_URL: url("UPSTASH_REDIS_REST_URL"),
  UPSTASH_REDIS_REST_TOKEN: optionalNonEmpty,
  VERCEL: optionalNonEmpty,
  VERCEL_ENV: optionalNonEmpty,
  // The HTML pages (lib/html): an optional raster basemap under the built-in country outlines, and the footer.
  BASEMAP_TILE_URL: optionalMatching(
    /^https?:\/\/[^/{}\s]+\/\S*$/,
    "BASEMAP_TILE_URL must be an http(s) URL template such as https://tile.openstreetmap.org/{z}/{x}/{y}.png",
  ),
  BASEMAP_ATTRIBUTION: optionalMatching(
    /^[^<>]{1,300}$/,
    "BASEMAP_ATTRIBUTION must be 1-300 characters of plain text",
  ),
  SERVICE_CONTACT_URL: optionalMatching(
    /^(https?:\/\/[^\s]+|mailto:[^\s]+)$/,
    "SERVICE_CONTACT_URL must be an http(s):// or mailto: URL",
  ),
  DATA_LICENSE: optionalMatching(
    /^[^<>]{1,200}$/,
    "DATA_LICENSE must be 1-200 characters of plain text (a name or a URL)",
  ),
});

export type Config = {
  port: number;
  dataDir: string;
  /** A usable DATABASE_URL, or undefined (unset, or malformed: see databaseProblem). */
  databaseUrl: string | undefined;
  /** Why DATABASE_URL cannot be used (malformed; missing on Vercel). Read it through requireDatabaseUrl(). */
  databaseProblem: string | undefined;
  /**
   * How long a request may wait on the database (see db/client.ts): for a connection (from the pool or new), and
   * for one statement (server-side statement_timeout; the client gives up DEADLINE_MARGIN_MS later and discards
   * the connection). The sync engine's transactions get their own, longer statement budget.
   */
  database: { connectTimeoutMs: number; statementTimeoutMs: number; syncStatementTimeoutMs: number };
  /**
   * How long one public request may take, end to end (lib/budget/request-budget.ts): its statements get what is left
   * of it, and one that would start with almost nothing left is not sent (503 RequestBudgetExceeded).
   */
  requestBudgetMs: number;
  /**
   * Read replicas (DATABASE_READ_URL, one URL or several separated by commas): the public reads go there, the sync,
   * the cron and every write to DATABASE_URL (db/read-scope.ts). Empty: everything reads the primary.
   */
  databaseReadUrls: string[];
  /** Why DATABASE_READ_URL cannot be used (a malformed URL in it). */
  databaseReadProblem: string | undefined;
  /** Forces the driver for DATABASE_URL (default: Neon's serverless driver for *.neon.tech hosts, else node-postgres). */
  databaseDriver: "pg" | "neon" | undefined;
  publicBaseUrl: string | undefined;
  cronSecret: string | undefined;
  logLevel: LogLevel;
  /** Chain names selected by CHAINS; validated against the registry by lib/chains. */
  chains: string[] | undefined;
  /**
   * Which schemas are indexed (lib/sync/schemas.ts): SCHEMA_MODE (`discover`: every location schema found by its
   * field names; `known`: the v0.1 schema and the allowed ones), SCHEMA_ALLOW and SCHEMA_DENY (UIDs, lowercase).
   */
  schemas: { mode: "discover" | "known"; allow: ReadonlySet<string>; deny: ReadonlySet<string> };
  rateLimitPerMinute: number;
  /** Key prefix of the rate limiter's counters in Redis (lets several deployments or test runs share one Redis). */
  rateLimitPrefix: string;
  devnetPort: number;
  /** Wall-clock budget of one sync invocation per chain (a Vercel function has 30 s; leave room to respond). */
  syncTimeBudgetMs: number;
  /** Most blocks one sync invocation scans per chain, so a long backfill proceeds in bounded steps. */
  syncBlockBudget: number;
  /**
   * /health is `degraded` when an enabled chain's last successful sync ended longer ago than this (or never
   * happened): lib/v0/freshness.ts. The cron runs every minute; 10 minutes by default.
   */
  syncStaleAfterSeconds: number;
  /**
   * A chain's lease period: its holder renews it every third of this while a run is alive (lib/sync/chain-sync.ts),
   * so a killed writer's lease lapses within one period and the next run takes the chain over.
   */
  syncLeaseMs: number;
  /** The cron answers 503 once a chain's runs were skipped this many times in a row (lib/sync/writer-health.ts). */
  syncAlertAfterSkips: number;
  redisUrl: string | undefined;
  upstash: { url: string; token: string } | undefined;
  /**
   * True when running on Vercel (VERCEL=1): production rules apply (no embedded database, fail closed). Not under
   * `vercel dev` (VERCEL_ENV=development), which is local development and runs `npm run dev`.
   */
  onVercel: boolean;
  /**
   * A raster tile layer drawn under the features of the HTML maps, when BASEMAP_TILE_URL is set (with its
   * attribution); `origin` is the one origin the pages' Content-Security-Policy then lets images come from.
   */
  basemapTiles: { url: string; origin: string; attribution: string } | undefined;
  /** The footer of the HTML pages: where to reach the operator (SERVICE_CONTACT_URL) and the data licence. */
  contactUrl: string | undefined;
  dataLicense: string | undefined;
  /** The raw environment, for per-chain variables (RPC_URL_<CHAIN>, START_BLOCK_<CHAIN>, ...). */
  env: Record<string, string | undefined>;
};

/** A setting is missing or invalid. `settings` names the variables, so a response can say which (never values). */
export class ConfigError extends Error {
  override name = "ConfigError";
  constructor(
    message: string,
    readonly settings: readonly string[] = [],
  ) {
    super(message);
  }
}

/** Why DATABASE_URL cannot be used, if it cannot: the message names the variable, never its value. */
function databaseProblem(
  url: string | undefined,
  onVercel: boolean,
  name = "DATABASE_URL",
): string | undefined {
  if (url === undefined) {
    return onVercel
      ? `${name} is required on Vercel (the embedded PGlite database is for local runs only)`
      : undefined;
  }
  const invalid = `${name} must be a postgres:// or postgresql:// URL with a host`;
  if (!/^postgres(ql)?:\/\//.test(url)) return invalid;
  try {
    return new URL(url).hostname ? undefined : invalid;
  } catch {
    return invalid;
  }
}

/**
 * DATABASE_URL for whoever is about to open the database: the URL, undefined when it is unset (local runs: the
 * embedded database), or a ConfigError naming DATABASE_URL when it is malformed or missing on Vercel.
 */
export function requireDatabaseUrl(config: Config): string | undefined {
  if (config.databaseProblem) throw new ConfigError(config.databaseProblem, ["DATABASE_URL"]);
  return config.databaseUrl;
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const result = v.safeParse(EnvSchema, env);
  if (!result.success) {
    const keys = result.issues.map(
      (issue) => issue.path?.map((p) => String(p.key)).join(".") ?? "environment",
    );
    const lines = result.issues.map((issue, i) => `${keys[i]}: ${issue.message}`);
    throw new ConfigError(`Invalid environment:\n  ${lines.join("\n  ")}`, [...new Set(keys)]);
  }
  const e = result.output;
  const onVercel = e.VERCEL === "1" && e.VERCEL_ENV !== "development";
  if ((e.UPSTASH_REDIS_REST_URL === undefined) !== (e.UPSTASH_REDIS_REST_TOKEN === undefined)) {
    throw new ConfigError("UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN must be set together", [
      "UPSTASH_REDIS_REST_URL",
      "UPSTASH_REDIS_REST_TOKEN",
    ]);
  }
  const problem = databaseProblem(e.DATABASE_URL, onVercel);
  const readUrls = (e.DATABASE_READ_URL ?? "")
    .split(",")
    .map((u) => u.trim())
    .filter(Boolean);
  const readProblem =
    readUrls.map((u) => databaseProblem(u, false, "DATABASE_READ_URL")).find(Boolean) ??
    (readUrls.length && e.DATABASE_URL === undefined
      ? "DATABASE_READ_URL needs DATABASE_URL (the primary, for the sync and every write)"
      : undefined);
  const basemapTiles = tileLayer(e.BASEMAP_TILE_URL, e.BASEMAP_ATTRIBUTION);
  return {
    port: e.PORT,
    dataDir: e.DATA_DIR,
    databaseUrl: problem ? undefined : e.DATABASE_URL,
    databaseProblem: problem,
    database: {
      connectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
      syncStatementTimeoutMs: e.SYNC_STATEMENT_TIMEOUT_MS,
    },
    databaseReadUrls: readProblem ? [] : readUrls,
    databaseReadProblem: readProblem,
    requestBudgetMs: e.REQUEST_BUDGET_MS,
    databaseDriver: e.DATABASE_DRIVER,
    publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/+$/, ""),
    cronSecret: e.CRON_SECRET,
    logLevel: e.LOG_LEVEL,
    chains: e.CHAINS?.split(",")
      .map((c) => c.trim().toLowerCase())
      .filter(Boolean),
    schemas: { mode: e.SCHEMA_MODE, allow: new Set(e.SCHEMA_ALLOW), deny: new Set(e.SCHEMA_DENY) },
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    rateLimitPrefix: e.RATE_LIMIT_PREFIX,
    devnetPort: e.DEVNET_PORT,
    syncTimeBudgetMs: e.SYNC_TIME_BUDGET_MS,
    syncBlockBudget: e.SYNC_BLOCK_BUDGET,
    syncStaleAfterSeconds: e.SYNC_STALE_AFTER_SECONDS,
    syncLeaseMs: e.SYNC_LEASE_MS,
    syncAlertAfterSkips: e.SYNC_ALERT_AFTER_SKIPS,
    redisUrl: e.REDIS_URL,
    upstash:
      e.UPSTASH_REDIS_REST_URL && e.UPSTASH_REDIS_REST_TOKEN
        ? { url: e.UPSTASH_REDIS_REST_URL, token: e.UPSTASH_REDIS_REST_TOKEN }
        : undefined,
    basemapTiles,
    contactUrl: e.SERVICE_CONTACT_URL,
    dataLicense: e.DATA_LICENSE,
    onVercel,
    env,
  };
}

/**
 * BASEMAP_TILE_URL and BASEMAP_ATTRIBUTION, checked together: a Leaflet URL template with {z}, {x} and {y} on one
 * fixed host (no {s} subdomains: the pages' CSP allows images from that one origin only), and the attribution the
 * tile provider's terms require.
 */
function tileLayer(url: string | undefined, attribution: string | undefined): Config["basemapTiles"] {
  if (url === undefined) {
    if (attribution !== undefined)
      throw new ConfigError("BASEMAP_ATTRIBUTION is set without BASEMAP_TILE_URL", ["BASEMAP_ATTRIBUTION"]);
    return undefined;
  }
  const settings = ["BASEMAP_TILE_URL"];
  if (!["{z}", "{x}", "{y}"].every((p) => url.includes(p)))
    throw new ConfigError("BASEMAP_TILE_URL must contain {z}, {x} and {y}", settings);
  const unknown = url.match(/\{[^}]*\}/g)?.filter((p) => !["{z}", "{x}", "{y}", "{r}"].includes(p));
  if (unknown?.length)
    throw new ConfigError(
      `BASEMAP_TILE_URL may use only {z}, {x}, {y} and {r} (found ${unknown[0]}; one host, so no {s})`,
      settings,
    );
  if (attribution === undefined)
    throw new ConfigError("BASEMAP_TILE_URL needs BASEMAP_ATTRIBUTION (tile providers require credit)", [
      "BASEMAP_ATTRIBUTION",
    ]);
  let origin: string;
  try {
    origin = new URL(url.replace(/\{[zxyr]\}/g, "0")).origin;
  } catch {
    throw new ConfigError("BASEMAP_TILE_URL must be an http(s) URL template", settings);
  }
  return { url, origin, attribution };
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
