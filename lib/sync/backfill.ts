import type { Hex } from "viem";
import { log } from "../log.js";
import { loadSchemas, startState } from "./discovery.js";
import { applySchemaStates } from "./store/schema-states.js";
import { indexStream, type KnownSchemas, type Stage } from "./stream.js";

/**
 * Schema backfills: a schema that is to be indexed after the chain's cursor passed its first blocks (allowed by the
 * operator later, or discovered late) is indexed alone, from where it starts up to the chain's cursor, with a cursor of
 * its own; then it joins the chain's stream. The chain's cursor and every other schema's are never touched, so
 * allowing a schema (or enabling a chain) costs the others nothing. Returns whether every backfill in reach finished.
 */
export async function backfillSchemas(
  stage: Stage,
  schemas: KnownSchemas,
  chainCursor: number | null,
  only?: readonly string[],
): Promise<boolean> {
  const pending = [...schemas.values()].filter(
    (s) => s.state === "backfill" && (!only || only.includes(s.uid)),
  );
  for (const s of pending) {
    const from = (s.backfillCursor ?? (s.backfillFrom ?? stage.chain.startBlock) - 1) + 1;
    if (chainCursor === null || from > chainCursor) {
      // Nothing left below the chain's cursor (it was rewound, or never moved): the schema joins the stream.
      await applySchemaStates(stage.db, {
        ...stage.writer,
        upserts: [{ ...s, state: "live", backfillFrom: null, backfillCursor: null }],
        off: [],
      });
      stage.schemaOutcome.joined.push(s.uid);
      s.state = "live";
      continue;
    }
    const done = await indexStream(stage, schemas, {
      uids: [s.uid as Hex],
      from,
      target: chainCursor,
      rangeSize: null,
      backfillOf: s.uid,
    });
    if (!done.complete) return false;
    s.state = "live";
  }
  return true;
}

/**
 * `npm run backfill -- <chain> --schema <uid>`: the named schemas are (re)indexed alone from where they start (or
 * `from`) up to the chain's cursor. Each must be one the operator's settings index on this chain.
 */
export async function startBackfills(
  stage: Stage,
  schemas: KnownSchemas,
  request: { uids: readonly string[]; from?: number },
  chainCursor: number | null,
): Promise<void> {
  const upserts = request.uids.map((uid) => {
    const s = schemas.get(uid);
    if (!s || s.state === "off") {
      throw new Error(
        `schema ${uid} is not indexed on ${stage.chain.name}: allow it (SCHEMA_ALLOW), or check SCHEMA_DENY and SCHEMA_MODE`,
      );
    }
    const start =
      request.from === undefined
        ? startState(stage.chain, chainCursor, s.registeredBlock)
        : { state: "backfill", backfillFrom: request.from, backfillCursor: request.from - 1 };
    return { ...s, ...start };
  });
  await applySchemaStates(stage.db, { ...stage.writer, upserts, off: [] });
  log("info", "schemas: backfill requested", {
    chain: stage.chain.name,
    schemas: upserts.map((u) => ({ uid: u.uid, state: u.state, from: u.backfillFrom })),
  });
  for (const [uid, row] of await loadSchemas(stage.db, stage.chain.chainId)) schemas.set(uid, row);
}
