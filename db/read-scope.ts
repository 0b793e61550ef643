import { AsyncLocalStorage } from "node:async_hooks";

/*
 * Read replicas (DATABASE_READ_URL). The public reads (every GET and HEAD of a public route: lib/http/route.ts) run
 * inside readScope and take their database from here; the sync, the cron and every write never enter it, so they
 * always use DATABASE_URL, the primary.
 *
 * Why the answers stay consistent while a replica lags (docs/deploy.md, "Read replicas"):
 * - One request reads one replica: its page, its count and its statistics come from one server, whose replay only
 *   moves forward. The remembered counts and statistics are kept per database handle (lib/proofs/remembered.ts)
 *   under the snapshot the replica itself reports, so a count remembered on one server is never served with the
 *   rows of another, and never with rows read under a different snapshot.
 * - One client reads one replica: the replica is chosen by the client's address, so a cursor walk, whose every page
 *   comes from the same replica, never sees the data go backwards (as it could between two replicas of different
 *   lag). A client without a known address (an in-process call) reads the first replica.
 */

const readScope = new AsyncLocalStorage<{ key: string }>();

/** Runs a public read: the database calls inside it go to the replica chosen for `key` (the client's address). */
export function readingFromReplica<T>(key: string | undefined, work: () => Promise<T>): Promise<T> {
  return readScope.run({ key: key ?? "" }, work);
}

/** FNV-1a: a stable, well-spread choice of replica per client. */
export function bucket(key: string, n: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % n;
}

/** The key of the public read in progress (its client's address, or ""), or undefined outside one. */
export const readKey = (): string | undefined => readScope.getStore()?.key;
