import { htmlResponse } from "../html/layout.js";
import type { Format } from "../http/format.js";
import { absoluteUrl } from "../http/links.js";
import { etagOf, json, stringify } from "../http/respond.js";

/**
 * One OGC resource in the negotiated encoding: the JSON document, or its HTML view rendered from it.
 * `volatile` names top-level members that change on every response (the items `timeStamp`): the JSON ETag is then
 * a weak validator of the document without them, so an unchanged page still answers If-None-Match with 304.
 */
export function ogcResponse<T>(
  format: Format,
  doc: T,
  html: (doc: T) => string,
  contentType?: string,
  volatile: readonly (keyof T & string)[] = [],
): Response {
  if (format === "html") return htmlResponse(html(doc));
  const headers: Record<string, string> = {};
  if (volatile.length > 0) {
    const stable = { ...doc } as Record<string, unknown>;
    for (const key of volatile) delete stable[key];
    headers.etag = `W/${etagOf(stringify(stable))}`;
  }
  return json(doc, { headers, ...(contentType ? { contentType: `${contentType}; charset=utf-8` } : {}) });
}

/** Absolute links for the HTML views. */
export const hrefFor = (request: Request) => (path: string) => absoluteUrl(request, path);
