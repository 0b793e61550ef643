import { absoluteUrl } from "../http/links.js";
import type { Collection } from "../ogc/vocabulary.js";
import { proofProperty } from "../proofs/properties.js";
import { CLUSTERS_LAYER, MAX_POINTS, POINTS_LAYER, TILE_PROPERTY_NAMES } from "../tiles/tile-rules.js";
import { tileTemplate } from "../tiles/tileset.js";
import { MAX_LATITUDE, MAX_ZOOM, MIN_ZOOM } from "../tiles/web-mercator.js";
import { MAPS_PATHS } from "./paths.js";

/**
 * A TileJSON 3.0.0 document of a collection's vector tileset (WebMercatorQuad), what MapLibre, OpenLayers and Leaflet
 * plugins read to find the tiles: the same tile URL template as the OGC tileset (with the request's filters), written
 * with TileJSON's {z}/{x}/{y}, its zooms and its two layers. tests/maps/maps.test.ts validates it against the
 * TileJSON 3.0.0 schema.
 */
export function tileJsonDocument(request: Request, collection: Collection) {
  const tiles = tileTemplate(request, collection)
    .replace("{tileMatrix}", "{z}")
    .replace("{tileCol}", "{x}")
    .replace("{tileRow}", "{y}");
  const fields = Object.fromEntries(
    TILE_PROPERTY_NAMES.map((name) => [name, proofProperty(name)!.description]),
  );
  return {
    tilejson: "3.0.0",
    name: `${collection.title} (vector tiles)`,
    description: `Every proof with coordinates: layer ${POINTS_LAYER} in tiles with at most ${MAX_POINTS} matching proofs, else layer ${CLUSTERS_LAYER} (exact counts).`,
    version: "1.0.0",
    scheme: "xyz",
    tiles: [tiles],
    minzoom: MIN_ZOOM,
    maxzoom: MAX_ZOOM,
    bounds: [-180, -MAX_LATITUDE, 180, MAX_LATITUDE],
    center: [0, 20, 1],
    attribution: `<a href="${absoluteUrl(request, MAPS_PATHS.landing)}">Location Proof Query Service</a>`,
    vector_layers: [
      {
        id: POINTS_LAYER,
        description: "One point per proof",
        minzoom: MIN_ZOOM,
        maxzoom: MAX_ZOOM,
        fields,
      },
      {
        id: CLUSTERS_LAYER,
        description: "Clusters: an 8 × 8 grid over a tile, each cell one point with its exact count",
        minzoom: MIN_ZOOM,
        maxzoom: MAX_ZOOM,
        fields: { count: "Number of proofs in the cluster", uid: "The proof's uid when the count is 1" },
      },
    ],
  };
}
