import { getDb } from "../../db/client.js";
import {
  IMMUTABLE_CACHE_CONTROL,
  IMMUTABLE_CDN_CACHE_CONTROL,
  tileCacheControl,
} from "../data-version/tile-version.js";
import type { Format } from "../http/format.js";
import { absoluteUrl } from "../http/links.js";
import { bytesResponse } from "../http/respond.js";
import { log } from "../log.js";
import { tileMatrixSetHtml, tileMatrixSetsHtml, tilesetHtml, tilesetsHtml } from "../ogc/html/views.js";
import { itemsFilter } from "../ogc/items.js";
import { hrefFor, ogcResponse } from "../ogc/respond.js";
import { type Collection, type Link, MEDIA, PATHS, REL } from "../ogc/vocabulary.js";
import { encodeTile } from "./mvt.js";
import { tileContent } from "./tile-content.js";
import { TILE_MATRIX_SET_IDS, tileMatrixSetDocument, WEB_MERCATOR_QUAD } from "./tile-matrix-set.js";
import { type TileQuery, tileAddressOf, tileMatrixSetOf } from "./tile-params.js";
import { selfAndAlternate, tilesetDocument, tilesetsDocument } from "./tileset.js";

/** The tile resources as responses: the one call each tile route makes after parsing its query. */

/**
 * GET …/tiles/WebMercatorQuad/{z}/{x}/{y}: the tile as MVT, with the validators of the data's version and the
 * public caching of every GET; at a `v` (a version-keyed URL), kept forever (lib/data-version/tile-version.ts). A tile without proofs is a 200 too, an MVT whose
 * layers hold no features: as cacheable as any other.
 */
export async function tileResource(
  request: Request,
  q: TileQuery,
  collection: Collection,
  version?: string,
): Promise<Response> {
  const address = tileAddressOf(request);
  const content = await tileContent(await getDb(), address, itemsFilter(q, collection));
  const tile = encodeTile(content);
  log("debug", "tile", {
    ...address,
    kind: content.kind,
    features: content.kind === "points" ? content.points.length : content.clusters.length,
    bytes: tile.byteLength,
  });
  const response = bytesResponse(Buffer.from(tile.buffer as ArrayBuffer, tile.byteOffset, tile.byteLength), {
    contentType: MEDIA.mvt,
  });
  const cacheControl = tileCacheControl(version);
  if (cacheControl) response.headers.set("cache-control", cacheControl);
  // Vercel's CDN keeps a function's answer for what s-maxage or CDN-Cache-Control say, not max-age alone.
  if (cacheControl === IMMUTABLE_CACHE_CONTROL)
    response.headers.set("cdn-cache-control", IMMUTABLE_CDN_CACHE_CONTROL);
  return response;
}

export const tilesetsResource = (request: Request, format: Format, collection: Collection) =>
  ogcResponse(format, tilesetsDocument(request, collection, format), (doc) =>
    tilesetsHtml(doc, hrefFor(request), collection),
  );

export const tilesetResource = (request: Request, format: Format, collection: Collection) => {
  tileMatrixSetOf(request);
  return ogcResponse(format, tilesetDocument(request, collection, format), (doc) =>
    tilesetHtml(doc, hrefFor(request), collection),
  );
};

const selfLinks = (request: Request, path: string, format: Format, title: string): Link[] =>
  selfAndAlternate((params) => absoluteUrl(request, path, params), format, title);

/** GET /api/ogc/tileMatrixSets */
export const tileMatrixSetsResource = (request: Request, format: Format) =>
  ogcResponse(
    format,
    {
      links: selfLinks(request, PATHS.tileMatrixSets, format, "The tile matrix sets"),
      tileMatrixSets: TILE_MATRIX_SET_IDS.map((id) => {
        const { title, uri, crs } = tileMatrixSetDocument([]);
        return {
          id,
          title,
          uri,
          crs,
          links: [
            { href: absoluteUrl(request, PATHS.tileMatrixSet(id)), rel: REL.self, type: MEDIA.json, title },
          ],
        };
      }),
    },
    (doc) => tileMatrixSetsHtml(doc, hrefFor(request)),
  );

/** GET /api/ogc/tileMatrixSets/{id} */
export const tileMatrixSetResource = (request: Request, format: Format) => {
  const id = tileMatrixSetOf(request);
  const title = id === WEB_MERCATOR_QUAD ? "The WebMercatorQuad tile matrix set" : id;
  return ogcResponse(
    format,
    tileMatrixSetDocument(selfLinks(request, PATHS.tileMatrixSet(id), format, title)),
    (doc) => tileMatrixSetHtml(doc, hrefFor(request)),
  );
};
