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

/**
 * What every link of one request shares, worked out once per request (a page builds several links, and each would
 * otherwise resolve the base URL, parse a URL and re-split the query string): the base URL, its origin, which plain paths are
 * joined to, and the raw query pairs with their decoded keys.
 */
type LinkBase = { base: string; origin: string; pairs: { pair: string; key: string }[] };
const linkBases = new WeakMap<Request, LinkBase>();

function linkBase(request: Request): LinkBase {
  let base = linkBases.get(request);
  if (!base) {
    const search = requestUrl(request).search.replace(/^\?/, "");
    const url = baseUrl(request);
    base = {
      base: url,
      origin: new URL(`${url}/`).origin,
      pairs: (search ? search.split("&").filter(Boolean) : []).map((pair) => ({ pair, key: keyOf(pair) })),
    };
    linkBases.set(request, base);
  }
  return base;
}

/**
 * A path URL resolution leaves as it is: segments of unreserved characters and percent escapes, none empty, none
 * starting with a dot. Such a path is joined to the origin as text; any other goes through URL, which normalises it.
 */
const PLAIN_PATH = /^(?:\/(?!\.)(?:[A-Za-z0-9._~-]|%[0-9A-Fa-f]{2})+)*\/?$/;

/** An absolute URL for `path` with the given query parameters (undefined values are left out). */
export function absoluteUrl(
  request: Request,
  path: string,
  params: Record<string, string | number | undefined> = {},
): string {
  const { base, origin } = linkBase(request);
  const entries = Object.entries(params).filter(([, value]) => value !== undefined);
  if (origin !== "null" && path.startsWith("/") && PLAIN_PATH.test(path) && entries.length === 0)
    return `${origin}${path}`;
  const url = new URL(path, `${base}/`);
  for (const [key, value] of entries) url.searchParams.set(key, String(value));
  return url.toString();
}

/**
 * Links that carry the request's other query parameters exactly as the client sent them: each `key=value` pair of
 * the raw query string is kept byte for byte (percent-encoding included), only the named keys are replaced.
 * Re-serialising through URLSearchParams would re-encode values (a `+` or `%20` can change meaning for some
 * clients; QGIS Server's own next links corrupt percent-encoded values this way, and break paging).
 * `drop` removes keys without replacing them, e.g. a dynamic path segment that reached the function as a query
 * parameter (`uid` on Vercel and in the local router): it belongs to the path, never to a link's query.
 */
export function linkWith(
  request: Request,
  path: string,
  set: Record<string, string | number | undefined>,
  drop: readonly string[] = [],
): string {
  const kept: string[] = [];
  for (const { pair, key } of linkBase(request).pairs) {
    if (!Object.hasOwn(set, key) && !drop.includes(key)) kept.push(pair);
  }
  for (const [key, value] of Object.entries(set)) {
    if (value !== undefined) kept.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  }
  const query = kept.join("&");
  return `${absoluteUrl(request, path)}${query ? `?${query}` : ""}`;
}

function keyOf(pair: string): string {
  const raw = pair.split("=", 1)[0] ?? "";
  try {
    return decodeURIComponent(raw.replace(/\+/g, " "));
  } catch {
    return raw;
  }
}
