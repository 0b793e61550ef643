import { absoluteUrl, linkWith } from "../http/links.js";
import type { Collection, Link } from "../ogc/vocabulary.js";
import { TILE_ROUTE_PARAMS } from "../tiles/tile-params.js";
import { CLUSTERS_LAYER, POINTS_LAYER } from "../tiles/tile-rules.js";
import { DEFAULT_STYLE, MAPS_PATHS, STYLE_MEDIA } from "./paths.js";

/**
 * The MapLibre style of a collection's proofs, served as OGC API - Styles core: the styles list of the collection,
 * its default style, and the style sheet itself (application/vnd.mapbox.style+json, MapLibre's style spec v8; tests
 * validate it with @maplibre/maplibre-gl-style-spec). The source is the collection's TileJSON, with the request's
 * filter parameters, so a style of a filtered map draws that filter. It needs no sprites or fonts: clusters are discs
 * whose size grows with their count, proofs red points as on the service's own map.
 */

/** The request's filter parameters, kept (as every tile link keeps them), without f or path parameters. */
const filtered = (request: Request, path: string) =>
  linkWith(request, path, { f: undefined }, ["f", "styleId", ...TILE_ROUTE_PARAMS]);

export function styleSheet(request: Request, collection: Collection) {
  return {
    version: 8,
    name: `${collection.title}: clusters and points`,
    metadata: { "lpqs:collection": collection.id },
    sources: {
      proofs: {
        type: "vector",
        url: filtered(request, MAPS_PATHS.tileJson(collection.id)),
        attribution: "Location Proof Query Service",
      },
    },
    layers: [
      {
        id: "clusters",
        type: "circle",
        source: "proofs",
        "source-layer": CLUSTERS_LAYER,
        paint: {
          "circle-radius": ["step", ["get", "count"], 9, 10, 12, 100, 15, 1000, 18, 10000, 21],
          "circle-color": "#d32f2f",
          "circle-opacity": 0.85,
          "circle-stroke-color": "#ffffff",
          "circle-stroke-width": 2,
        },
      },
      {
        id: "points",
        type: "circle",
        source: "proofs",
        "source-layer": POINTS_LAYER,
        paint: {
          "circle-radius": 6,
          "circle-color": ["case", ["==", ["get", "revoked"], true], "#868e96", "#d32f2f"],
          "circle-stroke-color": "#ffffff",
          "circle-stroke-width": 1.5,
        },
      },
    ],
  };
}

/** GET …/collections/{id}/styles: the styles of the collection (one) and which is the default. */
export function stylesDocument(request: Request, collection: Collection) {
  const sheet = filtered(request, MAPS_PATHS.style(collection.id, DEFAULT_STYLE));
  const links: Link[] = [
    {
      href: filtered(request, MAPS_PATHS.styles(collection.id)),
      rel: "self",
      type: "application/json",
      title: "These styles",
    },
    {
      href: absoluteUrl(request, `/api/ogc/collections/${collection.id}`),
      rel: "collection",
      type: "application/json",
      title: "The collection",
    },
  ];
  return {
    default: DEFAULT_STYLE,
    styles: [
      {
        id: DEFAULT_STYLE,
        title: "Clusters and points",
        links: [
          { href: sheet, rel: "stylesheet", type: STYLE_MEDIA, title: "MapLibre / Mapbox style" },
          { href: sheet, rel: "http://www.opengis.net/def/rel/ogc/1.0/stylesheet", type: STYLE_MEDIA },
        ],
      },
    ],
    links,
  };
}
