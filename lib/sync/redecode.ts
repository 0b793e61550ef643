import { and, eq, sql } from "drizzle-orm";
import type { Hex } from "viem";
import { locationProofs } from "../../db/schema.js";
import { LOCATION_SCHEMA_UID } from "../chains/schema.js";
import { DECODER_VERSION, decodedColumns, V01_DECODING } from "./decode-attestation.js";
import { commitRedecode } from "./store/redecode.js";
import { decodingOf, type KnownSchemas, type Stage } from "./stream.js";

const BATCH = 500;

/**
 * Rows an older decoder wrote (decoder_version below DECODER_VERSION: rows indexed before this version) are decoded
 * again from their stored data, against their schema: normalised location types, decode warnings, protocol versions
 * and whatever the decoder now reads better. No RPC; a few hundred rows per transaction under the lease, found
 * through a partial index that is empty once done. Returns whether none is left.
 */
export async function redecode(stage: Stage, schemas: KnownSchemas): Promise<boolean> {
  const p = locationProofs;
  for (;;) {
    if (stage.outOfBudget()) return false;
    const rows = await stage.db
      .select({ uid: p.uid, schemaUid: p.schemaUid, data: p.data })
      .from(p)
      // A literal, so that the plan can use the partial index (whose predicate is that literal).
      .where(
        and(
          eq(p.chainId, stage.chain.chainId),
          sql`${p.decoderVersion} < ${sql.raw(String(DECODER_VERSION))}`,
        ),
      )
      .limit(BATCH);
    if (rows.length === 0) return true;
    const decodable = rows.filter((r) => schemas.has(r.schemaUid) || r.schemaUid === LOCATION_SCHEMA_UID);
    await commitRedecode(stage.db, {
      ...stage.writer,
      rows: decodable.map((r) => ({
        uid: r.uid,
        // v0.1 rows of a chain whose schema list does not name v0.1 (indexed before schemas were kept) too.
        ...decodedColumns(
          schemas.has(r.schemaUid) ? decodingOf(schemas, r.schemaUid) : V01_DECODING,
          r.data as Hex,
        ),
      })),
    });
    // A schema this chain no longer knows (forgotten after a reorg): its rows keep what they have.
    const rest = rows.filter((r) => !decodable.includes(r));
    if (rest.length) {
      await stage.db
        .update(p)
        .set({ decoderVersion: DECODER_VERSION })
        .where(and(eq(p.chainId, stage.chain.chainId), sql`${p.uid} in ${rest.map((r) => r.uid)}`));
    }
    stage.schemaOutcome.redecoded += rows.length;
    if (rows.length < BATCH) return true;
  }
}
