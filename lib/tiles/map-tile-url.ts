import { tileVersion } from "../data-version/tile-version.js";
import { requestUrl } from "../http/request-url.js";
import { type Collection, PATHS } from "../ogc/vocabulary.js";
import { WEB_MERCATOR_QUAD } from "./tile-matrix-set.js";
import { TILE_FILTER_NAMES } from "./tile-rules.js";

/**
 * The tile URL a web map of `request`'s page uses, relative to the origin, in the {z}/{x}/{y} form: the request's
 * filter parameters (TILE_FILTER_NAMES) kept byte for byte, every other one (the page's limit, cursor, sortby, …)
 * left out, as a tile would refuse it; then the data version (lib/data-version/tile-version.ts).
 */
export function mapTileUrl(request: Request, collection: Collection): string {
  const query = filterQuery(request);
  const version = tileVersion();
  const versioned = version ? `${query ? `${query}&` : "?"}v=${version}` : query;
  return `${PATHS.tileset(collection.id, WEB_MERCATOR_QUAD)}/{z}/{x}/{y}${versioned}`;
}

/** The style sheet (lib/maps/style.ts) a web map of `request`'s page loads, with the page's filters as mapTileUrl. */
export const mapStyleUrl = (request: Request, collection: Collection): string =>
  `${PATHS.collection(collection.id)}/styles/proofs${filterQuery(request)}`;

function filterQuery(request: Request): string {
  const search = requestUrl(request).search.replace(/^\?/, "");
  const kept = (search ? search.split("&") : []).filter((pair) =>
    (TILE_FILTER_NAMES as readonly string[]).includes(pair.split("=", 1)[0] ?? ""),
  );
  return kept.length ? `?${kept.join("&")}` : "";
}
