import type { Hex } from "viem";
import type { Db } from "../../db/client.js";
import type { ChainSchemaRow, NewLocationProofRow } from "../../db/schema.js";
import type { ChainClient } from "../chains/client.js";
import type { ChainConfig } from "../chains/registry.js";
import { attestationRow, type DecodingSchema, type OnchainAttestation } from "./decode-attestation.js";
import { readUntilFound } from "./lag.js";
import { type EasEvent, getEasLogs, type TailLogs } from "./logs.js";
import { nextRange, type SyncOptions } from "./options.js";
import { readAttestations } from "./reads.js";
import { parseSchema } from "./schemas.js";
import { type Commit, commitBatch, type Revocation } from "./store/batch.js";
import type { Writer } from "./store/lease.js";
import type { RunOutcome } from "./store/runs.js";

/** The chain changed under a running batch (an attestation or revocation we saw in a log is gone): retry later. */
export class ChainMovedError extends Error {
  override name = "ChainMovedError";
}

/** A run's work on schemas: found by discovery, newly indexed or dropped by policy, backfilled, decoded again. */
export type SchemaOutcome = {
  /** location schemas (or allowed ones) discovery found in the run */
  found: number;
  /** attestations written by schema backfills (counted in `attestations` too) */
  backfilled: number;
  /** schemas that joined the chain's stream after their backfill */
  joined: string[];
  /** rows removed because their schema is no longer indexed */
  removed: number;
  /** rows an older decoder wrote, decoded again */
  redecoded: number;
};

/** What the stages of one run share (lib/sync/chain-sync.ts builds it once the lease is taken). */
export type Stage = {
  db: Db;
  chain: ChainConfig;
  client: ChainClient;
  options: SyncOptions;
  writer: Writer;
  outcome: RunOutcome;
  schemaOutcome: SchemaOutcome;
  /** true when the run must stop at the next commit boundary (budget spent, or asked to stop) */
  outOfBudget(): boolean;
  /** the time budget's milliseconds left (negative once spent) */
  budgetLeftMs?(): number;
  /** a block's hash and time, read once per run however many stages ask */
  block(number: number): Promise<{ hash: string; time: Date }>;
  afterCommit?: (progress: { cursor: number; attestations: number }) => void | Promise<void>;
  /** the SchemaRegistry's and EAS's logs of the run's range near the head, read at once (lib/sync/logs.ts) */
  tail?: TailLogs;
};

/** A chain's known schemas by uid, each with its parsed string once a decode needed it. */
export type KnownSchemas = Map<string, ChainSchemaRow & { decoding?: DecodingSchema }>;

/** The uids of the schemas in the chain's attestation stream. */
export const liveUids = (schemas: KnownSchemas): Hex[] =>
  [...schemas.values()].filter((s) => s.state === "live").map((s) => s.uid as Hex);

/**
 * What an attestation of this schema is decoded against. A string that is no ABI parameter list (an operator may
 * allow any UID) decodes nothing: its records keep the raw data and say why.
 */
export function decodingOf(schemas: KnownSchemas, uid: string): DecodingSchema {
  const s = schemas.get(uid.toLowerCase());
  if (!s) throw new ChainMovedError(`attestation of schema ${uid}, which this chain's indexer does not know`);
  s.decoding ??= { params: parseSchema(s.schema)?.params ?? null, protocolVersion: s.protocolVersion };
  return s.decoding;
}

/**
 * Indexes the attestations and revocations of `uids` over [from, target]: per range one eth_getLogs for all of them
 * (their uids as the list of topic 3), the range adapting to what the provider accepts (starting at `rangeSize`),
 * each range committed in slices. The chain's own stream moves the chain's cursor; a schema's backfill
 * (`backfillOf`) moves that schema's, and joins the chain's stream when it reaches `target` (the chain's cursor).
 * Returns the last block committed (from − 1 when none) and whether it reached the target.
 */
export async function indexStream(
  stage: Stage,
  schemas: KnownSchemas,
  s: { uids: readonly Hex[]; from: number; target: number; rangeSize: number | null; backfillOf?: string },
): Promise<{ cursor: number; complete: boolean }> {
  const { options } = stage;
  let cursor = s.from - 1;
  let from = s.from;
  let rangeSize = Math.max(1, Math.min(s.rangeSize ?? options.initialRange, options.maxRange));
  while (from <= s.target) {
    if (stage.outOfBudget()) return { cursor, complete: false };
    // Nothing to read while no schema is in the stream: the range is only block hashes.
    const logs = s.uids.length
      ? await getEasLogs(
          stage.client,
          {
            eas: stage.chain.eas,
            schemaUids: s.uids,
            fromBlock: from,
            toBlock: Math.min(from + rangeSize - 1, s.target),
          },
          stage.tail,
        )
      : { events: [], toBlock: s.target, refused: false };
    const covered = logs.toBlock - from + 1;
    // Remember what the provider accepted; grow again after a clean success (ponder's strategy).
    rangeSize = nextRange(options, rangeSize, covered, logs.refused);
    if (!s.backfillOf) stage.outcome.fromBlock ??= from;
    cursor = await indexRange(stage, schemas, {
      from,
      to: logs.toBlock,
      events: logs.events,
      rangeSize,
      ...(s.backfillOf ? { backfill: { uid: s.backfillOf, target: s.target } } : {}),
    });
    if (!s.backfillOf) stage.outcome.toBlock = cursor;
    if (cursor < logs.toBlock) return { cursor, complete: false }; // the budget ran out inside the range
    from = logs.toBlock + 1;
  }
  return { cursor, complete: true };
}

