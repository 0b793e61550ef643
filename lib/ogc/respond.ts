import { json } from "../http/respond.js";
import type { Format } from "./format.js";
import { htmlResponse } from "./html/page.js";

/** One OGC resource in the negotiated encoding: the JSON document, or its HTML view rendered from it. */
export function ogcResponse<T>(
  format: Format,
  doc: T,
  html: (doc: T) => string,
  contentType?: string,
): Response {
  if (format === "html") return htmlResponse(html(doc));
  return json(doc, contentType ? { contentType: `${contentType}; charset=utf-8` } : {});
}
