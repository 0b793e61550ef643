import { absoluteUrl } from "../http/links.js";

/**
 * Links that carry the request's other query parameters exactly as the client sent them: each `key=value` pair of
 * the raw query string is kept byte for byte (percent-encoding included), only the named keys are replaced.
 * Re-serialising through URLSearchParams would re-encode values (a `+` or `%20` can change meaning for some
 * clients; QGIS corrupts paging exactly this way, see peers.md).
 * `drop` removes keys without replacing them, e.g. a dynamic path segment that reached the function as a query
 * parameter (`uid` on Vercel and in the local router): it belongs to the path, never to a link's query.
 */
export function linkWith(
  request: Request,
  path: string,
  set: Record<string, string | number | undefined>,
  drop: readonly string[] = [],
): string {
  const replaced = new Set([...Object.keys(set), ...drop]);
  const kept = rawPairs(request).filter((pair) => !replaced.has(keyOf(pair)));
  const added = Object.entries(set)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  const query = [...kept, ...added].join("&");
  return `${absoluteUrl(request, path)}${query ? `?${query}` : ""}`;
}

/** The raw `key=value` pairs of the query string, in order, still encoded. */
function rawPairs(request: Request): string[] {
  const search = new URL(request.url).search.replace(/^\?/, "");
  return search ? search.split("&").filter(Boolean) : [];
}

function keyOf(pair: string): string {
  const raw = pair.split("=", 1)[0] ?? "";
  try {
    return decodeURIComponent(raw.replace(/\+/g, " "));
  } catch {
    return raw;
  }
}
