import { type Address, encodeFunctionData, type Hex, zeroHash } from "viem";
import type { ChainClient } from "../chains/client.js";
import { easAbi } from "../chains/eas-abi.js";
import { multicall3Abi } from "../chains/multicall3-abi.js";
import { MULTICALL3_ADDRESS } from "../chains/registry.js";
import { decodeAggregate3, decodeAttestation } from "./abi-fast.js";
import type { OnchainAttestation } from "./decode-attestation.js";

/** How nodes say an eth_call ran out of gas (anvil, geth, erigon, hosted providers), in the innermost RPC detail. */
const OUT_OF_GAS =
  /out of gas|outofgas|gas required exceeds|exceeds (block )?gas limit|gas limit reached|gas cap|memory limit/i;

function isOutOfGas(error: unknown): boolean {
  const parts: string[] = [];
  for (
    let e = error as { details?: string; message?: string; cause?: unknown } | undefined;
    e;
    e = e.cause as never
  ) {
    if (e.details) parts.push(e.details);
  }
  return OUT_OF_GAS.test(parts.join(" "));
}

export type ReadOptions = {
  batchSize: number;
  concurrency: number;
  blockNumber?: bigint;
  /** false on a chain without Multicall3: one eth_call per attestation, sent as JSON-RPC batches by the client. */
  multicall?: boolean;
};

/**
 * Reads attestations with Multicall3 aggregate3: ~100 getAttestation calls per eth_call, a few calls in flight —
 * never one request per attestation. A batch that fails as a whole (out of gas: large media make one read cost up to
 * ~1.2M gas) is split in half until it fits. A uid EAS does not know maps to null.
 */
export async function readAttestations(
  client: ChainClient,
  eas: Address,
  uids: readonly Hex[],
  options: ReadOptions,
): Promise<Map<string, OnchainAttestation | null>> {
  const result = new Map<string, OnchainAttestation | null>();
  const batches: Hex[][] = [];
  for (let i = 0; i < uids.length; i += options.batchSize) batches.push(uids.slice(i, i + options.batchSize));
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      const batch = batches[next++]!;
      if (options.multicall === false) await readEach(client, eas, batch, options.blockNumber, result);
      else await readBatch(client, eas, batch, options.blockNumber, result);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, batches.length) }, worker));
  return result;
}

const getAttestationData = (uid: Hex): Hex =>
  encodeFunctionData({ abi: easAbi, functionName: "getAttestation", args: [uid] });

/** Stores one decoded getAttestation result; a uid EAS does not know (zero uid returned) maps to null. */
function store(into: Map<string, OnchainAttestation | null>, uid: Hex, returnData: Hex): void {
  const a = decodeAttestation(returnData);
  into.set(uid.toLowerCase(), a.uid === zeroHash ? null : a);
}

async function readBatch(
  client: ChainClient,
  eas: Address,
  uids: Hex[],
  blockNumber: bigint | undefined,
  into: Map<string, OnchainAttestation | null>,
): Promise<void> {
  const calls = uids.map((uid) => ({
    target: eas,
    allowFailure: true,
    callData: getAttestationData(uid),
  }));
  const splitInHalf = async () => {
    const half = Math.ceil(uids.length / 2);
    await readBatch(client, eas, uids.slice(0, half), blockNumber, into);
    await readBatch(client, eas, uids.slice(half), blockNumber, into);
  };
  let results: readonly { success: boolean; returnData: Hex }[];
  try {
    const { data } = await client.call({
      to: MULTICALL3_ADDRESS,
      data: encodeFunctionData({ abi: multicall3Abi, functionName: "aggregate3", args: [calls] }),
      ...(blockNumber !== undefined ? { blockNumber } : {}),
    });
    if (!data) throw new Error("Multicall3 returned no data (is it deployed on this chain?)");
    results = decodeAggregate3(data);
  } catch (error) {
    // Only a batch too heavy for the node's eth_call gas cap is split; a dead provider fails fast instead of
    // being asked 2n more times.
    if (uids.length === 1 || !isOutOfGas(error)) throw error;
    return splitInHalf();
  }
  // With allowFailure a sub-call that ran out of gas fails alone (EIP-150 keeps 1/64 for the caller): split too.
  if (uids.length > 1 && results.some((r) => !r.success)) return splitInHalf();
  results.forEach((r, i) => {
    if (!r.success) throw new Error(`getAttestation(${uids[i]!.toLowerCase()}) failed inside Multicall3`);
    store(into, uids[i]!, r.returnData);
  });
}

/**
 * Without Multicall3: every getAttestation is its own eth_call, issued together so that a client created with
 * `jsonRpcBatch` sends them as one JSON-RPC batch per HTTP request.
 */
async function readEach(
  client: ChainClient,
  eas: Address,
  uids: Hex[],
  blockNumber: bigint | undefined,
  into: Map<string, OnchainAttestation | null>,
): Promise<void> {
  const results = await Promise.all(
    uids.map((uid) =>
      client.call({
        to: eas,
        data: getAttestationData(uid),
        ...(blockNumber !== undefined ? { blockNumber } : {}),
      }),
    ),
  );
  results.forEach(({ data }, i) => {
    if (!data) throw new Error(`getAttestation(${uids[i]}) returned no data`);
    store(into, uids[i]!, data);
  });
}
