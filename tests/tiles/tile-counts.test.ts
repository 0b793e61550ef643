import { eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client.js";
import { locationProofs } from "../../db/schema.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { loadSyntheticProofs } from "../../lib/local/synthetic-proofs.js";
import type { ProofFilter } from "../../lib/proofs/filter.js";
import { encodeTile } from "../../lib/tiles/mvt.js";
import { tileContent, tileContentFromRows } from "../../lib/tiles/tile-content.js";
import { COUNTS_MAX_ZOOM, countsAnswer, TILE_COUNT_LEVELS } from "../../lib/tiles/tile-pyramid.js";
import type { TileAddress } from "../../lib/tiles/web-mercator.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

/**
 * proof_tile_counts, the per-cell counts the tiles up to COUNTS_MAX_ZOOM read their clusters from, against the
 * proofs themselves: for every tile of the low zooms and the crowded tiles of the others, the tile made from the
 * counts is byte for byte the tile made from the rows (the same clusters at the same positions, or the same points),
 * after inserts, a revocation and deletes alike.
 */
let app: TestApp;
const END = new Date("2026-06-01T00:00:00Z");
const OGC: ProofFilter = { includeRevoked: true, bboxMatchesMissing: true, timesMatchMissing: true };

beforeAll(async () => {
  app = await createTestApp();
  await insertProofs(app.db, sampleProofs({ count: 150, seed: 5, now: END }));
  await loadSyntheticProofs(app.db, { count: 2500, end: END, days: 60, batch: 700 });
});
afterAll(() => app?.close());

/** Every tile of zooms 0 to 3, and down to COUNTS_MAX_ZOOM the tiles of a few crowded places. */
function tiles(): TileAddress[] {
  const out: TileAddress[] = [];
  for (let z = 0; z <= 3; z++)
    for (let x = 0; x < 2 ** z; x++) for (let y = 0; y < 2 ** z; y++) out.push({ z, x, y });
  for (const [lon, lat] of [
    [139.6917, 35.6895],
    [77.209, 28.6139],
    [-46.6333, -23.5505],
    [0, 0],
  ] as const) {
    for (let z = 4; z <= COUNTS_MAX_ZOOM; z++) {
      const n = 2 ** z;
      const s = Math.sin((lat * Math.PI) / 180);
      out.push({
        z,
        x: Math.floor(((lon + 180) / 360) * n),
        y: Math.floor((0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * n),
      });
    }
  }
  return out;
}

/** Equal tiles; returns the zooms of the clusters tiles among them. */
async function expectCountsMatchRows(filter: ProofFilter): Promise<number[]> {
  const clusterZooms: number[] = [];
  for (const t of tiles()) {
    expect(countsAnswer(filter, t)).toBe(true);
    const fromCounts = await tileContent(app.db, t, filter);
    const fromRows = await tileContentFromRows(app.db, t, filter);
    expect(encodeTile(fromCounts), `${t.z}/${t.x}/${t.y}`).toEqual(encodeTile(fromRows));
    if (fromCounts.kind === "clusters") clusterZooms.push(t.z);
  }
  return clusterZooms;
}

/** Clusters tiles of an even zoom (read from level z + 3) and of an odd one (level z + 4, 2 × 2 cells added up). */
const bothLevels = (zooms: number[]) => [zooms.some((z) => z % 2 === 0), zooms.some((z) => z % 2 === 1)];

describe("tiles from the counts are the tiles from the rows", () => {
  it("keeps the levels the tiles read", async () => {
    const levels = await queryRows<{ level: number }>(
      app.db,
      sql`select distinct level from proof_tile_counts order by level`,
    );
    expect(levels.map((r) => Number(r.level))).toEqual([...TILE_COUNT_LEVELS]);
  });

  it("for every proof and for a chain", async () => {
    expect(bothLevels(await expectCountsMatchRows(OGC))).toEqual([true, true]);
    expect(await expectCountsMatchRows({ ...OGC, chains: ["base"] })).toContain(0);
    await expectCountsMatchRows({ ...OGC, chains: ["celo", "sepolia"] });
  });

  it("after a revocation (no change) and deletes (fewer proofs)", async () => {
    const [some] = await queryRows<{ uid: string }>(app.db, sql`select uid from location_proofs limit 1`);
    await app.db.update(locationProofs).set({ revoked: true }).where(eq(locationProofs.uid, some!.uid));
    const victims = await queryRows<{ uid: string }>(
      app.db,
      sql`select uid from location_proofs where chain = 'base' and longitude between 130 and 150 limit 200`,
    );
    expect(victims.length).toBeGreaterThan(50);
    await app.db.delete(locationProofs).where(
      inArray(
        locationProofs.uid,
        victims.map((v) => v.uid),
      ),
    );
    expect(bothLevels(await expectCountsMatchRows(OGC))).toEqual([true, true]);
    await expectCountsMatchRows({ ...OGC, chains: ["base"] });
  });

  it("is not used for a filter the counts cannot answer, nor beyond their zooms", () => {
    const t = { z: 2, x: 1, y: 1 };
    expect(countsAnswer({ ...OGC, times: [{ start: END }] }, t)).toBe(false);
    expect(countsAnswer({ ...OGC, prover: "0x0000000000000000000000000000000000000001" }, t)).toBe(false);
    expect(countsAnswer({ ...OGC, where: [sql`true`] }, t)).toBe(false);
    expect(countsAnswer({ ...OGC, includeRevoked: false }, t)).toBe(false);
    expect(countsAnswer(OGC, { z: COUNTS_MAX_ZOOM + 1, x: 0, y: 0 })).toBe(false);
  });
});

/**
 * The table itself against the same totals recomputed from the rows, written independently of the triggers (the uid
 * parts by JavaScript's BigInt, the pixels by SQL): after inserts, after an update that moves proofs to other cells
 * (the update trigger's two halves), and after deletes.
 */
describe("proof_tile_counts equals its totals recomputed from the rows", () => {
  const key = (r: { level: unknown; x: unknown; y: unknown; chain: unknown }) =>
    `${r.level}/${r.x}/${r.y}/${r.chain}`;
  const signed = (hex: string) => BigInt.asIntN(64, BigInt(`0x${hex}`));
  async function expectTotalsMatchRows(): Promise<void> {
    type Total = { level: number; x: number; y: number; chain: string; n: string; sx: string; sy: string };
    const stored = await queryRows<Total & { u0: string; u1: string; u2: string; u3: string }>(
      app.db,
      sql`select level, x, y, chain, n::text, sx::text, sy::text, u0::text, u1::text, u2::text, u3::text
        from proof_tile_counts where n <> 0`,
    );
    const proofs = await queryRows<{ uid: string; chain: string; wx: string; wy: string }>(
      app.db,
      sql`select uid, chain, proof_tile_wx(longitude)::text as wx, proof_tile_wy(latitude)::text as wy
        from location_proofs where longitude is not null`,
    );
    const expected = new Map<string, { n: bigint; sx: bigint; sy: bigint; u: bigint[] }>();
    for (const p of proofs) {
      const parts = [0, 1, 2, 3].map((k) => signed(p.uid.slice(2 + 16 * k, 18 + 16 * k)));
      for (const level of TILE_COUNT_LEVELS) {
        const shift = BigInt(32 - level);
        const k = key({ level, x: BigInt(p.wx) >> shift, y: BigInt(p.wy) >> shift, chain: p.chain });
        const t = expected.get(k) ?? { n: 0n, sx: 0n, sy: 0n, u: [0n, 0n, 0n, 0n] };
        t.n += 1n;
        t.sx += BigInt(p.wx);
        t.sy += BigInt(p.wy);
        t.u = t.u.map((u, i) => u ^ parts[i]!);
        expected.set(k, t);
      }
    }
    expect(stored.length).toBe(expected.size);
    for (const r of stored) {
      const t = expected.get(key(r));
      expect(t, key(r)).toBeDefined();
      expect([r.n, r.sx, r.sy, r.u0, r.u1, r.u2, r.u3], key(r)).toEqual(
        [t!.n, t!.sx, t!.sy, ...t!.u].map(String),
      );
    }
  }

  it("after inserts, a move to other cells, and deletes", async () => {
    await expectTotalsMatchRows();
    const moved = await queryRows<{ uid: string }>(
      app.db,
      sql`select uid from location_proofs where longitude is not null order by uid limit 300`,
    );
    await app.db.execute(
      sql`update location_proofs set longitude = longitude / 2 + 1, latitude = latitude / 3 - 2
        where uid in (${sql.join(
          moved.map((m) => sql`${m.uid}`),
          sql`, `,
        )})`,
    );
    await expectTotalsMatchRows();
    await app.db.delete(locationProofs).where(
      inArray(
        locationProofs.uid,
        moved.slice(0, 100).map((m) => m.uid),
      ),
    );
    await expectTotalsMatchRows();
  });
});
