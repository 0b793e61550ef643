import { sql } from "drizzle-orm";
import { getDatabase } from "../../db/client.js";
import { chainConfigs } from "../chains/registry.js";
import { LOCATION_SCHEMA } from "../chains/schema.js";
import { getConfig } from "../config.js";
import { serviceUnavailable } from "../http/errors.js";
import { absoluteUrl } from "../http/links.js";
import { getRateLimiter, rateLimitFailures } from "../http/rate-limit.js";
import { OGC_DEFAULT_LIMIT, OGC_MAX_LIMIT } from "../ogc/vocabulary.js";
import { SERVICE_NAME, VERSION } from "../version.js";
import { LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT } from "./list-params.js";

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
      ogc: link("/api/ogc"),
      ogc_items: link("/api/ogc/collections/location-proofs/items"),
      sync_status: link("/api/sync/status"),
    },
  };
}

/** GET /api/v0/config: the chains (from the registry and CHAINS) and the API's limits. */
export function serviceConfig() {
  const config = getConfig();
  return {
    version: VERSION,
    schema: LOCATION_SCHEMA,
    chains: chainConfigs(config).map((c) => ({
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
    })),
    limits: {
      page_size_default: LIST_DEFAULT_LIMIT,
      page_size_max: LIST_MAX_LIMIT,
      ogc_limit_default: OGC_DEFAULT_LIMIT,
      ogc_limit_max: OGC_MAX_LIMIT,
      rate_limit_per_minute: config.rateLimitPerMinute,
    },
  };
}

/** GET /health: 200 when the database answers within the timeout, else 503 naming the failing component. */
export async function health() {
  const started = performance.now();
  try {
    const handle = await withTimeout(getDatabase(), 3000);
    await withTimeout(handle.db.execute(sql`select 1`), 3000);
  } catch {
    throw serviceUnavailable("database unreachable", {
      status: "error",
      checks: { database: { status: "error" } },
    });
  }
  return {
    status: "ok",
    version: VERSION,
    time: new Date().toISOString(),
    checks: {
      database: { status: "ok", latency_ms: Math.round(performance.now() - started) },
      rate_limiter: rateLimiterCheck(),
    },
  };
}

/**
 * The limiter fails open (a store outage never becomes a site outage), so /health stays 200 when it does; it says
 * so here instead: `failing-open` while a failure happened within the last minute.
 */
function rateLimiterCheck() {
  const { count, lastAt } = rateLimitFailures();
  const recent = lastAt !== undefined && Date.now() - Date.parse(lastAt) < 60_000;
  return {
    status: recent ? "failing-open" : "ok",
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
