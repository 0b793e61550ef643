import { createHash } from "node:crypto";

/*
 * Named (prepared) statements for the long statements the service sends again and again. A page's statement holds
 * its JSON writer (lib/proofs/json-sql.ts): several kilobytes of SQL, which the server would otherwise receive,
 * parse and analyse on every request, for the same text with other parameters. Named, a connection parses a text
 * once and then only binds it: the text is not sent again, nor parsed.
 *
 * The plans stay what they were: the connection runs with plan_cache_mode = force_custom_plan (PREPARED_PLAN_MODE),
 * so each execution is planned for its own parameters, as an unnamed statement is. A generic plan, which PostgreSQL
 * would otherwise try after five executions, cannot see a parameter's value, and the page plans steer the planner
 * by what each part's values select (lib/proofs/query.ts, indexUse).
 *
 * Bounded per connection: a text of PREPARE_MIN_CHARS to PREPARE_MAX_CHARS is named on its second sighting only (a
 * one-off CQL2 filter never is), and at most PREPARED_PER_CONNECTION texts each; past that, new texts go unnamed. A
 * connection's statements go with it (the pool closes idle connections after 10 s). Only the node-postgres driver names statements: Neon's pooled endpoint runs
 * PgBouncer in transaction mode, which refuses the startup parameter that keeps the plans per execution.
 */

/** The statements shorter than this are sent as they are: their parsing is not worth a name. */
export const PREPARE_MIN_CHARS = 1024;
/**
 * Nor longer than this: the sync's bulk writes (thousands of rows' values, a text per batch size) would keep large
 * parse trees in the server for little.
 */
export const PREPARE_MAX_CHARS = 64 * 1024;
/** The texts one connection keeps named. */
export const PREPARED_PER_CONNECTION = 64;
/** The startup option of a connection that names statements: every execution planned for its own parameters. */
export const PREPARED_PLAN_MODE = "-c plan_cache_mode=force_custom_plan";

type Seen = { named: Set<string>; once: Set<string> };
const byConnection = new WeakMap<object, Seen>();

/** A query's config (node-postgres: a text, or an object with `text`), named when it is worth it on `connection`. */
export function namedQuery(connection: object, config: unknown): unknown {
  if (typeof config !== "object" || config === null) return config;
  const query = config as { text?: unknown; name?: unknown };
  const text = query.text;
  if (typeof text !== "string" || query.name !== undefined) return config;
  if (text.length < PREPARE_MIN_CHARS || text.length > PREPARE_MAX_CHARS) return config;
  let seen = byConnection.get(connection);
  if (!seen) {
    seen = { named: new Set(), once: new Set() };
    byConnection.set(connection, seen);
  }
  const key = createHash("sha256").update(text).digest("base64url").slice(0, 32);
  if (!seen.named.has(key)) {
    if (!seen.once.has(key) || seen.named.size >= PREPARED_PER_CONNECTION) {
      // Texts seen once: bounded too, forgotten together when full.
      if (seen.once.size >= 4 * PREPARED_PER_CONNECTION) seen.once.clear();
      seen.once.add(key);
      return config;
    }
    seen.named.add(key);
  }
  return { ...query, name: `lpqs_${key}` };
}
