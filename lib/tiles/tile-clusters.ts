import { TILE_EXTENT_BITS, type TileAddress, WORLD_BITS } from "./web-mercator.js";

/** A proof as a tile carries it: where in the tile (0..4095), and the properties of TILE_PROPERTIES. */
export type TilePoint = { px: number; py: number; properties: Record<string, string | boolean | null> };

/**
 * A cluster: where in the tile, how many proofs, and the one proof's uid when there is one; `approximate` when the
 * count is an estimate from a sample of the cell (lib/tiles/tile-budget.ts), never set on an exact count.
 */
export type TileCluster = {
  px: number;
  py: number;
  count: number;
  uid: string | null;
  approximate?: boolean;
};

export type TileContent =
  | { kind: "points"; points: TilePoint[] }
  | { kind: "clusters"; clusters: TileCluster[]; total: number };

export const clustersTile = (clusters: TileCluster[]): TileContent => ({
  kind: "clusters",
  clusters,
  total: clusters.reduce((n, c) => n + c.count, 0),
});

/** A cluster as read: the mean world pixel of its proofs, their number, the uid of a single one. */
export type ClusterRow = { mx: number; my: number; n: number; uid: string | null; approximate?: boolean };

/**
 * The cluster's position in the tile's grid. The mean of pixels inside one cell lies inside it (a cell is convex),
 * and so does its floor.
 */
export function clusterAt(t: TileAddress, r: ClusterRow): TileCluster {
  const unit = 2 ** (WORLD_BITS - t.z - TILE_EXTENT_BITS);
  const tileSize = 2 ** (WORLD_BITS - t.z);
  const inTile = (mean: number, index: number) =>
    Math.min(4095, Math.max(0, Math.floor((Number(mean) - index * tileSize) / unit)));
  const cluster: TileCluster = {
    px: inTile(r.mx, t.x),
    py: inTile(r.my, t.y),
    count: Number(r.n),
    uid: r.uid ?? null,
  };
  if (r.approximate) cluster.approximate = true;
  return cluster;
}
