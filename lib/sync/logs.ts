import { getLogsRetryHelper } from "@ponder/utils";
import {
  type Address,
  decodeEventLog,
  type Hex,
  hexToBigInt,
  type RpcError,
  toEventSelector,
  toHex,
} from "viem";
import type { ChainClient } from "../chains/client.js";
import {
  attestedEvent,
  easAbi,
  registeredEvent,
  registeredEventV1,
  revokedEvent,
  revokedOffchainEvent,
  timestampedEvent,
} from "../chains/eas-abi.js";
import { BlockUnknownError, untilKnown } from "./lag.js";

export type EasEvent = {
  /**
   * Attested and Revoked: an on-chain attestation's. RevokedOffchain and Timestamped: an off-chain attestation's uid
   * (lib/offchain/chain-events.ts), read by discovery (getRegisteredLogs); their schemaUid is empty (they carry none).
   */
  kind: "Attested" | "Revoked" | "RevokedOffchain" | "Timestamped";
  uid: Hex;
  /** RevokedOffchain: who revoked (lowercase) */
  revoker?: Hex;
  /** RevokedOffchain and Timestamped: the event's timestamp (seconds) */
  timestamp?: bigint;
  /** topic 3: the attestation's schema */
  schemaUid: Hex;
  blockNumber: number;
  blockHash: Hex;
  txHash: Hex;
  logIndex: number;
};

const ATTESTED = toEventSelector(attestedEvent);
const REVOKED = toEventSelector(revokedEvent);
const REGISTERED = toEventSelector(registeredEvent);
const REGISTERED_V1 = toEventSelector(registeredEventV1);
const REVOKED_OFFCHAIN = toEventSelector(revokedOffchainEvent);
const TIMESTAMPED = toEventSelector(timestampedEvent);

export type RawLog = {
  address: Hex;
  topics: Hex[];
  data: Hex;
  blockNumber: Hex | null;
  blockHash: Hex | null;
  transactionHash: Hex | null;
  logIndex: Hex | null;
  removed?: boolean;
};

/** Messages that say "too much" without a suggested range: halve and retry. */
const RANGE_HINT =
  /range|too (many|large|big|wide)|exceed|limit|max(imum)? .*(blocks|results)|response size/i;

/** A provider throttling us says nothing about the range: shrinking it would only slow every later run down. */
const RATE_LIMIT = /rate.?limit|too many requests/i;

/**
 * One eth_getLogs per range for both EAS events of every schema given (topic0 ∈ {Attested, Revoked}, topic3 ∈ the
 * schemas: a list, so the number of schemas costs no requests). Returns the events and the range actually covered
 * (getLogsAdaptive).
 */
export async function getEasLogs(
  client: ChainClient,
  args: { eas: Address; schemaUids: readonly Hex[]; fromBlock: number; toBlock: number },
  tail?: TailLogs,
): Promise<{ events: EasEvent[]; toBlock: number; refused: boolean }> {
  const cached = fromTail(tail, args);
  if (cached) return { events: parseLogs(cached, args), toBlock: args.toBlock, refused: false };
  const got = await getLogsAdaptive(client, {
    address: args.eas,
    topics: [[ATTESTED, REVOKED], null, null, [...args.schemaUids]],
    fromBlock: args.fromBlock,
    toBlock: args.toBlock,
  });
  return { events: parseLogs(got.logs, args), toBlock: got.toBlock, refused: got.refused };
}

export type RegisteredEvent = { uid: Hex; blockNumber: number; blockHash: Hex };

/**
 * One eth_getLogs per range for the SchemaRegistry's `Registered` events, both signatures (eas-abi.ts); the uid is
 * topic 1 in either, and the schema's string is read with getSchema (a short event carries none). With `eas`, the
 * same request also reads EAS's off-chain events (RevokedOffchain, Timestamped: lib/offchain/chain-events.ts), an
 * address list and two more signatures: they carry no schema, so the attestations' schema-filtered requests cannot
 * hold them, and discovery's ranges, like theirs, cover the whole chain from its start.
 */
