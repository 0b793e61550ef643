import { sql } from "drizzle-orm";
import { type Db, queryRows } from "../../db/client.js";
import type { EasEvent } from "../sync/logs.js";

/*
 * What each chain says about off-chain attestations: EAS's `RevokedOffchain(revoker, data, timestamp)` (the attester
 * revoked the uid) and `Timestamped(data, timestamp)` (someone recorded that the uid existed by then). The sync
 * engine reads them in schema discovery's eth_getLogs requests (lib/sync/logs.ts getRegisteredLogs, or the one
 * request of a run near the head, getTailLogs), which cover every block of the chain from its start, and stores them
 * with their block (offchain_chain_events, db/schema.ts) in discovery's commit (lib/sync/store/discovery.ts); a reorg's rewind deletes those of orphaned
 * blocks (lib/sync/store/rewind.ts). After either, the records of the uids concerned are worked out again from the
 * stored events (refreshRecords; a publication works out its own in its insert, lib/offchain/store.ts): a record is
 * revoked when its own attester revoked its
 * uid on the record's chain (anyone may call revokeOffchain, but only the attester's revocation counts), and
 * timestamped when its uid was timestamped there. The events are kept whether or not a record is held, since a
 * record may be published after it was revoked.
 */

export type OffchainChainEvent = {
  blockNumber: number;
  logIndex: number;
  kind: "revoked" | "timestamped";
  uid: string;
  revoker: string | null;
  time: Date;
  blockHash: string;
};

/** A RevokedOffchain or Timestamped log as stored. */
export function offchainChainEvent(e: EasEvent): OffchainChainEvent {
  return {
    blockNumber: e.blockNumber,
    logIndex: e.logIndex,
    kind: e.kind === "RevokedOffchain" ? "revoked" : "timestamped",
    uid: e.uid.toLowerCase(),
    revoker: e.revoker?.toLowerCase() ?? null,
    time: new Date(Number(e.timestamp ?? 0n) * 1000),
    blockHash: e.blockHash,
  };
}

/** Statements name at most this many uids at once (bound parameters are limited per statement). */
const CHUNK = 1000;

/**
 * Stores a batch's off-chain events (in the batch's transaction) and works out the records of their uids again.
 * Re-indexing a range stores the same events again: idempotent on the event's place.
 */
export async function storeOffchainEvents(
  db: Db,
  chainId: number,
  events: readonly OffchainChainEvent[],
): Promise<void> {
  for (let i = 0; i < events.length; i += CHUNK) {
    const values = sql.join(
      events
        .slice(i, i + CHUNK)
        .map(
          (e) =>
            sql`(${chainId}::int, ${e.blockNumber}::bigint, ${e.logIndex}::int, ${e.kind}, ${e.uid}, ${e.revoker}::text, ${e.time.toISOString()}::timestamptz, ${e.blockHash})`,
        ),
      sql`, `,
    );
    await db.execute(sql`
      insert into offchain_chain_events (chain_id, block_number, log_index, kind, uid, revoker, time, block_hash)
      values ${values}
      on conflict (chain_id, block_number, log_index) do update
        set kind = excluded.kind, uid = excluded.uid, revoker = excluded.revoker, time = excluded.time,
            block_hash = excluded.block_hash`);
  }
  await refreshRecords(db, chainId, [...new Set(events.map((e) => e.uid))]);
}

/**
 * Deletes the off-chain events of blocks above `ancestor` (a reorg's rewind, in its transaction) and works out the
 * records of their uids again: what those events did is undone.
 */
export async function rewindOffchainEvents(db: Db, chainId: number, ancestor: number): Promise<number> {
  const gone = await queryRows<{ uid: string }>(
    db,
    sql`delete from offchain_chain_events where chain_id = ${chainId} and block_number > ${ancestor}
        returning uid`,
  );
  await refreshRecords(db, chainId, [...new Set(gone.map((r) => r.uid))]);
  return gone.length;
}

/**
 * What the stored events say of the record `of` (an alias with its chain_id, uid and prover), as a select list: `rt`,
 * the earliest revocation by the record's own attester, and `ts`, the earliest timestamp. Text, for the statements
 * that write a record's state from it (refreshRecords, and the publication's insert: store.ts).
 */
export const eventStateOf = (of: string): string =>
  `(select min(e.time) from offchain_chain_events e
     where e.chain_id = ${of}.chain_id and e.uid = ${of}.uid and e.kind = 'revoked' and e.revoker = ${of}.prover) as rt,
   (select min(e.time) from offchain_chain_events e
     where e.chain_id = ${of}.chain_id and e.uid = ${of}.uid and e.kind = 'timestamped') as ts`;

const STATE_OF_O = sql.raw(eventStateOf("o"));

/**
 * The off-chain records of these uids on this chain, their revocation and timestamp worked out from the stored
 * events (eventStateOf).
 * Only rows whose state changes are written (each write moves the data version, db/migrations/0005); returns how many.
 */
export async function refreshRecords(db: Db, chainId: number, uids: readonly string[]): Promise<number> {
  let changed = 0;
  for (let i = 0; i < uids.length; i += CHUNK) {
    const some = uids.slice(i, i + CHUNK);
    const rows = await queryRows(
      db,
      sql`
      update offchain_records r
         set revoked = s.rt is not null, revocation_time = s.rt, timestamped_at = s.ts
        from (
          select o.chain_id, o.uid, ${STATE_OF_O}
            from offchain_records o
           where o.chain_id = ${chainId} and o.uid in ${some}) s
       where r.chain_id = s.chain_id and r.uid = s.uid
         and (r.revoked, r.revocation_time, r.timestamped_at) is distinct from (s.rt is not null, s.rt, s.ts)
       returning 1`,
    );
    changed += rows.length;
  }
  return changed;
}
