import { getConfig } from "../config.js";
import { log } from "../log.js";
import { authorizeRestricted } from "./auth.js";
import { CORS_HEADERS } from "./cors.js";
import { getRateLimiter, type RateLimitOutcome, rateLimitHeaders, tooManyRequests } from "./rate-limit.js";
import { errorResponse } from "./respond.js";
import { withSecurityHeaders } from "./security-headers.js";

export type Handler = (request: Request) => Promise<Response>;

export type RouteOptions = {
  /**
   * public: anyone may read it (CORS, CDN caching with ETag/304, rate limited: lib/http/rate-limit.ts).
   * restricted: sync and cron endpoints (bearer CRON_SECRET: lib/http/auth.ts; never cached, no CORS).
   */
  access: "public" | "restricted";
  /** Public responses are CDN-cacheable unless this is false (e.g. /health must reflect the present). */
  cache?: boolean;
};

/** Data changes about once a minute (the sync cron), so the CDN may serve a response for 30 s, then revalidate. */
const PUBLIC_CACHE_CONTROL = "public, max-age=0, s-maxage=30, stale-while-revalidate=30";

/**
 * Wraps a route handler with what every route shares: access (rate limit or restricted-endpoint auth, before the
 * handler runs), errors become JSON responses in one place, shared headers (security, CORS, caching, rate limit),
 * conditional requests, and one structured log line per request.
 */
export function route(handler: Handler, options: RouteOptions): Handler {
  return async (request: Request): Promise<Response> => {
    const started = performance.now();
    let response: Response;
    // The rate-limit headers are computed once, so a 429's message and its Retry-After always agree.
    let limitHeaders: Record<string, string> = {};
    try {
      if (options.access === "restricted") authorizeRestricted(request);
      else {
        const limit: RateLimitOutcome = await getRateLimiter().check(request);
        limitHeaders = rateLimitHeaders(limit);
        if (limit.state === "limited") throw tooManyRequests(limit, limitHeaders);
      }
      response = await handler(request);
    } catch (error) {
      response = errorResponse(error, request);
    }
    response = finish(request, response, options, limitHeaders);
    log("info", "request", {
      method: request.method,
      path: new URL(request.url).pathname,
      status: response.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
    });
    return response;
  };
}

function finish(
  request: Request,
  response: Response,
  options: RouteOptions,
  extraHeaders: Record<string, string>,
): Response {
  const headers = new Headers(response.headers);
  for (const [key, value] of Object.entries(extraHeaders)) headers.set(key, value);
  withSecurityHeaders(headers);
  const cacheable =
    options.access === "public" &&
    options.cache !== false &&
    request.method === "GET" &&
    response.status === 200;
  if (options.access === "public") {
    for (const [key, value] of Object.entries(CORS_HEADERS)) headers.set(key, value);
  }
  if (!headers.has("cache-control"))
    headers.set("cache-control", cacheable ? PUBLIC_CACHE_CONTROL : "no-store");
  if (cacheable) {
    // Absolute links follow the forwarded headers unless PUBLIC_BASE_URL is set (lib/http/links.ts): a cache must
    // then key on them too, or one client's forged X-Forwarded-Host would be served to everyone.
    headers.append(
      "vary",
      getConfig().publicBaseUrl ? "Accept" : "Accept, X-Forwarded-Host, X-Forwarded-Proto",
    );
    const etag = headers.get("etag");
    if (etag && matchesEtag(request.headers.get("if-none-match"), etag)) {
      return new Response(null, { status: 304, headers });
    }
  } else {
    headers.delete("etag");
  }
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** If-None-Match holds a list of entity tags, or `*`; weak comparison as RFC 9110 prescribes for it. */
function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === "*") return true;
  const bare = (tag: string) => tag.trim().replace(/^W\//, "");
  return ifNoneMatch.split(",").some((tag) => bare(tag) === bare(etag));
}
