import { withSecurityHeaders } from "./security-headers.js";

/** CORS for the public read endpoints: any origin may read; nothing is credentialed. */
export const CORS_HEADERS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, HEAD, OPTIONS",
  "access-control-allow-headers": "Accept, Content-Type, If-None-Match, X-API-Key",
  "access-control-expose-headers":
    "ETag, Link, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset",
  "access-control-max-age": "86400",
};

/** Answers a CORS preflight for a public route (export it as OPTIONS). */
export async function preflight(_request: Request): Promise<Response> {
  return new Response(null, { status: 204, headers: withSecurityHeaders(new Headers(CORS_HEADERS)) });
}
