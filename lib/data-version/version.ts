import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import { type SQL, sql } from "drizzle-orm";
import { type Db, getDb, queryRows } from "../../db/client.js";
import { statementsSent } from "../budget/request-budget.js";
import { CHAIN_DEFINITIONS } from "../chains/registry.js";
import { baseUrl } from "../http/links.js";
import { requestUrl } from "../http/request-url.js";
import { withSnapshotIfAny } from "../proofs/remembered.js";
import { SNAPSHOT_TEXT } from "../proofs/rows.js";
import { canonicalPath } from "../v0/paths.js";
import { VERSION } from "../version.js";

/*
 * The data's version: what changes when, and only when, what a data response shows can change. The database keeps
 * it (table data_versions, db/migrations/0005_data_versions.sql): one counter per chain, moved by statement triggers
 * in the transaction of every write of proof rows (a sync batch, a revocation, a reorg's rewind, a re-decoding, a
 * deletion, the loader) and of every schema decision; chain 0 holds what belongs to no chain. A writer the triggers
 * do not see (an off-chain publication) calls bumpDataVersion in its own transaction.
 *
 * The version of a request is the sum of the counters of its scope: every chain (plus chain 0), or one chain (plus
 * chain 0) when the request's `chain` filter names exactly one. The sum grows with every commit that moves one of
 * its counters, in whatever order concurrent writers commit.
 *
 * Replicas: the version is read with the request's own database handle, inside its read scope (db/read-scope.ts),
 * before the handler reads any row or in the same statement as the first rows it reads (a list's page: one snapshot
 * for both, and one round trip for the request instead of two). A replica's replay only moves forward, so the rows a
 * response shows are at least as new as the version its validators name: a client never holds a version newer than
 * its rows (it may hold rows newer than their version, which costs it one 200 more, never a stale 304). A version
 * read after some rows could be newer than them: such a response names no version (withVersionCarried).
 */

export type DataVersion = {
  /** the sum of the scope's counters, as decimal digits */
  version: string;
  /** the scope's last change and the database's clock, in seconds since the epoch */
  changedAt: number | undefined;
  now: number;
  /**
   * The MVCC snapshot the version was read under, and the handle it was read with (absent on a server without
   * pg_current_snapshot()): read before the request's rows, it is a valid key of the remembered counts
   * (lib/proofs/count.ts), which then need no statement of their own to check one.
   */
  read?: { db: Db; snapshot: string };
};

/** Writers the triggers do not cover (an off-chain publication): moves the versions of `chainIds` (0: no chain). */
export async function bumpDataVersion(db: Db, chainIds: readonly number[] = [0]): Promise<void> {
  const list = sql.join(
    chainIds.map((id) => sql`${id}::int`),
    sql`, `,
  );
  await db.execute(sql`select bump_data_version(array[${list}]::int[])`);
}

/**
 * The select list that reads a scope's version (one chain and chain 0, or everything when `chainId` is undefined):
 * uncorrelated subqueries, so a statement of its own (readDataVersion) or a page's statement that carries it
 * (carryDataVersion) evaluates each once (an InitPlan) whatever else it reads.
 */
function versionColumns(chainId: number | undefined): SQL {
  const where = chainId === undefined ? sql`` : sql` where chain_id in (0, ${chainId}::int)`;
  return sql`(select coalesce(sum(version), 0)::text from data_versions${where}) as "dv_version", (select extract(epoch from max(changed_at))::float8 from data_versions${where}) as "dv_changed", extract(epoch from now())::float8 as "dv_now"`;
}

type VersionRow = { dv_version?: string | null; dv_changed?: number | null; dv_now?: number | null };

/** The version a row of versionColumns holds, and the snapshot its statement ran under when it read one. */
function versionOf(row: VersionRow | undefined, db: Db, snapshot: string | undefined): DataVersion {
  return {
    version: row?.dv_version ?? "0",
    changedAt: row?.dv_changed == null ? undefined : Number(row.dv_changed),
    now: Number(row?.dv_now ?? Date.now() / 1000),
    ...(snapshot ? { read: { db, snapshot } } : {}),
  };
}

/** The version of a scope, and the snapshot it was read under (DataVersion.read): one statement. */
export async function readDataVersion(db: Db, chainId?: number): Promise<DataVersion> {
  const row = await withSnapshotIfAny(db, async (snapshot) => {
    const [found] = await queryRows<VersionRow & { snapshot?: string }>(
      db,
      sql`select ${versionColumns(chainId)}${snapshot ? sql`, (select ${SNAPSHOT_TEXT}) as snapshot` : sql``}`,
    );
    return found;
  });
  return versionOf(row, db, row?.snapshot);
}

const CHAIN_IDS = new Map(CHAIN_DEFINITIONS.map((c) => [c.name, c.chainId]));

