import { createHash, timingSafeEqual } from "node:crypto";
import { type Config, getConfig } from "../config.js";
import { isLoopback, trustedClientIp } from "./client-ip.js";
import { ApiError } from "./errors.js";

/**
 * Access to the restricted endpoints (sync and cron): `Authorization: Bearer $CRON_SECRET`, which is what Vercel
 * cron sends. The rules, in order:
 * - CRON_SECRET set: the bearer token must equal it (constant-time comparison); else 401.
 * - no CRON_SECRET on Vercel (production): 503 — fail closed, never open to the internet by omission.
 * - no CRON_SECRET locally: callers on this machine only (trusted `x-real-ip` in 127.0.0.0/8 or ::1, which the dev
 *   server sets from the socket); a request with no trusted address is an unknown caller and is refused. A request
 *   that carries proxy headers came through a proxy or tunnel on this machine (nginx, ngrok, …) on behalf of someone
 *   else, so its loopback address proves nothing: it is refused too.
 */
export function authorizeRestricted(request: Request, config: Config = getConfig()): void {
  const secret = config.cronSecret;
  if (!secret) {
    if (config.onVercel) {
      throw new ApiError(
        503,
        "ServiceUnavailable",
        "This endpoint is disabled: CRON_SECRET is not configured on this deployment.",
      );
    }
    if (isLoopback(trustedClientIp(request, { onVercel: false })) && !viaProxy(request)) return;
    throw unauthorized(
      "This endpoint is restricted. Set CRON_SECRET and send 'Authorization: Bearer <CRON_SECRET>' " +
        "(without CRON_SECRET, only callers on this machine are accepted).",
    );
  }
  const token = bearerToken(request.headers.get("authorization"));
  if (token === undefined) {
    throw unauthorized("This endpoint is restricted: send 'Authorization: Bearer <CRON_SECRET>'.");
  }
  if (!secretsEqual(token, secret)) throw unauthorized("The bearer token is not valid for this endpoint.");
}

const PROXY_HEADERS = ["forwarded", "x-forwarded-for", "x-forwarded-host", "via"];
const viaProxy = (request: Request): boolean => PROXY_HEADERS.some((h) => request.headers.has(h));

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive, RFC 9110), or undefined. */
export function bearerToken(header: string | null): string | undefined {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? "");
  return match?.[1];
}

/**
 * Constant-time equality that does not leak the secret's length either: both sides are hashed to 32 bytes first,
 * and timingSafeEqual compares the digests.
 */
export function secretsEqual(given: string, expected: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();
  return timingSafeEqual(digest(given), digest(expected));
}

const unauthorized = (message: string) =>
  new ApiError(401, "Unauthorized", message, { headers: { "www-authenticate": 'Bearer realm="sync"' } });
