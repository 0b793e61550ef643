import { and, asc, count, eq, gte, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { type OffchainRecordRow, offchainRecords as o } from "../../db/schema.js";
import { serializeProof } from "../proofs/properties.js";
import type { ProofRow } from "../proofs/rows.js";

/*
 * Reading off-chain records: by uid, as served, and counted. Free of viem and of the verification code, so the read
 * routes that import it keep their cold start (docs/architecture.md, "Cold start").
 */

/** One off-chain record by uid (the lowest chain id, should two chains hold it), or on the given chain. */
export async function findOffchain(
  db: Db,
  uid: string,
  chainId?: number,
): Promise<OffchainRecordRow | undefined> {
  const [row] = await db
    .select()
    .from(o)
    .where(chainId === undefined ? eq(o.uid, uid) : and(eq(o.uid, uid), eq(o.chainId, chainId)))
    .orderBy(asc(o.chainId))
    .limit(1);
  return row;
}

/**
 * The off-chain record as served: the same members as an on-chain proof (serializeProof), its block and
 * transaction null (it has none), and what only an off-chain record has: `source`, the `signer` (its attester,
 * also `prover`), when it was `published_at`, its offchain `version` and where its signed original is.
 */
export function serializeOffchain(row: OffchainRecordRow, baseUrl: string) {
  const proofLike = { ...row, blockNumber: null, txHash: null } as unknown as ProofRow;
  return {
    ...serializeProof(proofLike),
    source: "offchain" as const,
    signer: row.prover,
    published_at: row.publishedAt.toISOString(),
    timestamped_at: row.timestampedAt?.toISOString() ?? null,
    offchain_version: row.offchainVersion,
    signed_url: `${baseUrl}/api/v0/location-records/${row.uid}/signed`,
  };
}

/** Publications counted: all, and those of the last 24 hours (the stats and the sync status report them). */
export async function publicationCounts(db: Db): Promise<{ total: number; last_24h: number }> {
  const [row] = await db
    .select({
      total: count(),
      last_24h: sql<number>`count(*) filter (where ${gte(o.publishedAt, sql`now() - interval '24 hours'`)})`,
    })
    .from(o);
  return { total: Number(row?.total ?? 0), last_24h: Number(row?.last_24h ?? 0) };
}

/** Which off-chain records an operator removes: listed uids, or every record of an attester; on one chain or any. */
export type RecordRemoval = { uids?: readonly string[]; attester?: string; chainId?: number };

/**
 * Removes off-chain records (scripts/remove-records.ts: an operator's action, never a public one), or with `dryRun`
 * only lists them. One statement: the data version's trigger on the table moves every list's, tile's and count's
 * validators with it, so no cache keeps serving a removed record. Removing a record does not stop its signer from
 * publishing it again: refuse the attester (PUBLISH_MODE=allowlist) for that.
 */
export async function removeRecords(
  db: Db,
  which: RecordRemoval,
  dryRun = false,
): Promise<{ chainId: number; uid: string; attester: string }[]> {
  // Never every record: a removal names its uids or its attester.
  if (!which.uids?.length && !which.attester) throw new Error("a removal names uids or an attester");
  const conditions = [
    which.uids ? inArray(o.uid, [...which.uids]) : undefined,
    which.attester ? eq(o.prover, which.attester) : undefined,
    which.chainId === undefined ? undefined : eq(o.chainId, which.chainId),
  ].filter((c) => c !== undefined);
  const columns = { chainId: o.chainId, uid: o.uid, attester: o.prover };
  const where = and(...conditions);
  return dryRun
    ? db.select(columns).from(o).where(where).orderBy(asc(o.chainId), asc(o.uid))
    : db.delete(o).where(where).returning(columns);
}