/** The chain whose version a request's data depends on: its `chain` filter when that names exactly one chain. */
export function chainScopeOf(request: Request): number | undefined {
  const chains = requestUrl(request).searchParams.getAll("chain");
  if (chains.length !== 1) return undefined;
  const names = chains[0]!.split(",").map((s) => s.trim());
  return names.length === 1 ? CHAIN_IDS.get(names[0]!) : undefined;
}

/** The version of a request's scope, read from the request's database (its replica, inside its read scope). */
export const requestScopeVersion = async (request: Request): Promise<DataVersion> =>
  readDataVersion(await getDb(), chainScopeOf(request));

/**
 * A request's version, as its handler sees it: read before the handler (withDataVersion), or still to be read
 * (withVersionCarried) by the first statement of the handler's page (carryDataVersion), or by a statement of its own
 * before any other (ensureDataVersion).
 */
type RequestVersion = {
  version?: DataVersion;
  /** A version still to be read: its scope, and the statements the request had sent when its handler began. */
  deferred?: { chainId: number | undefined; sentAtStart: number };
  /** A page's statement took it on (carryDataVersion), whether or not its row brought it (carriedDataVersion). */
  claimed?: boolean;
  /** A statement may have read rows older than the version: the response gets no validators from it. */
  unsafe?: boolean;
  reading?: Promise<DataVersion>;
};

const current = new AsyncLocalStorage<RequestVersion>();

/** Runs a versioned request's handler knowing its version (tile URLs carry it: lib/tiles/tileset.ts). */
export const withDataVersion = <T>(version: DataVersion, work: () => Promise<T>): Promise<T> =>
  current.run({ version }, work);

/**
 * Runs a versioned request's handler with its version not yet read, when the request counts its statements (within
 * its budget, lib/budget/request-budget.ts): the handler's first statement may carry it (a list's page), which saves
 * the request a round trip; a handler that reads anything else first calls ensureDataVersion. `version`: the version
 * the response's validators may name, none when it was never read or a statement may have read rows older than it.
 * Without a count of statements the version is read first, as withDataVersion does.
 */
export async function withVersionCarried<T>(
  request: Request,
  work: () => Promise<T>,
): Promise<{ result: T; version: DataVersion | undefined }> {
  const chainId = chainScopeOf(request);
  const sentAtStart = statementsSent();
  if (sentAtStart === undefined) {
    const version = await requestScopeVersion(request);
    return { result: await withDataVersion(version, work), version };
  }
  const state: RequestVersion = { deferred: { chainId, sentAtStart } };
  const result = await current.run(state, work);
  return { result, version: state.unsafe ? undefined : state.version };
}

/**
 * The current request's version, read now (a statement of its own) when it is still to be read; undefined outside a
 * versioned request. Called before a handler's first statement, the version is older than every row the request
 * reads. Called later (a statement, or a page that carried nothing, went first), it may be newer than rows already
 * read, and the response names no version: never one newer than its rows.
 */
export async function ensureDataVersion(): Promise<DataVersion | undefined> {
  const state = current.getStore();
  if (!state || state.version) return state?.version;
  state.reading ??= (async () => {
    const deferred = state.deferred!;
    if (state.claimed || statementsSent() !== deferred.sentAtStart) state.unsafe = true;
    state.version = await readDataVersion(await getDb(), deferred.chainId);
    return state.version;
  })();
  return state.reading;
}

/**
 * The select list that carries the current request's version in a page's statement, when no statement has gone
 * before it; undefined when the version is known, not to be carried, or too late to carry. The caller sends it in its
 * next statement, on the request's own handle (getDb(), the read scope's), then hands that statement's first row to
 * carriedDataVersion.
 */
export function carryDataVersion(): SQL | undefined {
  const state = current.getStore();
  const deferred = state?.deferred;
  if (!deferred || state.version || state.claimed || state.reading) return undefined;
  if (statementsSent() !== deferred.sentAtStart) return undefined;
  state.claimed = true;
  return sql`${versionColumns(deferred.chainId)}, `;
}

/**
 * The version a carrying statement's first row brought (none when it found no row: the request then names no
 * version), read under that statement's snapshot (`snapshot`, when it read one).
 */
export function carriedDataVersion(
  db: Db,
  row: Record<string, unknown> | undefined,
  snapshot: string | undefined,
): void {
  const state = current.getStore();
  if (!state?.claimed || state.version || !row || row.dv_version === undefined) return;
  state.version = versionOf(row as VersionRow, db, snapshot);
}

/** The version the current request has read, or undefined outside a versioned request or before it is read. */
export const requestDataVersion = (): DataVersion | undefined => current.getStore()?.version;

/**
 * The snapshot the current request's version was read under, when it was read with `db` (DataVersion.read); a
 * version still to be read is read now, before the caller's statements (ensureDataVersion).
 */
export async function requestSnapshot(db: Db): Promise<string | undefined> {
  const read = (await ensureDataVersion())?.read;
  return read?.db === db ? read.snapshot : undefined;
}

