import { sql } from "drizzle-orm";
import {
  type Db,
  getDatabase,
  getPrimaryDatabase,
  hasInjectedReadDatabases,
  queryRows,
} from "../../db/client.js";
import { databaseErrorOf } from "../../db/errors.js";
import { type ReplicaCheck, replicaChecks } from "../../db/replica-health.js";
import { chainConfigs } from "../chains/registry.js";
import { LOCATION_SCHEMA } from "../chains/schema.js";
import { ConfigError, getConfig } from "../config.js";
import { serviceUnavailable } from "../http/errors.js";
import { absoluteUrl } from "../http/links.js";
import { getRateLimiter, rateLimitFailures } from "../http/rate-limit.js";
import { misconfiguration } from "../http/respond.js";
import { errorFields, log } from "../log.js";
import { OGC_DEFAULT_LIMIT, OGC_MAX_LIMIT } from "../ogc/vocabulary.js";
import { SERVICE_NAME, VERSION } from "../version.js";
import { type ChainFreshness, chainFreshness } from "./freshness.js";
import { LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT } from "./list-params.js";
import { DOCS_PATH, OPENAPI_PATH } from "./paths.js";

/** GET /: what this service is and where everything lives. */
export function rootInfo(request: Request) {
  const link = (path: string) => absoluteUrl(request, path);
  return {
    name: SERVICE_NAME,
    version: VERSION,
    description:
      "Public, read-only API over EAS location-proof attestations indexed from EVM chains, with an OGC API Features interface.",
    links: {
      self: link("/"),
      health: link("/health"),
      config: link("/api/v0/config"),
      location_proofs: link("/api/v0/location-proofs"),
      location_proof: `${link("/api/v0/location-proofs")}/{uid}`,
      stats: link("/api/v0/location-proofs/stats"),
      openapi: link(OPENAPI_PATH),
      docs: link(DOCS_PATH),
      ogc: link("/api/ogc"),
      ogc_items: link("/api/ogc/collections/location-proofs/items"),
      graphql: link("/graphql"),
      sync_status: link("/api/sync/status"),
    },
  };
}

/**
 * GET /api/v0/config: the chains (from the registry and CHAINS), each enabled one with its freshness (`sync`, null
 * while the database cannot say: this route must answer without it), and the API's limits.
 */
export async function serviceConfig(request: Request) {
  const config = getConfig();
  const chains = chainConfigs(config);
  const [freshness, schemas] = await Promise.all([
    freshnessIfAvailable(chains, config.syncStaleAfterSeconds),
    schemasIfAvailable(),
  ]);
  return {
    version: VERSION,
    schema: LOCATION_SCHEMA,
    schema_discovery: {
      mode: config.schemas.mode,
      allow: [...config.schemas.allow],
      deny: [...config.schemas.deny],
    },
    chains: chains.map((c) => ({
      name: c.name,
      display_name: c.displayName,
      chain_id: c.chainId,
      eas_address: c.eas,
      schema_registry_address: c.schemaRegistry,
      schema_uid: c.schemaUid,
      schema: LOCATION_SCHEMA,
      start_block: c.startBlock,
      confirmations: c.confirmations,
      enabled: c.enabled,
      sync: c.enabled ? withoutChain(freshness?.get(c.chainId)) : null,
      schemas: c.enabled && schemas ? (schemas.get(c.chainId) ?? []) : null,
    })),
    limits: {
      page_size_default: LIST_DEFAULT_LIMIT,
      page_size_max: LIST_MAX_LIMIT,
      ogc_limit_default: OGC_DEFAULT_LIMIT,
      ogc_limit_max: OGC_MAX_LIMIT,
      rate_limit_per_minute: config.rateLimitPerMinute,
      sync_stale_after_seconds: config.syncStaleAfterSeconds,
    },
    links: {
      openapi: absoluteUrl(request, OPENAPI_PATH),
      docs: absoluteUrl(request, DOCS_PATH),
      ogc_api: absoluteUrl(request, "/api/ogc/api"),
    },
  };
}

const withoutChain = (f: ChainFreshness | undefined) => {
  if (!f) return null;
  const { chain: _chain, chain_id: _id, ...rest } = f;
  return rest;
};

/** Freshness by chain id, or undefined when the database is unavailable or not configured (logged, not thrown). */
async function freshnessIfAvailable(chains: Parameters<typeof chainFreshness>[1], staleAfter: number) {
  try {
    const handle = await withTimeout(getDatabase(), 3000);
    const list = await withTimeout(chainFreshness(handle.db, chains, staleAfter), 3000);
    return new Map(list.map((f) => [f.chain_id, f]));
  } catch (error) {
    if (!(error instanceof ConfigError)) {
      log("warn", "config: sync freshness unavailable", {
        db: databaseErrorOf(error),
        error: errorFields(error),
      });
    }
    return undefined;
  }
}

type IndexedSchema = {
  uid: string;
  schema: string;
  protocol_version: string | null;
  first_block: number | null;
  state: "indexed" | "backfilling";
  backfilled_to_block: number | null;
};

/**
 * The schemas each chain indexes (lib/sync/schemas.ts), by chain id: in its stream (`indexed`) or being backfilled
 * alone (`backfilling`, up to `backfilled_to_block`); `first_block` is the block of its Registered event (null when it
 * is known by UID and discovery has not passed its registration). Undefined while the database cannot say.
 */
