import { sql } from "drizzle-orm";
import { type Db, queryRows } from "../../db/client.js";

type Counts = {
  total: number;
  revoked: number;
  active: number;
  with_coordinates: number;
  last_24h: number;
  last_7d: number;
  last_30d: number;
  earliest_event: string | null;
  latest_event: string | null;
};

const AGGREGATES = sql`
  count(*)::int as total,
  count(*) filter (where revoked)::int as revoked,
  count(*) filter (where longitude is not null)::int as with_coordinates,
  count(*) filter (where event_timestamp >= now() - interval '24 hours')::int as last_24h,
  count(*) filter (where event_timestamp >= now() - interval '7 days')::int as last_7d,
  count(*) filter (where event_timestamp >= now() - interval '30 days')::int as last_30d,
  min(event_timestamp) as earliest_event,
  max(event_timestamp) as latest_event`;

const toCounts = (r: Record<string, unknown>): Counts => {
  const total = Number(r.total ?? 0);
  const revoked = Number(r.revoked ?? 0);
  const when = (x: unknown) => (x === null || x === undefined ? null : new Date(x as string).toISOString());
  return {
    total,
    revoked,
    active: total - revoked,
    with_coordinates: Number(r.with_coordinates ?? 0),
    last_24h: Number(r.last_24h ?? 0),
    last_7d: Number(r.last_7d ?? 0),
    last_30d: Number(r.last_30d ?? 0),
    earliest_event: when(r.earliest_event),
    latest_event: when(r.latest_event),
  };
};

/**
 * Statistics over every stored proof, revoked ones included (`total` counts them; `active` does not), overall and
 * per chain — the chains come from the data, not from a list. Time windows count by event time.
 */
export async function proofStats(
  db: Db,
): Promise<Counts & { by_chain: Record<string, Counts & { chain_id: number }> }> {
  const [overall, perChain] = await Promise.all([
    queryRows(db, sql`select ${AGGREGATES} from location_proofs`),
    queryRows(
      db,
      sql`select chain, min(chain_id)::int as chain_id, ${AGGREGATES} from location_proofs group by chain order by chain`,
    ),
  ]);
  const byChain: Record<string, Counts & { chain_id: number }> = {};
  for (const row of perChain) {
    byChain[String(row.chain)] = { chain_id: Number(row.chain_id), ...toCounts(row) };
  }
  return { ...toCounts(overall[0] ?? {}), by_chain: byChain };
}
