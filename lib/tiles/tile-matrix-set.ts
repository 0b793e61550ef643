import type { Link } from "../ogc/vocabulary.js";

/**
 * WebMercatorQuad, the one tile matrix set served: OGC's registered definition (OGC Two Dimensional Tile Matrix Set
 * and Tileset Metadata 2.0), Web Mercator (EPSG:3857) with 256-pixel tiles, 2^z × 2^z tiles at zoom z,
 * row 0 at the north. Its 25 tile matrices are the registered ones; the tilesets say which of them they serve
 * (lib/tiles/tileset.ts).
 */
export const WEB_MERCATOR_QUAD = "WebMercatorQuad";
export const TILE_MATRIX_SET_IDS = [WEB_MERCATOR_QUAD] as const;
export const WEB_MERCATOR_QUAD_URI = "http://www.opengis.net/def/tilematrixset/OGC/1.0/WebMercatorQuad";
export const EPSG_3857 = "http://www.opengis.net/def/crs/EPSG/0/3857";

/** The registered set's tile matrices: zooms 0 to 24. */
const REGISTERED_MAX_ZOOM = 24;
/** Half the projected world's width, in metres: π × the WGS 84 semi-major axis. */
const ORIGIN = 20037508.3427892;
/** A pixel's size at zoom 0 in metres, and the standard rendering pixel (0.28 mm) that scale denominators assume. */
const CELL_SIZE_0 = (2 * ORIGIN) / 256;
const STANDARD_PIXEL_M = 0.00028;

export type TileMatrix = {
  id: string;
  scaleDenominator: number;
  cellSize: number;
  cornerOfOrigin: "topLeft";
  pointOfOrigin: [number, number];
  tileWidth: number;
  tileHeight: number;
  matrixWidth: number;
  matrixHeight: number;
};

export const tileMatrix = (z: number): TileMatrix => ({
  id: String(z),
  scaleDenominator: CELL_SIZE_0 / 2 ** z / STANDARD_PIXEL_M,
  cellSize: CELL_SIZE_0 / 2 ** z,
  cornerOfOrigin: "topLeft",
  pointOfOrigin: [-ORIGIN, ORIGIN],
  tileWidth: 256,
  tileHeight: 256,
  matrixWidth: 2 ** z,
  matrixHeight: 2 ** z,
});

/** GET /api/ogc/tileMatrixSets/WebMercatorQuad: the definition, as the TMS 2.0 JSON encoding writes it. */
export function tileMatrixSetDocument(links: Link[]) {
  return {
    id: WEB_MERCATOR_QUAD,
    title: "Google Maps Compatible for the World",
    uri: WEB_MERCATOR_QUAD_URI,
    crs: EPSG_3857,
    orderedAxes: ["X", "Y"],
    wellKnownScaleSet: "http://www.opengis.net/def/wkss/OGC/1.0/GoogleMapsCompatible",
    boundingBox: { lowerLeft: [-ORIGIN, -ORIGIN], upperRight: [ORIGIN, ORIGIN], crs: EPSG_3857 },
    tileMatrices: Array.from({ length: REGISTERED_MAX_ZOOM + 1 }, (_, z) => tileMatrix(z)),
    links,
  };
}