export async function getRegisteredLogs(
  client: ChainClient,
  args: { registry: Address; eas?: Address; fromBlock: number; toBlock: number },
  tail?: TailLogs,
): Promise<{ events: RegisteredEvent[]; offchain: EasEvent[]; toBlock: number; refused: boolean }> {
  const cached = fromTail(tail, args);
  const got = cached
    ? { logs: cached, toBlock: args.toBlock, refused: false }
    : await getLogsAdaptive(client, {
        address: args.eas ? [args.registry, args.eas] : args.registry,
        topics: [
          args.eas ? [REGISTERED, REGISTERED_V1, REVOKED_OFFCHAIN, TIMESTAMPED] : [REGISTERED, REGISTERED_V1],
        ],
        fromBlock: args.fromBlock,
        toBlock: args.toBlock,
      });
  const events: RegisteredEvent[] = [];
  const offchain: EasEvent[] = [];
  for (const log of got.logs) {
    if (log.removed) continue;
    const topic0 = log.topics[0]?.toLowerCase();
    if (args.eas && log.address.toLowerCase() === args.eas.toLowerCase()) {
      if (topic0 !== REVOKED_OFFCHAIN && topic0 !== TIMESTAMPED) continue;
      const event = offchainEvent(log, topic0 === REVOKED_OFFCHAIN);
      if (event) offchain.push(event);
      continue;
    }
    if (log.address.toLowerCase() !== args.registry.toLowerCase()) continue;
    if (topic0 !== REGISTERED && topic0 !== REGISTERED_V1) continue;
    const uid = log.topics[1];
    if (!uid || log.blockNumber === null || log.blockHash === null) continue;
    events.push({
      uid: uid.toLowerCase() as Hex,
      blockNumber: Number(hexToBigInt(log.blockNumber)),
      blockHash: log.blockHash.toLowerCase() as Hex,
    });
  }
  return {
    events: events.sort((a, b) => a.blockNumber - b.blockNumber),
    offchain: offchain.sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex),
    toBlock: got.toBlock,
    refused: got.refused,
  };
}

/**
 * The logs of the SchemaRegistry and EAS over one range, read by a single eth_getLogs (an address list, the six event
 * signatures as topic 0 — EAS's off-chain events among them —, no schema filter): what a run near the head reads, instead of one request for discovery and
 * one for the attestations. Both read from it as from their own request (getRegisteredLogs, getEasLogs filter it by
 * address, signature, schema and block), for any range inside [fromBlock, toBlock].
 */
export type TailLogs = { fromBlock: number; toBlock: number; logs: RawLog[] };

export async function getTailLogs(
  client: ChainClient,
  args: { registry: Address; eas: Address; fromBlock: number; toBlock: number },
): Promise<TailLogs> {
  const got = await getLogsAdaptive(client, {
    address: [args.registry, args.eas],
    topics: [[REGISTERED, REGISTERED_V1, ATTESTED, REVOKED, REVOKED_OFFCHAIN, TIMESTAMPED]],
    fromBlock: args.fromBlock,
    toBlock: args.toBlock,
  });
  return { fromBlock: args.fromBlock, toBlock: got.toBlock, logs: got.logs };
}

/** The tail's logs of [fromBlock, toBlock] when the tail covers that range, else undefined (ask the node). */
function fromTail(
  tail: TailLogs | undefined,
  r: { fromBlock: number; toBlock: number },
): RawLog[] | undefined {
  if (!tail || r.fromBlock < tail.fromBlock || r.toBlock > tail.toBlock) return undefined;
  return tail.logs.filter((log) => {
    if (log.blockNumber === null) return false;
    const n = Number(hexToBigInt(log.blockNumber));
    return n >= r.fromBlock && n <= r.toBlock;
  });
}

/**
 * eth_getLogs over [fromBlock, toBlock] with range adaptation: when a provider refuses the range, @ponder/utils'
 * getLogsRetryHelper reads its message (Alchemy, Infura, QuickNode, …) and the first sub-range it suggests is tried;
 * an unrecognised "too large" message halves the range. Returns the logs and the range actually covered, which the
 * caller continues from (and remembers as its next range size).
 */