async function schemasIfAvailable(): Promise<Map<number, IndexedSchema[]> | undefined> {
  try {
    const handle = await withTimeout(getDatabase(), 3000);
    const rows = await withTimeout(
      queryRows<{
        chain_id: number;
        uid: string;
        schema: string;
        protocol_version: string | null;
        registered_block: string | number | null;
        state: string;
        backfill_cursor: string | number | null;
      }>(
        handle.db,
        sql`select chain_id, uid, schema, protocol_version, registered_block, state, backfill_cursor
              from chain_schemas where state <> 'off'
             order by chain_id, registered_block nulls first, uid`,
      ),
      3000,
    );
    const byChain = new Map<number, IndexedSchema[]>();
    for (const r of rows) {
      const list = byChain.get(Number(r.chain_id)) ?? [];
      list.push({
        uid: r.uid,
        schema: r.schema,
        protocol_version: r.protocol_version,
        first_block: r.registered_block === null ? null : Number(r.registered_block),
        state: r.state === "live" ? "indexed" : "backfilling",
        backfilled_to_block:
          r.state === "backfill" && r.backfill_cursor !== null ? Number(r.backfill_cursor) : null,
      });
      byChain.set(Number(r.chain_id), list);
    }
    return byChain;
  } catch (error) {
    if (!(error instanceof ConfigError)) {
      log("warn", "config: schemas unavailable", { db: databaseErrorOf(error), error: errorFields(error) });
    }
    return undefined;
  }
}

type Check = { status: "ok" | "error" } & Record<string, unknown>;

/**
 * GET /health: 200 `ok`; 200 `degraded` when the service answers but an enabled chain's data is stale (no successful
 * sync within SYNC_STALE_AFTER_SECONDS, or none yet); 503 only when it cannot answer (the database is unreachable
 * or not configured, named in the body; the cause goes to the log). Each check is a small function returning
 * `{ status, ... }`.
 */
export async function health() {
  const database = await databaseCheck();
  const rateLimiter = rateLimiterCheck();
  if (database.check.status !== "ok" || !database.db) {
    throw serviceUnavailable(database.problem ?? "database unreachable", {
      status: "error",
      checks: { database: database.check, rate_limiter: rateLimiter },
    });
  }
  const [sync, replicas] = await Promise.all([syncCheck(database.db), replicasCheck()]);
  const replicasOk = !replicas || replicas.every((r) => r.status === "ok");
  return {
    status: sync.status === "ok" && replicasOk ? "ok" : "degraded",
    version: VERSION,
    time: new Date().toISOString(),
    checks: { database: database.check, rate_limiter: rateLimiter, sync, ...(replicas ? { replicas } : {}) },
  };
}

/**
 * Per enabled chain, how fresh the indexed data is (lib/v0/freshness.ts); `degraded` names the chains behind. A
 * CHAINS setting that names an unknown chain is a misconfiguration (503 naming it, as on every route).
 */
async function syncCheck(db: Db) {
  const config = getConfig();
  const staleAfter = config.syncStaleAfterSeconds;
  const chains = chainConfigs(config);
  let freshness: ChainFreshness[];
  try {
    freshness = await withTimeout(chainFreshness(db, chains, staleAfter), 3000);
  } catch (error) {
    log("warn", "health: sync state unreadable", { db: databaseErrorOf(error), error: errorFields(error) });
    return {
      status: "unknown" as const,
      stale_after_seconds: staleAfter,
      chains: [],
      problems: ["the sync state could not be read"],
    };
  }
  const problems = freshness
    .filter((f) => f.status !== "ok")
    .map((f) =>
      f.status === "never_synced"
        ? `${f.chain} has never completed a sync`
        : `${f.chain} has not synced since ${f.last_synced_at} (${f.seconds_since_sync} s > ${staleAfter} s)`,
    );
  return {
    status: problems.length ? ("degraded" as const) : ("ok" as const),
    stale_after_seconds: staleAfter,
    chains: freshness,
    ...(problems.length ? { problems } : {}),
  };
}

/**
 * The read replicas (DATABASE_READ_URL), when there are any: each one's replay lag behind the primary, in seconds
 * (db/replica-health.ts). One that does not answer makes /health `degraded`: the public reads it serves fail.
 */
async function replicasCheck(): Promise<ReplicaCheck[] | undefined> {
  const config = getConfig();
  if (!config.databaseReadUrls.length && !config.databaseReadProblem && !hasInjectedReadDatabases())
    return undefined;
  return replicaChecks(3000);
}

/** The primary answers `select 1` within 3 s; a missing or malformed DATABASE_URL is named as such. */
async function databaseCheck(): Promise<{ check: Check; problem?: string; db?: Db }> {
  const started = performance.now();
  try {
    const handle = await withTimeout(getPrimaryDatabase(), 3000);
    await withTimeout(handle.db.execute(sql`select 1`), 3000);
    return { check: { status: "ok", latency_ms: Math.round(performance.now() - started) }, db: handle.db };
  } catch (error) {
    if (error instanceof ConfigError) {
      const { message, settings } = misconfiguration(error);
      return { check: { status: "error", reason: "not_configured", settings }, problem: message };
    }
    log("warn", "health: database unreachable", { db: databaseErrorOf(error), error: errorFields(error) });
    return { check: { status: "error" } };
  }
}

/**
 * The limiter fails open (a store outage never becomes a site outage), so /health stays 200 when it does; it says
 * so here instead: `failing-open` while a failure happened within the last minute and the store has not answered
 * since (a store that is back is `ok` at its first answer).
 */
function rateLimiterCheck() {
  const { count, lastAt, recovered } = rateLimitFailures();
  const recent = lastAt !== undefined && Date.now() - Date.parse(lastAt) < 60_000;
  return {
    status: recent && !recovered ? "failing-open" : "ok",
    // The failure's text stays in the logs: it can name internal hosts.
    backend: getConfig().rateLimitPerMinute === 0 ? "off" : getRateLimiter().backend,
    failures: count,
    last_failure_at: lastAt ?? null,
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
