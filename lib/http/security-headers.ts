/** Sent on every response, errors included. */
const SECURITY_HEADERS: Record<string, string> = {
  "strict-transport-security": "max-age=63072000; includeSubDomains",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

/** JSON is never rendered, so it gets the strictest policy; HTML pages set their own. */
const DEFAULT_CSP = "default-src 'none'; frame-ancestors 'none'";

export function withSecurityHeaders(headers: Headers): Headers {
  for (const [key, value] of Object.entries(SECURITY_HEADERS)) headers.set(key, value);
  if (!headers.has("content-security-policy")) headers.set("content-security-policy", DEFAULT_CSP);
  return headers;
}
