import type { Hex } from "viem";
import type { Db } from "../../db/client.js";
import type { ChainConfig } from "../chains/registry.js";
import { LOCATION_SCHEMA_UID } from "../chains/schema.js";
import { log } from "../log.js";
import { type OffchainChainEvent, offchainChainEvent } from "../offchain/chain-events.js";
import { readUntilFound, untilKnown } from "./lag.js";
import { getRegisteredLogs } from "./logs.js";
import { nextRange } from "./options.js";
import { type RegisteredSchema, readSchemas } from "./reads.js";
import { describeSchema, indexes } from "./schemas.js";
import { commitDiscovery } from "./store/discovery.js";
import { applySchemaStates, chainSchemaRows, type NewChainSchema } from "./store/schema-states.js";
import { ChainMovedError, type KnownSchemas, type Stage } from "./stream.js";

/** A chain's known schemas (db/schema.ts chainSchemas), by uid. */
export async function loadSchemas(db: Db, chainId: number): Promise<KnownSchemas> {
  return new Map((await chainSchemaRows(db, chainId)).map((r) => [r.uid, r]));
}

/**
 * How a schema that is to be indexed from now on starts: in the chain's stream when the chain's cursor has not passed
 * the first block it can have attestations in (its registration, or the chain's start block), else with a backfill
 * of its own from there up to the chain's cursor (lib/sync/backfill.ts).
 */
export function startState(
  chain: Pick<ChainConfig, "startBlock">,
  chainCursor: number | null,
  registeredBlock: number | null,
): Pick<NewChainSchema, "state" | "backfillFrom" | "backfillCursor"> {
  const from = Math.max(registeredBlock ?? chain.startBlock, chain.startBlock);
  if (chainCursor === null || from > chainCursor)
    return { state: "live", backfillFrom: null, backfillCursor: null };
  return { state: "backfill", backfillFrom: from, backfillCursor: from - 1 };
}

const readOptions = (stage: Stage) => ({
  batchSize: stage.options.readBatchSize,
  concurrency: stage.options.readConcurrency,
  multicall: stage.chain.multicall3,
});

/** A chain_schemas row for a schema record read from the registry. */
function schemaRow(
  stage: Stage,
  record: RegisteredSchema,
  registeredBlock: number | null,
  chainCursor: number | null,
): NewChainSchema {
  const d = describeSchema(record.uid, record.schema);
  const indexed = indexes(stage.options.schemaPolicy, record.uid, d.location);
  return {
    chainId: stage.chain.chainId,
    uid: record.uid,
    schema: record.schema,
    resolver: record.resolver,
    revocable: record.revocable,
    location: d.location,
    protocolVersion: d.protocolVersion,
    registeredBlock,
    ...(indexed ? startState(stage.chain, chainCursor, registeredBlock) : { state: "off" }),
  };
}

/** Per database and chain: UIDs the registry did not know when asked (applyPolicy), and when. */
const unregistered = new WeakMap<Db, Map<number, Map<string, number>>>();
const ASK_AGAIN_MS = 10 * 60_000;
function askedOf(stage: Stage): Map<string, number> {
  const byChain = unregistered.get(stage.db) ?? new Map<number, Map<string, number>>();
  unregistered.set(stage.db, byChain);
  const asked = byChain.get(stage.chain.chainId) ?? new Map<string, number>();
  byChain.set(stage.chain.chainId, asked);
  return asked;
}

/**
 * The operator's decisions (SCHEMA_MODE, SCHEMA_ALLOW, SCHEMA_DENY) applied to the chain's schemas before any
 * indexing: a schema now indexed starts (in the stream, or with a backfill); a schema no longer indexed is set off
 * and its rows removed; the v0.1 schema and the allowed UIDs this chain does not know yet are read from its registry
 * (getSchema) and added. Returns how many rows were removed; `schemas` is reloaded.
 */
export async function applyPolicy(
  stage: Stage,
  schemas: KnownSchemas,
  chainCursor: number | null,
): Promise<number> {
  const policy = stage.options.schemaPolicy;
  const upserts: NewChainSchema[] = [];
  const off: string[] = [];
  for (const row of schemas.values()) {
    const wanted = indexes(policy, row.uid, row.location);
    if (row.state === "off" && wanted) {
      upserts.push({ ...row, ...startState(stage.chain, chainCursor, row.registeredBlock) });
    } else if (row.state !== "off" && !wanted) off.push(row.uid);
  }
  const asked = askedOf(stage);
  const missing = [LOCATION_SCHEMA_UID, ...policy.allow].filter(
    (u) => !schemas.has(u) && !policy.deny.has(u) && !(Date.now() - (asked.get(u) ?? 0) < ASK_AGAIN_MS),
  );
  if (missing.length) {
    const records = await untilKnown("schema records", () =>
      readSchemas(stage.client, stage.chain.schemaRegistry, missing as Hex[], readOptions(stage)),
    );
    for (const [uid, record] of records) {
      if (record) upserts.push(schemaRow(stage, record, null, chainCursor));
      // The registry at its latest block does not know it: it can only be registered later, where discovery (which
      // keeps the v0.1 schema and every allowed UID) finds it. Asked again only after a while, in case the answer
      // came from a node that lagged behind a registration discovery had already passed.
      else asked.set(uid, Date.now());
    }
  }
  if (upserts.length === 0 && off.length === 0) return 0;
  const removed = await applySchemaStates(stage.db, { ...stage.writer, upserts, off });
  log("info", "schemas: operator's decisions applied", {
    chain: stage.chain.name,
    indexed: upserts.filter((u) => u.state !== "off").map((u) => ({ uid: u.uid, state: u.state })),
    not_indexed: off,
    rows_removed: removed,
  });
  for (const [uid, row] of await loadSchemas(stage.db, stage.chain.chainId)) schemas.set(uid, row);
  return removed;
}

