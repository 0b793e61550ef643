import { type SQL, sql } from "drizzle-orm";
import { type Db, queryRows } from "../../db/client.js";
import { type ProofFilter, whereClause } from "./filter.js";
import { readSnapshot, rememberedPerDb } from "./remembered.js";

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

/** Per schema and per protocol version, from proof_schema_counts (kept exact by triggers): a few rows to add. */
const PER_SOURCE = sql`
  select schema_uid, protocol_version, sum(n) as total, sum(n) filter (where revoked) as revoked,
    sum(n) filter (where has_point) as with_coordinates
  from proof_schema_counts group by grouping sets ((schema_uid), (protocol_version)) having sum(n) > 0`;

/** The time windows of the statistics: the proofs whose event time is at most this long ago (or in the future). */
const WINDOWS = ["24 hours", "7 days", "30 days"] as const;

/**
 * The instant the statistics stop holding although no proof changed: the first proof of a window leaves it when its
 * event time is the window's length ago, and nothing enters a window as time passes (a window has no end, so the
 * proofs of the future are in it already). The earliest such instant, as text; null when every window is empty.
 */
const UNTIL = sql.raw(
  `least(${WINDOWS.map(
    (w) =>
      `(select min(event_timestamp) from location_proofs where event_timestamp >= now() - interval '${w}') + interval '${w}'`,
  ).join(", ")})::text`,
);

/** The same instant over the proofs a filter matched (a grouped statement over them, one value for all its rows). */
const FILTERED_UNTIL = sql.raw(
  `(min(least(${WINDOWS.map(
    (w) => `min(event_timestamp) filter (where event_timestamp >= now() - interval '${w}') + interval '${w}'`,
  ).join(", ")})) over ())::text`,
);

/** The instant a window of the last `interval` starts at, and its first UTC midnight after that instant. */
const windowStart = (interval: string) => sql.raw(`(now() - interval '${interval}')`);
const firstMidnight = (interval: string) =>
  sql.raw(`(date_trunc('day', (now() - interval '${interval}') at time zone 'UTC') + interval '1 day')`);

/**
 * The proofs of a window of the last `interval`, per chain, without reading the window's proofs: the whole UTC days
 * from its first midnight on (future days included, as the window has no end) are added up in proof_day_counts (kept
 * exact by triggers), and only the proofs of its partial first day are counted, an index range on event_timestamp.
 */
const windowCounts = (interval: string, name: string) => sql`
    select chain, count(*) as n, ${name}::text as w from location_proofs
    where event_timestamp >= ${windowStart(interval)} and event_timestamp < ${firstMidnight(interval)} at time zone 'UTC'
    group by chain
    union all
    select chain, sum(n), ${name}::text from proof_day_counts where day >= ${firstMidnight(interval)}::date group by chain`;

/**
 * Per chain, without reading every proof: totals from proof_counts (kept exact by triggers), the last 24 hours from
 * their proofs (an index range on event_timestamp), the last 7 and 30 days from the day totals and their partial
 * first days (windowCounts), and each chain's earliest and latest event from the ends of the (chain,
 * event_timestamp) index; and, beside each chain's row, the counts per schema and protocol version (PER_SOURCE).
 */
