import { requestUrl } from "../http/request-url.js";

/** Where the native API's OpenAPI document and its rendering live (a module of its own: pages import it cheaply). */
export const OPENAPI_PATH = "/api/v0/openapi.json";
export const DOCS_PATH = "/docs";

/** The native list, and the name Astral's public documentation gives the same resource (served as an alias). */
export const LIST_PATH = "/api/v0/location-proofs";
export const RECORDS_PATH = "/api/v0/location-records";

/**
 * The list path a request came in by: the alias when its path is under RECORDS_PATH, else the native one. Links in
 * a response (next/prev, the page's own) then keep the name the client used. Only these two constants can come
 * out, so nothing of the request's own path text reaches a link.
 */
export function listPathOf(request: Request): string {
  return underAlias(requestUrl(request).pathname.toLowerCase()) ? RECORDS_PATH : LIST_PATH;
}

const underAlias = (path: string) => path === RECORDS_PATH || path.startsWith(`${RECORDS_PATH}/`);

/**
 * The resource a path names: an alias's path read as its twin's (the same answers, so the same validators:
 * lib/data-version/version.ts), any other path as it is.
 */
export const canonicalPath = (path: string): string =>
  underAlias(path) ? `${LIST_PATH}${path.slice(RECORDS_PATH.length)}` : path;
