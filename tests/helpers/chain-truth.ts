import { sql } from "drizzle-orm";
import { createPublicClient, type Hex, http } from "viem";
import { expect } from "vitest";
import { type Db, queryRows } from "../../db/client.js";
import { attestedEvent, revokedEvent } from "../../lib/chains/eas-abi.js";
import { DEVNET_SCHEMA_UIDS } from "../../lib/devnet/schemas.js";

/**
 * The oracle of the fault suites: what the chain says, read straight from anvil (not through a fault proxy, nor with
 * the engine's code), and the invariant the database must satisfy against it after any run, failed or not.
 */
export type Truth = Map<string, { attested: number; revoked: number | null }>;

/**
 * The devnet's location schemas, as the devnet declares them (lib/devnet/schemas.ts: every one but the review schema),
 * not as the engine recognises them: that recognition is what the suites check.
 */
export const LOCATION_SCHEMA_UIDS: readonly string[] = Object.entries(DEVNET_SCHEMA_UIDS)
  .filter(([name]) => name !== "review")
  .map(([, uid]) => uid.toLowerCase());

export async function chainTruth(
  rpcUrl: string,
  eas: Hex,
  schemaUids: readonly string[] = LOCATION_SCHEMA_UIDS,
): Promise<Truth> {
  const client = createPublicClient({ transport: http(rpcUrl) });
  const logs = await client.getLogs({
    address: eas,
    events: [attestedEvent, revokedEvent],
    fromBlock: 0n,
    toBlock: "latest",
  });
  const truth: Truth = new Map();
  for (const log of logs) {
    if (!schemaUids.includes(log.args.schemaUID!.toLowerCase())) continue;
    const uid = log.args.uid!.toLowerCase();
    const block = Number(log.blockNumber);
    if (log.eventName === "Attested") truth.set(uid, { attested: block, revoked: null });
    else truth.get(uid)!.revoked = block;
  }
  return truth;
}

export type DbState = { cursor: number | null; rows: Map<string, boolean> };

/** The devnet's cursor and its indexed proofs (uid → revoked). */
export async function dbState(db: Db, chainId = 31337): Promise<DbState> {
  const [state] = await queryRows<{ cursor: string | null }>(
    db,
    sql`select cursor_block::text as cursor from sync_state where chain_id = ${chainId}`,
  );
  const rows = await queryRows<{ uid: string; revoked: boolean }>(
    db,
    sql`select lower(uid) as uid, revoked from location_proofs where chain_id = ${chainId}`,
  );
  return {
    cursor: state?.cursor == null ? null : Number(state.cursor),
    rows: new Map(rows.map((r) => [r.uid, r.revoked])),
  };
}

/**
 * The rows are exactly the attestations in blocks ≤ cursor (nothing missing, nothing extra), revoked exactly when
 * revoked in a block ≤ cursor.
 */
export function expectTruthUpToCursor(state: DbState, truth: Truth, context: string): void {
  const cursor = state.cursor ?? -1;
  const expected = new Map<string, boolean>();
  for (const [uid, t] of truth) {
    if (t.attested <= cursor) expected.set(uid, t.revoked !== null && t.revoked <= cursor);
  }
  const extra = [...state.rows.keys()].filter((uid) => !expected.has(uid));
  const missing = [...expected.keys()].filter((uid) => !state.rows.has(uid));
  const wrongFlag = [...expected].filter(
    ([uid, revoked]) => state.rows.has(uid) && state.rows.get(uid) !== revoked,
  );
  expect({ extra, missing, wrongFlag }, `${context} (cursor ${state.cursor})`).toEqual({
    extra: [],
    missing: [],
    wrongFlag: [],
  });
}