const PER_CHAIN = sql`
  with totals as (
    select chain, sum(n) as total, sum(n) filter (where revoked) as revoked,
      sum(n) filter (where has_point) as with_coordinates
    from proof_counts group by chain having sum(n) > 0
  ),
  windows as (
    select chain, count(*) as n, '24h'::text as w from location_proofs
    where event_timestamp >= ${windowStart("24 hours")} group by chain
    union all ${windowCounts("7 days", "7d")}
    union all ${windowCounts("30 days", "30d")}
  ),
  recent as (
    select chain, sum(n) filter (where w = '24h') as last_24h, sum(n) filter (where w = '7d') as last_7d,
      sum(n) filter (where w = '30d') as last_30d
    from windows group by chain
  )
  select t.chain, t.total, t.revoked, t.with_coordinates, r.last_24h, r.last_7d, r.last_30d,
    (select coalesce(json_agg(s), '[]') from (${PER_SOURCE}) s) as sources, ${UNTIL} as until,
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

/** The counts of a schema, or of a protocol version ("none": records of a schema that is not the protocol's). */
type SourceCounts = { total: number; revoked: number; active: number; with_coordinates: number };

type SourceRow = {
  schema_uid: string | null;
  protocol_version: string | null;
  total: string | number;
  revoked: string | number | null;
  with_coordinates: string | number | null;
};

/**
 * The same figures for the proofs a filter matches (schema, protocol version, normalised location type), counted from
 * the proofs themselves: per chain with its time windows and event-time range, per schema and per protocol version,
 * in one statement (grouping sets); its cost grows with the proofs matched, through the filters' indexes.
 */
const filtered = (where: SQL | undefined) => sql`
  select chain, schema_uid, coalesce(protocol_version, '') as protocol_version,
    grouping(chain) = 0 as by_chain, grouping(schema_uid) = 0 as by_schema,
    min(chain_id) as chain_id, count(*) as total, count(*) filter (where revoked) as revoked,
    count(*) filter (where longitude is not null) as with_coordinates,
    count(*) filter (where event_timestamp >= now() - interval '24 hours') as last_24h,
    count(*) filter (where event_timestamp >= now() - interval '7 days') as last_7d,
    count(*) filter (where event_timestamp >= now() - interval '30 days') as last_30d,
    min(event_timestamp) as earliest, max(event_timestamp) as latest, ${FILTERED_UNTIL} as until
  from location_proofs ${where ? sql`where ${where}` : sql``}
  group by grouping sets ((chain), (schema_uid), (coalesce(protocol_version, '')))`;

const sourceCounts = (r: Pick<SourceRow, "total" | "revoked" | "with_coordinates">): SourceCounts => {
  const total = Number(r.total);
  const revoked = Number(r.revoked ?? 0);
  return { total, revoked, active: total - revoked, with_coordinates: Number(r.with_coordinates ?? 0) };
};

export type StatsFilter = Pick<ProofFilter, "schemas" | "protocolVersions" | "locationTypes">;

export type ProofStats = Counts & {
  by_chain: Record<string, Counts & { chain_id: number }>;
  by_schema: Record<string, SourceCounts>;
  by_protocol_version: Record<string, SourceCounts>;
};

/**
 * Statistics over every stored proof, revoked ones included (`total` counts them; `active` does not), overall, per
 * chain, per schema and per protocol version — chains, schemas and versions come from the data, not from a list.
 * Time windows count by event time. With a filter (schema, protocol version, location type) the same figures count
 * only the proofs it matches.
 */
export async function proofStats(db: Db, filter: StatsFilter = {}): Promise<ProofStats> {
  const key = JSON.stringify(filter);
  const hit = rememberedStats.get(db, key);
  const now = await readSnapshot(db, hit?.until);
  if (hit && now?.snapshot === hit.snapshot && (hit.until === undefined || now.before)) return hit.value;
  const { stats, until } = await computedStats(db, filter);
  if (now) rememberedStats.set(db, key, { snapshot: now.snapshot, value: stats, until });
  return stats;
}

/**
 * The statistics, remembered while nothing changed (lib/proofs/remembered.ts): under the snapshot read before they
 * were computed, and until the first proof of a time window leaves it (UNTIL). A request that finds them still
 * holding is one small statement. Shared by every request that finds them: never modified.
 */
const rememberedStats = rememberedPerDb<ProofStats>(100);

type Computed = { stats: ProofStats; until: string | undefined };

async function computedStats(db: Db, filter: StatsFilter): Promise<Computed> {
  const where = whereClause({ ...filter, includeRevoked: true });
  if (where) return filteredStats(db, where);
  // One statement: under load a request that needs two of the pool's connections at once waits longest.
  const rows = await queryRows<ChainRow & { sources: SourceRow[] | string; until: string | null }>(
    db,
    PER_CHAIN,
  );
  const first = rows[0]?.sources ?? [];
  const sources: SourceRow[] = typeof first === "string" ? JSON.parse(first) : first;
  const bySchema: Record<string, SourceCounts> = {};
  const byVersion: Record<string, SourceCounts> = {};
  for (const r of sources) {
    if (r.schema_uid !== null) bySchema[r.schema_uid] = sourceCounts(r);
    else byVersion[r.protocol_version || "none"] = sourceCounts(r);
  }
  return {
    stats: { ...overallOf(rows), by_schema: bySchema, by_protocol_version: byVersion },
    until: rows[0]?.until ?? undefined,
  };
}

async function filteredStats(db: Db, where: SQL): Promise<Computed> {
  const rows = await queryRows<
    ChainRow & SourceRow & { by_chain: boolean; by_schema: boolean; until: string | null }
  >(db, filtered(where));
  const bySchema: Record<string, SourceCounts> = {};
  const byVersion: Record<string, SourceCounts> = {};
  for (const r of rows) {
    if (r.by_schema) bySchema[r.schema_uid!] = sourceCounts(r);
    else if (!r.by_chain) byVersion[r.protocol_version || "none"] = sourceCounts(r);
  }
  return {
    stats: {
      ...overallOf(rows.filter((r) => r.by_chain)),
      by_schema: bySchema,
      by_protocol_version: byVersion,
    },
    until: rows[0]?.until ?? undefined,
  };
}

function overallOf(rows: ChainRow[]): Counts & { by_chain: Record<string, Counts & { chain_id: number }> } {
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
