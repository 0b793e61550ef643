import { absoluteUrl, linkWith } from "../http/links.js";
import type { CollectionId, Link } from "../ogc/vocabulary.js";
import { TILE_ROUTE_PARAMS } from "../tiles/tile-params.js";
import { DEFAULT_STYLE, MAPS_PATHS, STYLE_MEDIA } from "./paths.js";

/**
 * The links to a tiled collection's web-map documents (TileJSON, styles, the default style sheet), which the landing
 * page, the collection and the tileset carry. `keep` keeps the request's filter parameters (the tileset's links do).
 */
export function mapLinks(request: Request, id: CollectionId, keep = false): Link[] {
  const href = (path: string) =>
    keep
      ? linkWith(request, path, { f: undefined }, ["f", ...TILE_ROUTE_PARAMS])
      : absoluteUrl(request, path);
  return [
    {
      href: href(MAPS_PATHS.tileJson(id)),
      rel: "describedby",
      type: "application/json",
      title: `TileJSON 3.0.0 of ${id}`,
    },
    {
      href: href(MAPS_PATHS.styles(id)),
      rel: "http://www.opengis.net/def/rel/ogc/1.0/styles",
      type: "application/json",
      title: `Styles of ${id}`,
    },
    {
      href: href(MAPS_PATHS.style(id, DEFAULT_STYLE)),
      rel: "stylesheet",
      type: STYLE_MEDIA,
      title: `MapLibre style of ${id}`,
    },
  ];
}
