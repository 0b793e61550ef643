import { describe, expect, it } from "vitest";
import { CHAIN_NAMES } from "../../lib/chains/registry.js";
import { encodeTile } from "../../lib/tiles/mvt.js";
import type { TilePoint } from "../../lib/tiles/tile-content.js";
import { CLUSTER_GRID, MAX_POINTS, MEMO_CHARS, TILE_BYTES_BOUND } from "../../lib/tiles/tile-rules.js";
import { decodeTile } from "./decode.js";

/** The documented bound of a tile's size, against the largest tiles the rules allow. */
const hex = (n: number, digits: number, salt: string) =>
  `0x${`${salt}${n.toString(16)}`.padStart(digits, "f").slice(-digits)}`;

describe("a tile's size", () => {
  it("stays under TILE_BYTES_BOUND with MAX_POINTS points whose every value is as long as it can be", () => {
    const longestChain = CHAIN_NAMES.reduce((a, b) => (b.length > a.length ? b : a));
    const points: TilePoint[] = Array.from({ length: MAX_POINTS }, (_, i) => ({
      px: (i * 97) % 4096,
      py: (i * 389) % 4096,
      properties: {
        uid: hex(i, 64, "a"),
        chain: longestChain,
        prover: hex(i, 40, "b"),
        event_timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
        revoked: i % 2 === 0,
        // Four-byte characters (an emoji), MEMO_CHARS of them, different on every proof.
        memo: `${String.fromCodePoint(0x1f600 + (i % 64)).repeat(MEMO_CHARS - 4)}${String(i).padStart(4, "0")}`,
      },
    }));
    const bytes = encodeTile({ kind: "points", points });
    expect(decodeTile(bytes).points).toHaveLength(MAX_POINTS);
    expect(bytes.length).toBeGreaterThan(TILE_BYTES_BOUND / 2);
    expect(bytes.length).toBeLessThanOrEqual(TILE_BYTES_BOUND);
  });

  it("is a few kilobytes for a full grid of clusters, one per cell", () => {
    const clusters = Array.from({ length: CLUSTER_GRID * CLUSTER_GRID }, (_, i) => ({
      px: (i % CLUSTER_GRID) * 512 + 511,
      py: Math.floor(i / CLUSTER_GRID) * 512 + 511,
      count: i % 2 ? 1 : 1_000_000 + i,
      uid: i % 2 ? hex(i, 64, "c") : null,
    }));
    const bytes = encodeTile({ kind: "clusters", clusters, total: 0 });
    expect(decodeTile(bytes).clusters).toHaveLength(CLUSTER_GRID * CLUSTER_GRID);
    expect(bytes.length).toBeLessThan(8 * 1024);
  });
});

describe("a point's properties", () => {
  it("leaves out a null value (MVT has no null) and keeps the others, in order", () => {
    const properties = {
      uid: hex(1, 64, "d"),
      chain: "base",
      prover: hex(1, 40, "e"),
      event_timestamp: null,
      revoked: false,
      memo: null,
    };
    const decoded = decodeTile(encodeTile({ kind: "points", points: [{ px: 1, py: 2, properties }] }));
    expect(decoded.points).toHaveLength(1);
    expect(decoded.points[0]!.properties).toEqual({
      uid: properties.uid,
      chain: "base",
      prover: properties.prover,
      revoked: false,
    });
    expect(Object.keys(decoded.points[0]!.properties)).toEqual(["uid", "chain", "prover", "revoked"]);
  });
});
