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

type ChainRow = {
  chain: string;
  chain_id: number | null;
  total: string | number;
  revoked: string | number;
  with_coordinates: string | number;
  last_24h: string | number | null;
  last_7d: string | number | null;
  last_30d: string | number | null;
  earliest: Date | string | null;
  latest: Date | string | null;
};

/**
 * Per chain, without reading every proof: totals from proof_counts (kept exact by triggers), the time windows from
 * the proofs of the last 30 days only (an index range on event_timestamp), and each chain's earliest and latest
 * event from the ends of the (chain, event_timestamp) index.
 */
const PER_CHAIN = sql`
  with totals as (
    select chain, sum(n) as total, sum(n) filter (where revoked) as revoked,
      sum(n) filter (where has_point) as with_coordinates
    from proof_counts group by chain having sum(n) > 0
  ),
  recent as (
    select chain,
      count(*) filter (where event_timestamp >= now() - interval '24 hours') as last_24h,
      count(*) filter (where event_timestamp >= now() - interval '7 days') as last_7d,
      count(*) as last_30d
    from location_proofs where event_timestamp >= now() - interval '30 days' group by chain
  )
  select t.chain, t.total, t.revoked, t.with_coordinates, r.last_24h, r.last_7d, r.last_30d,
    (select p.chain_id from location_proofs p where p.chain = t.chain limit 1) as chain_id,
    (select p.event_timestamp from location_proofs p where p.chain = t.chain and p.event_timestamp is not null
      order by p.event_timestamp desc nulls last limit 1) as latest,
    (select p.event_timestamp from location_proofs p where p.chain = t.chain and p.event_timestamp is not null
      order by p.event_timestamp asc nulls first limit 1) as earliest
  from totals t left join recent r on r.chain = t.chain
  order by t.chain`;

const iso = (x: Date | string | null): string | null => (x === null ? null : new Date(x).toISOString());

function counts(r: ChainRow): Counts {
  const total = Number(r.total);
  const revoked = Number(r.revoked ?? 0);
  return {
    total,
    revoked,
    active: total - revoked,
    with_coordinates: Number(r.with_coordinates ?? 0),
    last_24h: Number(r.last_24h ?? 0),
    last_7d: Number(r.last_7d ?? 0),
    last_30d: Number(r.last_30d ?? 0),
    earliest_event: iso(r.earliest),
    latest_event: iso(r.latest),
  };
}

/**
 * Statistics over every stored proof, revoked ones included (`total` counts them; `active` does not), overall and
 * per chain — the chains come from the data, not from a list. Time windows count by event time.
 */
export async function proofStats(
  db: Db,
): Promise<Counts & { by_chain: Record<string, Counts & { chain_id: number }> }> {
  const rows = await queryRows<ChainRow>(db, PER_CHAIN);
  const byChain: Record<string, Counts & { chain_id: number }> = {};
  const overall: Counts = {
    total: 0,
    revoked: 0,
    active: 0,
    with_coordinates: 0,
    last_24h: 0,
    last_7d: 0,
    last_30d: 0,
    earliest_event: null,
    latest_event: null,
  };
  for (const row of rows) {
    const c = counts(row);
    byChain[row.chain] = { chain_id: Number(row.chain_id), ...c };
    for (const key of [
      "total",
      "revoked",
      "active",
      "with_coordinates",
      "last_24h",
      "last_7d",
      "last_30d",
    ] as const) {
      overall[key] += c[key];
    }
    // ISO 8601 UTC strings of one format compare like the instants they name.
    if (c.earliest_event && (!overall.earliest_event || c.earliest_event < overall.earliest_event)) {
      overall.earliest_event = c.earliest_event;
    }
    if (c.latest_event && (!overall.latest_event || c.latest_event > overall.latest_event)) {
      overall.latest_event = c.latest_event;
    }
  }
  return { ...overall, by_chain: byChain };
}
