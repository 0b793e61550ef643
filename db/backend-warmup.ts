/*
 * One statement that a pooled connection runs once it is reused (node-postgres and Neon alike), so that its server
 * process keeps the memory a statement uses instead of handing it back to the kernel after each one.
 *
 * Why: PostgreSQL allocates a statement's executor memory with glibc's malloc and frees all of it at the statement's
 * end. glibc returns freed memory at the top of the heap to the kernel once it exceeds its trim threshold, which
 * starts at 128 KiB and only rises when a block that malloc had mapped on its own (one of at least the mmap
 * threshold) is freed: the threshold then becomes that block's size, and the trim threshold twice that. A connection
 * whose statements each use and free a megabyte or so (a page of the points filtered by a city's bbox does) but never
 * allocate one block that large stays below it for good: every statement maps its memory afresh and takes a page
 * fault for each 4 KiB of it. Whether a connection escapes depends on what it happened to run first
 * (a count over many rows does), so in a pool some connections do and some do not.
 *
 * Allocating and freeing one block of WARMUP_BYTES raises both thresholds for the process's lifetime (glibc caps the
 * dynamic mmap threshold at 32 MiB, so the block must stay below that); statements whose memory stays under twice
 * that reuse it from then on. The block is `repeat`'s result, computed when the statement runs (the volatile term
 * keeps the planner from folding it into a constant, which would copy it) and freed with it.
 *
 * Writing the block costs a page fault per 4 KiB once, so a connection pays it only when it is reused: at its
 * second checkout (WARM_AT_CHECKOUT). A connection that serves one request and then expires (the pool closes idle
 * ones) never does; one in steady use pays once. PGlite (WebAssembly, its own allocator) has no pool and runs none.
 * Measured by `npm run bench:backends` (docs/performance.md, "Connections that keep their memory").
 */

/** The block a connection's server process allocates and frees once: above what a page's statement uses. */
export const WARMUP_BYTES = 1024 * 1024;

export const BACKEND_WARMUP_SQL = `select octet_length(repeat('x', ${WARMUP_BYTES} + (random() * 0)::int)) as warmed`;

/** The checkout at which a connection is warmed: the first time it is reused. */
export const WARM_AT_CHECKOUT = 2;

/**
 * Runs the warm-up on `client`. It never rejects: a warm-up that fails (a broken connection, a statement cancelled by
 * a slow server's timeout) leaves the connection as it was, and the caller's statement then succeeds or fails on its
 * own, as it would have without one.
 */
async function warmBackend(client: { query(text: string): Promise<unknown> }): Promise<void> {
  try {
    await client.query(BACKEND_WARMUP_SQL);
  } catch {
    // As said above: the connection's next statement tells.
  }
}

/** The checkouts of each connection so far, counted up to WARM_AT_CHECKOUT only. */
const checkouts = new WeakMap<object, number>();

/**
 * What `client`'s checkout waits for: the warm-up at its WARM_AT_CHECKOUT-th, else nothing (every other checkout goes
 * on at once, as the pool handed it over).
 */
function warmupAt(client: object): Promise<void> | undefined {
  const n = (checkouts.get(client) ?? 0) + 1;
  if (n > WARM_AT_CHECKOUT) return undefined;
  checkouts.set(client, n);
  return n === WARM_AT_CHECKOUT
    ? warmBackend(client as { query(text: string): Promise<unknown> })
    : undefined;
}

type ConnectCallback = (error: unknown, client?: object, done?: unknown) => void;

/**
 * A pool whose connections are warmed at their WARM_AT_CHECKOUT-th checkout, before the caller gets them: both of
 * `connect`'s forms (the callback one is what the pool's own `query` uses).
 */
export function warmWhenReused<P extends { connect(...args: any[]): unknown }>(pool: P): P {
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  (pool as { connect: (...args: unknown[]) => unknown }).connect = (...args: unknown[]) => {
    const callback = args[0] as ConnectCallback | undefined;
    if (typeof callback !== "function")
      return (connect() as Promise<object>).then((client) => {
        const warming = warmupAt(client);
        return warming ? warming.then(() => client) : client;
      });
    return connect((error: unknown, client?: object, done?: unknown) => {
      const warming = !error && client ? warmupAt(client) : undefined;
      if (!warming) return callback(error, client, done);
      void warming.then(() => callback(error, client, done));
    });
  };
  return pool;
}
