import type { Server } from "node:http";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serve } from "../../lib/local/http-server.js";
import { createRouter } from "../../lib/local/router.js";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import { appWith, ROOT, type TestApp } from "../helpers/app.js";
import { hasVarnish, startVarnish, type Varnish } from "../helpers/varnish.js";

/**
 * A real HTTP cache in front (issue 39's outside truth): Debian's Varnish with its built-in VCL, only the backend
 * configured, in front of the local server. What the service's headers say must be what a shared cache does:
 * public answers are kept and revalidated, errors and restricted endpoints never are, a tile URL that carries the
 * data version is kept across changes, and a revocation reaches the map's TileJSON within one cron interval.
 * Skipped where varnishd is not installed (.ci/run installs it). tests/helpers/varnish.ts starts it, as bench:cdn does.
 */
const BASE = "/api/ogc/collections/location-proofs";
const CRON_INTERVAL_MS = 60_000;
let app: TestApp;
let origin: Server;
let varnish: Varnish | undefined;
let front = "";
/** The requests that reached the origin, path and query. */
const reached: string[] = [];
const originSaw = (path: string) => reached.filter((p) => p === path).length;

appWith(sampleProofs({ count: 60, seed: 3939, now: new Date("2026-05-01T00:00:00Z") }), (a) => {
  app = a;
});

beforeAll(async () => {
  if (!hasVarnish) return;
  const router = createRouter(ROOT);
  const started = await serve(
    {
      ...router,
      handle: (request: Request) => {
        const url = new URL(request.url);
        reached.push(url.pathname + url.search);
        return router.handle(request);
      },
    },
    0,
  );
  origin = started.server;
  varnish = await startVarnish(Number(new URL(started.url).port));
  front = varnish.url;
}, 60_000);

afterAll(async () => {
  varnish?.stop();
  if (origin) await new Promise<void>((done) => origin.close(() => done()));
});

const through = (path: string, headers: Record<string, string> = {}) => fetch(`${front}${path}`, { headers });

/** The tile URL template the TileJSON names, as a path with its query (the data version v). */
async function tileTemplate(): Promise<string> {
  const response = await through(`${BASE}/tiles/WebMercatorQuad/tilejson`);
  expect(response.status).toBe(200);
  const url = new URL(((await response.json()) as { tiles: string[] }).tiles[0]!);
  return decodeURI(url.pathname + url.search);
}

describe.skipIf(!hasVarnish)("Varnish in front of the service", () => {
  it("keeps a public page: the origin answers it once, a conditional request is a 304 from the cache", async () => {
    const path = `${BASE}/items?limit=5`;
    const first = await through(path);
    expect(first.status).toBe(200);
    const etag = first.headers.get("etag");
    expect(etag).toBeTruthy();
    await first.arrayBuffer();
    const second = await through(path);
    expect(second.status).toBe(200);
    await second.arrayBuffer();
    expect(Number(second.headers.get("age") ?? "0")).toBeGreaterThanOrEqual(0);
    expect(second.headers.get("x-varnish")?.split(" ")).toHaveLength(2); // a hit names the request and the object
    const conditional = await through(path, { "if-none-match": etag! });
    expect(conditional.status).toBe(304);
    expect(originSaw(path)).toBe(1);
  });

  it("never keeps an error or a restricted endpoint", async () => {
    const errors = [`${BASE}/items?bbox=1,2,3`, `/api/v0/location-proofs/0x${"ab".repeat(32)}`, "/api/sync"];
    for (const path of errors) {
      const statuses: number[] = [];
      for (let i = 0; i < 2; i++) {
        const response = await through(path);
        await response.arrayBuffer();
        statuses.push(response.status);
      }
      expect(
        statuses.every((s) => s >= 400),
        `${path}: ${statuses}`,
      ).toBe(true);
      expect(originSaw(path), path).toBe(2);
    }
  });

  it(
    "keeps a versioned tile across a change, and a revocation reaches the TileJSON within one cron interval",
    async () => {
      const before = await tileTemplate();
      expect(before).toMatch(/[?&]v=/);
      const tile = before.replace("{z}/{x}/{y}", "0/0/0");
      for (let i = 0; i < 2; i++) {
        const response = await through(tile);
        expect(response.status).toBe(200);
        expect(response.headers.get("cache-control")).toContain("immutable");
        await response.arrayBuffer();
      }
      expect(originSaw(tile)).toBe(1);

      const revokedAt = Date.now();
      await app.db.execute(
        sql`update location_proofs set revoked = true, revocation_time = now()
          where uid = (select uid from location_proofs where not revoked order by uid limit 1)`,
      );
      let after = before;
      while (after === before && Date.now() - revokedAt < CRON_INTERVAL_MS + 5_000) {
        await new Promise((r) => setTimeout(r, 1_000));
        after = await tileTemplate();
      }
      const reachedIn = Date.now() - revokedAt;
      expect(after, "the TileJSON names a new version").not.toBe(before);
      expect(reachedIn).toBeLessThanOrEqual(CRON_INTERVAL_MS);
      // The old version's tile is still what it was: kept, not asked again.
      await (await through(tile)).arrayBuffer();
      expect(originSaw(tile)).toBe(1);
    },
    CRON_INTERVAL_MS + 30_000,
  );
});