/**
 * Schema discovery: follows the chain's SchemaRegistry from `cursor` (its own cursor) up to `target` (the confirmed
 * head), one eth_getLogs per range for `Registered` (both signatures), reading each new schema's string with getSchema
 * through Multicall3, keeping the location schemas (by their field names) and the allowed ones. Each range is
 * committed with its block hashes and the cursor, under the lease, like the attestations; the chain's attestations
 * are indexed up to this cursor only, so a schema is known before any block its attestations can be in.
 */
export async function discover(
  stage: Stage,
  schemas: KnownSchemas,
  args: {
    cursor: number | null;
    rangeSize: number | null;
    target: number;
    chainCursor: number | null;
    afterCommit?: (progress: { schemaCursor: number; found: number }) => void | Promise<void>;
  },
): Promise<{ cursor: number | null; complete: boolean }> {
  const { chain, options } = stage;
  let cursor = args.cursor;
  let from = cursor === null ? chain.schemaStartBlock : cursor + 1;
  const target = Math.min(args.target, from + options.blockBudget - 1);
  let rangeSize = Math.max(1, Math.min(args.rangeSize ?? options.initialRange, options.maxRange));
  // Registered events are rare: ranges are committed together (the schemas found, the blocks that held their events,
  // the last range's end), at once when a range found a schema, else every few ranges and when the loop stops.
  // EAS's off-chain events read by the same requests (lib/offchain/chain-events.ts) are committed with them.
  let pending = {
    rows: new Map<string, NewChainSchema>(),
    blocks: new Map<number, string>(),
    offchain: [] as OffchainChainEvent[],
    ranges: 0,
  };
  const commit = async (end: number) => {
    const found = [...pending.rows.values()].filter((r) => !schemas.has(r.uid));
    if (!pending.blocks.has(end)) pending.blocks.set(end, (await stage.block(end)).hash);
    await commitDiscovery(stage.db, {
      ...stage.writer,
      schemas: [...pending.rows.values()],
      offchain: pending.offchain,
      blocks: [...pending.blocks].map(([number, hash]) => ({ number, hash })),
      cursor: end,
      rangeSize,
    });
    if (pending.rows.size)
      for (const [uid, row] of await loadSchemas(stage.db, chain.chainId)) schemas.set(uid, row);
    pending = { rows: new Map(), blocks: new Map(), offchain: [], ranges: 0 };
    cursor = end;
    if (found.length) {
      stage.schemaOutcome.found += found.length;
      log("info", "schemas discovered", {
        chain: chain.name,
        schemas: found.map((r) => ({
          uid: r.uid,
          schema: r.schema,
          location: r.location,
          registered_block: r.registeredBlock,
          state: r.state,
        })),
      });
    }
    await args.afterCommit?.({ schemaCursor: end, found: stage.schemaOutcome.found });
  };
  let end = from - 1;
  while (from <= target) {
    if (stage.outOfBudget()) break;
    const logs = await getRegisteredLogs(
      stage.client,
      {
        registry: chain.schemaRegistry,
        eas: chain.eas,
        fromBlock: from,
        toBlock: Math.min(from + rangeSize - 1, target),
      },
      stage.tail,
    );
    end = logs.toBlock;
    const covered = end - from + 1;
    rangeSize = nextRange(options, rangeSize, covered, logs.refused);
    const fresh = [...new Set(logs.events.map((e) => e.uid))].filter(
      (uid) => !schemas.has(uid) && !pending.rows.has(uid),
    );
    const records = fresh.length
      ? await readUntilFound(fresh as Hex[], (some) =>
          readSchemas(stage.client, chain.schemaRegistry, some, readOptions(stage)),
        )
      : new Map<string, RegisteredSchema | null>();
    for (const e of logs.offchain) {
      pending.blocks.set(e.blockNumber, e.blockHash);
      pending.offchain.push(offchainChainEvent(e));
    }
    let foundHere = false;
    for (const e of logs.events) {
      pending.blocks.set(e.blockNumber, e.blockHash);
      if (pending.rows.has(e.uid)) continue;
      const known = schemas.get(e.uid);
      if (known) {
        // Known by UID before discovery reached it (v0.1, an allowed one): now it is known where it was registered.
        if (known.registeredBlock === null)
          pending.rows.set(e.uid, { ...known, registeredBlock: e.blockNumber });
        continue;
      }
      const record = records.get(e.uid);
      // Registered in a block we saw, unknown to the registry now: the chain moved; the next run's reorg check.
      if (!record)
        throw new ChainMovedError(`schema ${e.uid} registered in block ${e.blockNumber} is not on chain`);
      const row = schemaRow(stage, record, e.blockNumber, args.chainCursor);
      if (row.location || stage.options.schemaPolicy.allow.has(e.uid)) {
        pending.rows.set(e.uid, row);
        foundHere = true;
      }
    }
    from = end + 1;
    if (foundHere || ++pending.ranges >= 16) await commit(end);
  }
  if (end > (cursor ?? -1)) await commit(end);
  return { cursor, complete: cursor !== null && cursor >= args.target };
}
