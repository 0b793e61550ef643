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
import { attestedEvent, easAbi, revokedEvent } from "../chains/eas-abi.js";

export type EasEvent = {
  kind: "Attested" | "Revoked";
  uid: Hex;
  blockNumber: number;
  blockHash: Hex;
  txHash: Hex;
  logIndex: number;
};

const ATTESTED = toEventSelector(attestedEvent);
const REVOKED = toEventSelector(revokedEvent);

type RawLog = {
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
 * One eth_getLogs per range for both events (topic0 ∈ {Attested, Revoked}, topic3 = schema). When a provider refuses
 * the range, @ponder/utils' getLogsRetryHelper reads its message (Alchemy, Infura, QuickNode, …) and we retry the
 * first sub-range it suggests; an unrecognised "too large" message halves the range. Returns the logs and the
 * range actually covered, which the caller continues from (and remembers as its next range size).
 */
export async function getEasLogs(
  client: ChainClient,
  args: { eas: Address; schemaUid: Hex; fromBlock: number; toBlock: number },
): Promise<{ events: EasEvent[]; toBlock: number; refused: boolean }> {
  let toBlock = args.toBlock;
  let refused = false;
  for (let attempt = 0; ; attempt++) {
    const filter = {
      address: args.eas,
      topics: [[ATTESTED, REVOKED], null, null, args.schemaUid] as Hex[][],
      fromBlock: toHex(args.fromBlock),
      toBlock: toHex(toBlock),
    };
    try {
      const raw = (await client.request({
        method: "eth_getLogs",
        params: [filter as never],
      })) as unknown as RawLog[];
      return { events: parseLogs(raw, args), toBlock, refused };
    } catch (error) {
      if (attempt >= 12 || isRateLimit(error)) throw error;
      const help = getLogsRetryHelper({
        params: [
          { address: args.eas, topics: filter.topics, fromBlock: filter.fromBlock, toBlock: filter.toBlock },
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

function parseLogs(raw: RawLog[], args: { eas: Address; schemaUid: Hex }): EasEvent[] {
  const events: EasEvent[] = [];
  for (const log of raw) {
    // Defensive: a provider that ignores part of the filter must not inject foreign events.
    if (log.removed || log.address.toLowerCase() !== args.eas.toLowerCase()) continue;
    if (log.topics[3]?.toLowerCase() !== args.schemaUid.toLowerCase()) continue;
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
      blockNumber: Number(hexToBigInt(log.blockNumber)),
      blockHash: log.blockHash.toLowerCase() as Hex,
      txHash: log.transactionHash.toLowerCase() as Hex,
      logIndex: Number(hexToBigInt(log.logIndex)),
    });
  }
  return events.sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
}