/** Commits the events of [from, to] in slices of ≤ commitSize attestations, cut at block boundaries. */
async function indexRange(
  stage: Stage,
  schemas: KnownSchemas,
  r: {
    from: number;
    to: number;
    events: EasEvent[];
    rangeSize: number;
    backfill?: { uid: string; target: number };
  },
): Promise<number> {
  const slices: EasEvent[][] = [];
  let current: EasEvent[] = [];
  for (let i = 0; i < r.events.length; i++) {
    current.push(r.events[i]!);
    const blockEnds = r.events[i + 1]?.blockNumber !== r.events[i]!.blockNumber;
    if (blockEnds && current.length >= stage.options.commitSize) {
      slices.push(current);
      current = [];
    }
  }
  slices.push(current);
  // Pipelined: the next slice's reads run while this one commits (the RPC round trips hide behind the database).
  const prepare = (i: number) => {
    const end = i === slices.length - 1 ? r.to : slices[i]!.at(-1)!.blockNumber;
    const p = prepareSlice(stage, schemas, slices[i]!, end, r.rangeSize).then(
      (c): Commit =>
        r.backfill ? { ...c, schemaBackfill: { uid: r.backfill.uid, joins: end >= r.backfill.target } } : c,
    );
    p.catch(() => {}); // awaited below; never an unhandled rejection if an earlier commit fails first
    return p;
  };
  let cursor = r.from - 1;
  let next = prepare(0);
  for (let i = 0; i < slices.length; i++) {
    const prepared = await next;
    if (i + 1 < slices.length) next = prepare(i + 1);
    await commitBatch(stage.db, prepared);
    stage.outcome.attestations += prepared.rows.length;
    stage.outcome.revocations += prepared.revocations.length;
    if (r.backfill) {
      stage.schemaOutcome.backfilled += prepared.rows.length;
      if (prepared.schemaBackfill?.joins) stage.schemaOutcome.joined.push(r.backfill.uid);
    }
    cursor = prepared.cursor;
    await stage.afterCommit?.({ cursor, attestations: stage.outcome.attestations });
    // A busy range stops at a slice boundary (a block boundary) when the budget is spent; the rest is next run's.
    if (i + 1 < slices.length && stage.outOfBudget()) break;
  }
  return cursor;
}

/** Reads and decodes one slice's attestations: everything its commit needs, without touching the database. */
async function prepareSlice(
  stage: Stage,
  schemas: KnownSchemas,
  events: EasEvent[],
  end: number,
  rangeSize: number,
): Promise<Commit> {
  const { chain, options } = stage;
  const uids = [...new Set(events.map((e) => e.uid))];
  // The slice's last block: its hash is the cursor's, checked by the next run's reorg detection.
  const endEvent = events.find((e) => e.blockNumber === end);
  const [reads, block] = await Promise.all([
    uids.length
      ? readUntilFound(uids as Hex[], (some) =>
          readAttestations(stage.client, chain.eas, some, {
            batchSize: options.readBatchSize,
            concurrency: options.readConcurrency,
            multicall: chain.multicall3,
          }),
        )
      : Promise.resolve(new Map<string, OnchainAttestation | null>()),
    endEvent ? Promise.resolve(undefined) : stage.block(end),
  ]);
  const rows = new Map<string, NewLocationProofRow>();
  const backfill = new Map<string, NewLocationProofRow>();
  const revocations: Revocation[] = [];
  const blocks = new Map<number, string>();
  let cursorTime: Date | null = block ? block.time : null;
  for (const e of events) {
    blocks.set(e.blockNumber, e.blockHash);
    const a = reads.get(e.uid);
    // Seen in a log but unknown to EAS now, or a revocation EAS does not have: the chain moved (a reorg beneath
    // our confirmations). Commit nothing of this slice; the next run's reorg check sorts it out.
    if (!a) throw new ChainMovedError(`attestation ${e.uid} from block ${e.blockNumber} is not on chain`);
    const at = {
      blockNumber: e.blockNumber,
      blockHash: e.blockHash,
      txHash: e.txHash,
      logIndex: e.logIndex,
    };
    const row = () => attestationRow(chain, decodingOf(schemas, a.schema), a, at);
    if (e.kind === "Attested") {
      if (!rows.has(e.uid)) rows.set(e.uid, row());
      if (e.blockNumber === end) cursorTime = new Date(Number(a.time) * 1000);
    } else {
      if (a.revocationTime === 0n)
        throw new ChainMovedError(`revocation of ${e.uid} in block ${e.blockNumber} is not on chain`);
      // Backfill an attestation we do not have (attested before the start block) before revoking it.
      if (!rows.has(e.uid)) backfill.set(e.uid, row());
      revocations.push({
        uid: e.uid,
        time: new Date(Number(a.revocationTime) * 1000),
        blockNumber: e.blockNumber,
      });
      if (e.blockNumber === end) cursorTime = new Date(Number(a.revocationTime) * 1000);
    }
  }
  blocks.set(end, endEvent?.blockHash ?? block!.hash);
  return {
    ...stage.writer,
    rows: [...rows.values()],
    backfill: [...backfill.values()],
    revocations,
    blocks: [...blocks].map(([number, hash]) => ({ number, hash })),
    cursor: end,
    cursorTime,
    rangeSize,
  };
}
