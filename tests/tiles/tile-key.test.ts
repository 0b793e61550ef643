import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client.js";
import { tileKeyRange } from "../../lib/tiles/tile-sql.js";
import { MAX_ZOOM, MIN_ZOOM, WORLD_BITS } from "../../lib/tiles/web-mercator.js";
import { openTestDb } from "../helpers/test-db.js";

/**
 * The tile key (proof_tile_key, db/migrations/0000_baseline.sql), which finds a tile's proofs through its index,
 * against the world pixel that defines a proof's tile: at every zoom served, the key lies in the key range of exactly
 * the tile its pixel names, for points on tile edges, at the poles and the antimeridian, and spread over the map.
 */
let handle: Awaited<ReturnType<typeof openTestDb>>;
beforeAll(async () => {
  handle = await openTestDb();
});
afterAll(() => handle?.close());

const POINTS: [number, number][] = [
  [0, 0],
  [-180, -90],
  [180, 90],
  [180, 0],
  [-180, 85.0511287798066],
  [179.9999999, -85.06],
  [22.5, 85.5],
  [139.6917, 35.6895],
  [-46.6333, -23.5505],
  [13.405, 52.52],
  [-0.000000001, 0.000000001],
  [90, 1e-310],
  // A spread of points from a fixed sequence, so a failure reproduces.
  ...Array.from({ length: 40 }, (_, i): [number, number] => [
    ((i * 137.508) % 360) - 180,
    ((i * 61.803) % 180) - 90,
  ]),
];

describe("the tile key", () => {
  it("lies in the key range of the tile the world pixel names, at every zoom", async () => {
    const rows = await queryRows<{ lon: number; lat: number; key: string; wx: string; wy: string }>(
      handle.db,
      sql`select lon, lat, proof_tile_key(lon, lat)::text as key, proof_tile_wx(lon)::text as wx,
          proof_tile_wy(lat)::text as wy
        from unnest(${`{${POINTS.map((p) => p[0]).join(",")}}`}::float8[], ${`{${POINTS.map((p) => p[1]).join(",")}}`}::float8[])
          as p(lon, lat)`,
    );
    expect(rows).toHaveLength(POINTS.length);
    for (const r of rows) {
      const key = BigInt(r.key);
      expect(key >= 0n, `${r.lon},${r.lat}`).toBe(true);
      for (let z = MIN_ZOOM; z <= MAX_ZOOM; z++) {
        const shift = BigInt(WORLD_BITS - z);
        const x = Number(BigInt(r.wx) >> shift);
        const y = Number(BigInt(r.wy) >> shift);
        const [first, last] = tileKeyRange({ z, x, y });
        expect(key >= first && key <= last, `${r.lon},${r.lat} at z${z}`).toBe(true);
        // The neighbouring tiles' ranges do not hold it.
        const n = 2 ** z;
        for (const [dx, dy] of [
          [1, 0],
          [0, 1],
          [-1, 0],
          [0, -1],
        ] as const) {
          if (x + dx < 0 || x + dx >= n || y + dy < 0 || y + dy >= n) continue;
          const [f, l] = tileKeyRange({ z, x: x + dx, y: y + dy });
          expect(key >= f && key <= l, `${r.lon},${r.lat} at z${z}, neighbour ${dx},${dy}`).toBe(false);
        }
      }
    }
  });

  it("is null without a point", async () => {
    const [row] = await queryRows<{ a: string | null; b: string | null }>(
      handle.db,
      sql`select proof_tile_key(null, 1)::text as a, proof_tile_key(1, null)::text as b`,
    );
    expect(row).toEqual({ a: null, b: null });
  });

  it("ranges: a tile's four children split its range in four, in order", () => {
    for (const t of [
      { z: 0, x: 0, y: 0 },
      { z: 3, x: 5, y: 2 },
      { z: 17, x: 116_000, y: 51_000 },
    ]) {
      const [first, last] = tileKeyRange(t);
      const children = [0, 1, 2, 3].map((i) =>
        tileKeyRange({ z: t.z + 1, x: 2 * t.x + (i & 1), y: 2 * t.y + (i >> 1) }),
      );
      expect(children[0]![0]).toBe(first);
      expect(children[3]![1]).toBe(last);
      for (let i = 1; i < 4; i++) expect(children[i]![0]).toBe(children[i - 1]![1] + 1n);
    }
  });
});
