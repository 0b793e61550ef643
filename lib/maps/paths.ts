import { type CollectionId, OGC_BASE, PATHS } from "../ogc/vocabulary.js";
import { WEB_MERCATOR_QUAD } from "../tiles/tile-matrix-set.js";

/** Where the web-map documents live: TileJSON beside the tileset, styles under the collection (OGC API - Styles). */
export const MAPS_PATHS = {
  landing: OGC_BASE,
  tileJson: (c: CollectionId) => `${PATHS.tileset(c, WEB_MERCATOR_QUAD)}/tilejson`,
  styles: (c: CollectionId) => `${PATHS.collection(c)}/styles`,
  style: (c: CollectionId, id: string) => `${PATHS.collection(c)}/styles/${id}`,
};

/** The one style of the proofs, and its media type (OGC API - Styles: a Mapbox/MapLibre style sheet). */
export const DEFAULT_STYLE = "proofs";
export const STYLE_MEDIA = "application/vnd.mapbox.style+json";
export const TILEJSON_MEDIA = "application/json";
