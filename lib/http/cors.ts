import { withSecurityHeaders } from "./security-headers.js";

/**
 * CORS for the public endpoints: any origin may read; nothing is credentialed. The methods are the route's own
 * (GET, HEAD, OPTIONS; POST too where a public route takes one: GraphQL).
 */
export const corsHeaders = (methods: readonly string[]): Record<string, string> => ({
  ...CORS_HEADERS,
  "access-control-allow-methods": methods.join(", "),
});

export const CORS_HEADERS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, HEAD, OPTIONS",
  "access-control-allow-headers": "Accept, Content-Type, If-None-Match, X-API-Key",
  "access-control-expose-headers":
    "ETag, Link, Content-Crs, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Export-Rows, X-Number-Matched, Content-Disposition",
  "access-control-max-age": "86400",
};

/** Answers a CORS preflight for a public route (export it as OPTIONS), with the route's CORS headers. */
export const preflightWith =
  (headers: Record<string, string>) =>
  async (_request: Request): Promise<Response> =>
    new Response(null, { status: 204, headers: withSecurityHeaders(new Headers(headers)) });

export const preflight = preflightWith(CORS_HEADERS);
