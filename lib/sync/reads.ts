import { type Address, decodeFunctionResult, encodeFunctionData, type Hex, zeroHash } from "viem";
import type { ChainClient } from "../chains/client.js";
import { easAbi, schemaRegistryAbi } from "../chains/eas-abi.js";
import { multicall3Abi } from "../chains/multicall3-abi.js";
import { MULTICALL3_ADDRESS } from "../chains/registry.js";
import { decodeAggregate3, decodeAttestation } from "./abi-fast.js";

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
  /**
   * The chain's Multicall3 (default: the canonical address); null on a chain without one: one eth_call per read,
   * sent as JSON-RPC batches by the client.
   */
  multicall?: Address | null;
};

/**
 * Reads view calls of one contract with Multicall3 aggregate3: ~100 calls per eth_call, a few eth_calls in flight —
 * never one request per call. A batch that fails as a whole (out of gas: large media make one getAttestation cost up
 * to ~1.2M gas) is split in half until it fits. Returns each call's return data, in order.
 */
export async function readCalls(
  client: ChainClient,
  target: Address,
  calls: readonly Hex[],
  options: ReadOptions,
): Promise<Hex[]> {
  const results: Hex[] = new Array(calls.length);
  const batches: number[] = [];
  for (let i = 0; i < calls.length; i += options.batchSize) batches.push(i);
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      const start = batches[next++]!;
      const batch = calls.slice(start, start + options.batchSize);
      const read =
        options.multicall === null
          ? await readEach(client, target, batch, options.blockNumber)
          : await readBatch(
              client,
              options.multicall ?? MULTICALL3_ADDRESS,
              target,
              batch,
              options.blockNumber,
            );
      read.forEach((r, i) => {
        results[start + i] = r;
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, batches.length) }, worker));
  return results;
}

async function readBatch(
  client: ChainClient,
  multicall3: Address,
  target: Address,
  calls: readonly Hex[],
  blockNumber: bigint | undefined,
): Promise<Hex[]> {
  const splitInHalf = async () => {
    const half = Math.ceil(calls.length / 2);
    return [
      ...(await readBatch(client, multicall3, target, calls.slice(0, half), blockNumber)),
      ...(await readBatch(client, multicall3, target, calls.slice(half), blockNumber)),
    ];
  };
  let results: readonly { success: boolean; returnData: Hex }[];
  try {
    const { data } = await client.call({
      to: multicall3,
      data: encodeFunctionData({
        abi: multicall3Abi,
        functionName: "aggregate3",
        args: [calls.map((callData) => ({ target, allowFailure: true, callData }))],
      }),
      ...(blockNumber !== undefined ? { blockNumber } : {}),
    });
    if (!data) throw new Error("Multicall3 returned no data (is it deployed on this chain?)");
    results = decodeAggregate3(data);
  } catch (error) {
    // Only a batch too heavy for the node's eth_call gas cap is split; a dead provider fails fast instead of
    // being asked 2n more times.
    if (calls.length === 1 || !isOutOfGas(error)) throw error;
    return splitInHalf();
  }
  // With allowFailure a sub-call that ran out of gas fails alone (EIP-150 keeps 1/64 for the caller): split too.
  if (calls.length > 1 && results.some((r) => !r.success)) return splitInHalf();
  return results.map((r, i) => {
    if (!r.success) throw new Error(`call ${calls[i]!.slice(0, 74)}… failed inside Multicall3`);
    return r.returnData;
  });
}

/**
 * Without Multicall3: every call is its own eth_call, issued together so that a client created with `jsonRpcBatch`
 * sends them as one JSON-RPC batch per HTTP request.
 */
async function readEach(
  client: ChainClient,
  target: Address,
  calls: readonly Hex[],
  blockNumber: bigint | undefined,
): Promise<Hex[]> {
  const results = await Promise.all(
    calls.map((data) =>
      client.call({ to: target, data, ...(blockNumber !== undefined ? { blockNumber } : {}) }),
    ),
  );
  return results.map(({ data }, i) => {
    if (!data) throw new Error(`call ${calls[i]!.slice(0, 74)}… returned no data`);
    return data;
  });
}

/**
 * A reader of records by uid: one call to the contract per uid (readCalls), each answer decoded and keyed by the
 * lowercase uid; a uid the contract does not know (it answers the zero uid) maps to null.
 */
const readByUid =
  <T extends { uid: string }>(call: (uid: Hex) => Hex, decode: (data: Hex) => T) =>
  async (
    client: ChainClient,
    target: Address,
    uids: readonly Hex[],
    options: ReadOptions,
  ): Promise<Map<string, T | null>> => {
    const data = await readCalls(client, target, uids.map(call), options);
    return new Map(
      uids.map((uid, i) => {
        const read = decode(data[i]!);
        return [uid.toLowerCase(), read.uid === zeroHash ? null : read];
      }),
    );
  };

/** Reads attestations from EAS (readByUid). */
export const readAttestations = readByUid(
  (uid) => encodeFunctionData({ abi: easAbi, functionName: "getAttestation", args: [uid] }),
  decodeAttestation,
);

export type RegisteredSchema = { uid: string; resolver: string; revocable: boolean; schema: string };

/** Reads schema records from the SchemaRegistry (readByUid). */
export const readSchemas = readByUid(
  (uid) => encodeFunctionData({ abi: schemaRegistryAbi, functionName: "getSchema", args: [uid] }),
  (data): RegisteredSchema => {
    const r = decodeFunctionResult({ abi: schemaRegistryAbi, functionName: "getSchema", data });
    return {
      uid: r.uid.toLowerCase(),
      resolver: r.resolver.toLowerCase(),
      revocable: r.revocable,
      schema: r.schema,
    };
  },
);
