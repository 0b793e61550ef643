import { getConfig } from "../config.js";
import { requestUrl } from "./request-url.js";

/**
 * The absolute base URL every link is built from: PUBLIC_BASE_URL when configured, else the forwarded headers a
 * proxy or the platform sets, else the request's own origin.
 */
export function baseUrl(request: Request): string {
  const configured = getConfig().publicBaseUrl;
  if (configured) return configured;
  const url = requestUrl(request);
  const host = firstValue(request.headers.get("x-forwarded-host")) ?? request.headers.get("host") ?? url.host;
  const proto = firstValue(request.headers.get("x-forwarded-proto")) ?? url.protocol.replace(/:$/, "");
  // Only plain host[:port] values are accepted, so a forged header cannot inject a path or scheme into links.
  const safeHost = /^[A-Za-z0-9.\-[\]:]+$/.test(host) ? host : url.host;
  const safeProto = proto === "http" || proto === "https" ? proto : url.protocol.replace(/:$/, "");
  return `${safeProto}://${safeHost}`;
}

const firstValue = (header: string | null): string | undefined => header?.split(",")[0]?.trim() || undefined;

/** An absolute URL for `path` with the given query parameters (undefined values are left out). */
export function absoluteUrl(
  request: Request,
  path: string,
  params: Record<string, string | number | undefined> = {},
): string {
  const url = new URL(path, `${baseUrl(request)}/`);
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  return url.toString();
}

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
  const search = requestUrl(request).search.replace(/^\?/, "");
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
