import { htmlResponse } from "../html/layout.js";
import type { Format } from "../http/format.js";
import { absoluteUrl } from "../http/links.js";
import { json } from "../http/respond.js";

/**
 * One OGC resource in the negotiated encoding: the JSON document (with the strong ETag of its bytes), or its HTML
 * view rendered from it. The items pages write their own bodies (lib/ogc/items.ts, featureCollectionResponse).
 */
export function ogcResponse<T>(
  format: Format,
  doc: T,
  html: (doc: T) => string,
  contentType?: string,
): Response {
  if (format === "html") return htmlResponse(html(doc));
  return json(doc, contentType ? { contentType: `${contentType}; charset=utf-8` } : {});
}

/** Absolute links for the HTML views. */
export const hrefFor = (request: Request) => (path: string) => absoluteUrl(request, path);
