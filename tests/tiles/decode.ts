import { VectorTile } from "@mapbox/vector-tile";
import { PbfReader } from "pbf";
import { CLUSTERS_LAYER, POINTS_LAYER } from "../../lib/tiles/tile-rules.js";

/** A tile as the maintained decoder reads it (@mapbox/vector-tile, MapLibre's): each layer's features. */
export type DecodedFeature = { x: number; y: number; type: number; properties: Record<string, unknown> };
export type DecodedTile = {
  layers: string[];
  points: DecodedFeature[];
  clusters: DecodedFeature[];
  /** proofs the tile holds: its points, or its clusters' counts */
  total: number;
  extent: number;
};

export function decodeTile(bytes: Uint8Array): DecodedTile {
  const tile = new VectorTile(new PbfReader(bytes));
  const read = (name: string) => {
    const layer = tile.layers[name];
    if (!layer) return [];
    return Array.from({ length: layer.length }, (_, i) => {
      const f = layer.feature(i);
      const geometry = f.loadGeometry();
      if (geometry.length !== 1 || geometry[0]!.length !== 1)
        throw new Error("a feature of one point expected");
      const p = geometry[0]![0]!;
      return { x: p.x, y: p.y, type: f.type, properties: f.properties as Record<string, unknown> };
    });
  };
  const points = read(POINTS_LAYER);
  const clusters = read(CLUSTERS_LAYER);
  return {
    layers: Object.keys(tile.layers).sort(),
    points,
    clusters,
    total: points.length + clusters.reduce((n, c) => n + Number(c.properties.count), 0),
    extent: (tile.layers[POINTS_LAYER] ?? tile.layers[CLUSTERS_LAYER])?.extent ?? 4096,
  };
}