/**
 * The resource an ETag holds for: its own URL only (so a bad request is never a 304 of another URL's ETag). An alias
 * and its twin (/api/v0/location-records…, /api/v0/location-proofs…) are one resource, and so are a uid's spellings
 * in either case; the query is kept as sent, since a filter's literals are case-sensitive (the 200's own ETag,
 * appended to the variant, still tells different bodies apart).
 */
function resourceOf(request: Request): string {
  const url = requestUrl(request);
  // A uid is in the path as sent, and in the query too where the router passes a file route's [uid] segment there.
  const lowerUids = (text: string) => text.replace(UID_IN_URL, (uid) => uid.toLowerCase());
  return lowerUids(canonicalPath(url.pathname)) + lowerUids(url.search);
}

const UID_IN_URL = /(?<=[/=])0x[0-9a-f]{64}(?=[/&]|$)/gi;

/**
 * What else a response depends on than the data: the URL, the deployment (its code), the representation chosen, and
 * the UTC day.
 */
function variantOf(request: Request): string {
  const h = request.headers;
  const parts = [
    process.env.VERCEL_DEPLOYMENT_ID ?? process.env.VERCEL_GIT_COMMIT_SHA ?? VERSION,
    resourceOf(request),
    // No Accept is the same as `*/*` (RFC 9110 12.5.1); a client library may send either for one request.
    h.get("accept")?.trim() || "*/*",
    // The HTML pages' time filters are whole UTC days up to today (lib/ogc/html/views.ts).
    new Date().toISOString().slice(0, 10),
    // The origin every absolute link is built from (lib/http/links.ts): the same whichever headers named it.
    baseUrl(request),
  ];
  return createHash("sha1").update(parts.join("\n")).digest("base64url").slice(0, 12);
}

/**
 * The ETag: the version, the representation, then the ETag of the body when the handler made one (its strength is
 * the ETag's). A conditional request naming this version is a 304 before any row is read (notModified); one naming
 * an older version whose body has not changed (a tile far from the new proofs) is a 304 once the body is made
 * (sameBody). Without a body's ETag the ETag is weak: two 200s of one version may differ in bytes (an OGC page's
 * timeStamp) while saying the same thing.
 */
export function etagOf(request: Request, v: DataVersion, bodyTag?: string | null): string {
  const body = bodyTag?.replace(/^W\//, "").replace(/^"|"$/g, "");
  const weak = !body || bodyTag!.startsWith("W/");
  return `${weak ? "W/" : ""}"${v.version}-${variantOf(request)}${body ? `-${body}` : ""}"`;
}

/** The entity tags of an If-None-Match, without W/ and quotes. */
const tagsOf = (inm: string) => inm.split(",").map((t) => t.trim().replace(/^W\//, "").replace(/^"|"$/g, ""));

/**
 * Last-Modified: the second after the scope's last change, so an If-Modified-Since of it is later than that change
 * (HTTP dates have whole seconds). Sent only when that second is over a second ago by the database's clock: a later
 * change could then still be given a time within the second the client was told.
 */
export function lastModifiedOf(v: DataVersion): Date | undefined {
  if (v.changedAt === undefined) return undefined;
  const second = Math.floor(v.changedAt) + 1;
  return second <= v.now - 1 ? new Date(second * 1000) : undefined;
}

/**
 * Whether a conditional GET or HEAD can be answered 304 from the version alone, and the ETag that 304 carries:
 * If-None-Match holds an ETag of this version and representation (weak comparison, RFC 9110 13.1.2), which the 304
 * gives back as it came (its body's part is the client's to keep); without If-None-Match, If-Modified-Since is a
 * valid date, not in the future, and the scope has not changed since (RFC 9110 13.1.3).
 */
export function notModified(request: Request, v: DataVersion): string | undefined {
  const inm = request.headers.get("if-none-match");
  if (inm !== null) {
    const prefix = `${v.version}-${variantOf(request)}`;
    const held = inm
      .split(",")
      .map((t) => t.trim())
      .find((t) => {
        const bare = t.replace(/^W\//, "").replace(/^"|"$/g, "");
        return bare === prefix || bare.startsWith(`${prefix}-`);
      });
    // `*` is left to the handler: only an answer that exists may be a 304 (a bad request is its 400).
    return held;
  }
  const ims = request.headers.get("if-modified-since");
  if (ims === null || v.changedAt === undefined) return undefined;
  const since = Date.parse(ims) / 1000;
  return Number.isFinite(since) && since <= v.now && v.changedAt < since ? etagOf(request, v) : undefined;
}

/** Whether If-None-Match holds an ETag of another version whose representation and body are this one's. */
export function sameBody(request: Request, etag: string): boolean {
  const inm = request.headers.get("if-none-match");
  const [, rest] = tagsOf(etag)[0]!.split(/-(.*)/s);
  if (inm === null || !rest?.includes("-")) return false;
  return tagsOf(inm).some((t) => t.split(/-(.*)/s)[1] === rest);
}