export async function getLogsAdaptive(
  client: ChainClient,
  args: {
    address: Address | Address[];
    topics: (Hex | Hex[] | null)[];
    fromBlock: number;
    toBlock: number;
  },
): Promise<{ logs: RawLog[]; toBlock: number; refused: boolean }> {
  let toBlock = args.toBlock;
  let refused = false;
  for (let attempt = 0; ; attempt++) {
    const filter = {
      address: args.address,
      topics: args.topics,
      fromBlock: toHex(args.fromBlock),
      toBlock: toHex(toBlock),
    };
    try {
      // A range past the answering node's head is asked again (another node, or the next fallback endpoint),
      // never shrunk: the node lags, the range is fine (lib/sync/lag.ts).
      const logs = (await untilKnown(`eth_getLogs ${args.fromBlock}-${toBlock}`, () =>
        client.request({ method: "eth_getLogs", params: [filter as never] }),
      )) as unknown as RawLog[];
      return { logs, toBlock, refused };
    } catch (error) {
      if (attempt >= 12 || isRateLimit(error) || error instanceof BlockUnknownError) throw error;
      const help = getLogsRetryHelper({
        params: [
          {
            address: args.address,
            topics: filter.topics as never,
            fromBlock: filter.fromBlock,
            toBlock: filter.toBlock,
          },
        ],
        error: error as RpcError,
      });
      if (help.shouldRetry && help.ranges[0]) {
        toBlock = Number(hexToBigInt(help.ranges[0].toBlock));
      } else if (toBlock > args.fromBlock && RANGE_HINT.test(errorText(error))) {
        toBlock = args.fromBlock + Math.floor((toBlock - args.fromBlock) / 2);
      } else {
        throw error;
      }
      refused = true;
    }
  }
}

/** HTTP 429, JSON-RPC code 429, or a "rate limit" / "Too Many Requests" message, anywhere in the cause chain. */
function isRateLimit(error: unknown): boolean {
  for (
    let e = error as { status?: unknown; code?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 5;
    depth++
  ) {
    if (e.status === 429 || e.code === 429) return true;
    e = e.cause as typeof e;
  }
  return RATE_LIMIT.test(errorText(error));
}

function errorText(error: unknown): string {
  const e = error as { message?: string; details?: string; cause?: { message?: string } };
  return [e.message, e.details, e.cause?.message].filter(Boolean).join(" ");
}

function parseLogs(raw: RawLog[], args: { eas: Address; schemaUids: readonly Hex[] }): EasEvent[] {
  const events: EasEvent[] = [];
  const schemas = new Set(args.schemaUids.map((u) => u.toLowerCase()));
  for (const log of raw) {
    // Defensive: a provider that ignores part of the filter must not inject foreign events.
    if (log.removed || log.address.toLowerCase() !== args.eas.toLowerCase()) continue;
    // The tail's off-chain events are discovery's (getRegisteredLogs); they carry no schema.
    const topic0 = log.topics[0]?.toLowerCase();
    if (topic0 === REVOKED_OFFCHAIN || topic0 === TIMESTAMPED) continue;
    const schemaUid = log.topics[3]?.toLowerCase();
    if (!schemaUid || !schemas.has(schemaUid)) continue;
    if (
      log.blockNumber === null ||
      log.blockHash === null ||
      log.transactionHash === null ||
      log.logIndex === null
    ) {
      continue; // pending logs carry no position
    }
    const decoded = decodeEventLog({ abi: easAbi, data: log.data, topics: log.topics as [Hex, ...Hex[]] });
    if (decoded.eventName !== "Attested" && decoded.eventName !== "Revoked") continue;
    events.push({
      kind: decoded.eventName,
      uid: (decoded.args as { uid: Hex }).uid.toLowerCase() as Hex,
      schemaUid: schemaUid as Hex,
      blockNumber: Number(hexToBigInt(log.blockNumber)),
      blockHash: log.blockHash.toLowerCase() as Hex,
      txHash: log.transactionHash.toLowerCase() as Hex,
      logIndex: Number(hexToBigInt(log.logIndex)),
    });
  }
  return events.sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
}

/**
 * An off-chain event as read from its topics (every argument is indexed): RevokedOffchain(revoker, data, timestamp),
 * Timestamped(data, timestamp). Undefined for a pending log or one whose topics are not the event's.
 */
function offchainEvent(log: RawLog, revoked: boolean): EasEvent | undefined {
  if (
    log.blockNumber === null ||
    log.blockHash === null ||
    log.transactionHash === null ||
    log.logIndex === null ||
    log.topics.length !== (revoked ? 4 : 3)
  ) {
    return undefined;
  }
  const [, first, second, third] = log.topics;
  const uid = (revoked ? second : first)!.toLowerCase() as Hex;
  const timestamp = hexToBigInt((revoked ? third : second)!);
  return {
    kind: revoked ? "RevokedOffchain" : "Timestamped",
    uid,
    ...(revoked ? { revoker: `0x${first!.slice(-40).toLowerCase()}` as Hex } : {}),
    timestamp,
    schemaUid: "0x" as Hex,
    blockNumber: Number(hexToBigInt(log.blockNumber)),
    blockHash: log.blockHash.toLowerCase() as Hex,
    txHash: log.transactionHash.toLowerCase() as Hex,
    logIndex: Number(hexToBigInt(log.logIndex)),
  };
}
