import { notFound } from "../http/errors.js";
import { routeParam } from "../http/query.js";
import { json } from "../http/respond.js";
import type { Collection } from "../ogc/vocabulary.js";
import { tileMatrixSetOf } from "../tiles/tile-params.js";
import { DEFAULT_STYLE, STYLE_MEDIA } from "./paths.js";
import { styleSheet, stylesDocument } from "./style.js";
import { tileJsonDocument } from "./tilejson.js";

/** The web-map documents as responses (the one call their route files make). JSON only: they are for map clients. */

export const tileJsonResource = (request: Request, collection: Collection) => {
  tileMatrixSetOf(request);
  return json(tileJsonDocument(request, collection));
};

export const stylesResource = (request: Request, collection: Collection) =>
  json(stylesDocument(request, collection));

export const styleResource = (request: Request, collection: Collection) => {
  const id = routeParam(request, "styleId");
  if (id !== DEFAULT_STYLE)
    throw notFound(`No style with that id in collection ${collection.id} (the style is ${DEFAULT_STYLE})`);
  return json(styleSheet(request, collection), { contentType: `${STYLE_MEDIA}; charset=utf-8` });
};
