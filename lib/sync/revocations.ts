import { and, asc, eq, gt } from "drizzle-orm";
import type { Hex } from "viem";
import type { Db } from "../../db/client.js";
import { locationProofs } from "../../db/schema.js";
import type { ChainClient } from "../chains/client.js";
import type { ChainConfig } from "../chains/registry.js";
import { log } from "../log.js";
import { describeError, logFailure } from "./chain-sync.js";
import type { SyncOptions } from "./options.js";
import { readAttestations } from "./reads.js";
import { finishRun, startRun } from "./store/runs.js";

export type ReconcileResult = {
  chain: string;
  status: "ok" | "partial" | "error";
  /** stored non-revoked proofs compared with the chain */
  checked: number;
  /** proofs found revoked on chain and marked revoked */
  changed: number;
  /** stored proofs EAS does not know (should be none) */
  missing: number;
  /** false when the time budget ran out first; call again to continue */
  complete: boolean;
  blockNumber: number | null;
  durationMs: number;
  error?: string;
};

const PAGE = 1_000;

/**
 * Full revocation reconciliation: every stored, non-revoked proof of the chain is read back from EAS (Multicall3
 * batches, at the confirmed head) and marked revoked when EAS says so. Revoked events already keep the flag current;
 * this is the on-demand safety net (e.g. after a gap in indexing). Pages by uid so memory stays flat.
 */
export async function reconcileRevocations(deps: {
  db: Db;
  chain: ChainConfig;
  client: ChainClient;
  options: SyncOptions;
  trigger: string;
  /** counts RPC requests, for the run history (as in a sync run) */
  requests?: () => number;
}): Promise<ReconcileResult> {
  const { db, chain, client, options } = deps;
  const started = performance.now();
  const requestsAtStart = deps.requests?.() ?? 0;
  const runId = await startRun(db, {
    chainId: chain.chainId,
    chain: chain.name,
    kind: "revocations",
    trigger: deps.trigger,
    startedAt: new Date(),
  });
  const result: ReconcileResult = {
    chain: chain.name,
    status: "ok",
    checked: 0,
    changed: 0,
    missing: 0,
    complete: false,
    blockNumber: null,
    durationMs: 0,
  };
  try {
    const blockNumber = (await client.getBlockNumber({ cacheTime: 0 })) - BigInt(chain.confirmations);
    result.blockNumber = Number(blockNumber);
    let after = "";
    for (;;) {
      if (performance.now() - started > options.timeBudgetMs) break;
      const page = await db
        .select({ uid: locationProofs.uid })
        .from(locationProofs)
        .where(
          and(
            eq(locationProofs.chainId, chain.chainId),
            eq(locationProofs.revoked, false),
            gt(locationProofs.uid, after),
          ),
        )
        .orderBy(asc(locationProofs.uid))
        .limit(PAGE);
      if (page.length === 0) {
        result.complete = true;
        break;
      }
      after = page.at(-1)!.uid;
      const reads = await readAttestations(
        client,
        chain.eas,
        page.map((r) => r.uid as Hex),
        {
          batchSize: options.readBatchSize,
          concurrency: options.readConcurrency,
          blockNumber,
          multicall: chain.multicall3,
        },
      );
      result.checked += page.length;
      for (const { uid } of page) {
        const a = reads.get(uid);
        if (a === null || a === undefined) {
          result.missing++;
          continue;
        }
        if (a.revocationTime === 0n) continue;
        // The block of the revocation is unknown here; it is confirmed, so no rewind needs to undo it.
        const updated = await db
          .update(locationProofs)
          .set({ revoked: true, revocationTime: new Date(Number(a.revocationTime) * 1000) })
          .where(
            and(
              eq(locationProofs.chainId, chain.chainId),
              eq(locationProofs.uid, uid),
              eq(locationProofs.revoked, false),
            ),
          )
          .returning({ uid: locationProofs.uid });
        result.changed += updated.length;
      }
      if (page.length < PAGE) {
        result.complete = true;
        break;
      }
    }
    if (!result.complete) result.status = "partial";
  } catch (error) {
    result.status = "error";
    result.error = describeError(error);
  }
  result.durationMs = Math.round(performance.now() - started);
  await finishRun(db, runId, chain.chainId, {
    status: result.status,
    fromBlock: null,
    toBlock: result.blockNumber,
    attestations: result.checked,
    revocations: result.changed,
    rewound: 0,
    rpcRequests: (deps.requests?.() ?? 0) - requestsAtStart,
    error: result.error ?? null,
  }).catch((error) =>
    logFailure("revocation reconciliation: run history not written", error, {
      chain: chain.name,
      run_id: runId,
    }),
  );
  log(result.status === "error" ? "error" : "info", "revocation reconciliation", {
    chain: chain.name,
    checked: result.checked,
    changed: result.changed,
    missing: result.missing,
    complete: result.complete,
    duration_ms: result.durationMs,
    error: result.error,
  });
  return result;
}
