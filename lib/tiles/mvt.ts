import { fromVectorTileJs, type VectorTileFeatureLike, type VectorTileLayerLike } from "@maplibre/vt-pbf";
import type { TileCluster, TileContent, TilePoint } from "./tile-content.js";
import { CLUSTERS_LAYER, POINTS_LAYER } from "./tile-rules.js";
import { TILE_EXTENT } from "./web-mercator.js";

/**
 * A tile as a Mapbox Vector Tile (version 2), encoded by MapLibre's maintained encoder (@maplibre/vt-pbf), with two
 * layers (lib/tiles/tile-rules.ts):
 * - `location-proofs`: one point per proof (uid, chain, prover, event_timestamp, revoked, memo), in a points tile;
 * - `location-proof-clusters`: one point per cluster (count, and uid when the count is one; `approximate` when the
 *   count is estimated, lib/tiles/tile-budget.ts), in a clusters tile.
 * Both are written in every tile, the other one without features (decoders skip a layer without features); a
 * tile without proofs has both so, a valid tile of a few dozen bytes.
 */

const POINT_TYPE = 1;

/** The encoder reads a geometry's x and y only (its Point type is @mapbox/point-geometry's). */
type GeometryPoint = ReturnType<VectorTileFeatureLike["loadGeometry"]>[number][number];

type Properties = Record<string, string | number | boolean>;

/** A point feature as the encoder reads it; a class, so a tile of many points makes no closure per point. */
class PointFeature implements VectorTileFeatureLike {
  readonly type = POINT_TYPE;
  readonly id = undefined;
  readonly extent = TILE_EXTENT;
  constructor(
    private readonly px: number,
    private readonly py: number,
    readonly properties: Properties,
  ) {}
  loadGeometry() {
    return [[{ x: this.px, y: this.py } as GeometryPoint]];
  }
}

const layer = (name: string, features: VectorTileFeatureLike[]): VectorTileLayerLike => ({
  version: 2,
  name,
  extent: TILE_EXTENT,
  length: features.length,
  feature: (i: number) => features[i]!,
});

/**
 * A point's properties as the encoder takes them: the encoder leaves out a null value (MVT has no null: an absent key
 * is one), so they go in as they are.
 */
const pointProperties = (point: TilePoint): Properties => point.properties as Properties;

const clusterProperties = (c: TileCluster): Properties =>
  c.approximate
    ? { count: c.count, approximate: true }
    : c.uid === null
      ? { count: c.count }
      : { count: c.count, uid: c.uid };

export function encodeTile(content: TileContent): Uint8Array {
  const points = content.kind === "points" ? content.points : [];
  const clusters = content.kind === "clusters" ? content.clusters : [];
  return fromVectorTileJs({
    layers: {
      [POINTS_LAYER]: layer(
        POINTS_LAYER,
        points.map((p) => new PointFeature(p.px, p.py, pointProperties(p))),
      ),
      [CLUSTERS_LAYER]: layer(
        CLUSTERS_LAYER,
        clusters.map((c) => new PointFeature(c.px, c.py, clusterProperties(c))),
      ),
    },
  });
}
