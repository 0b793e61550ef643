import { createHash } from "node:crypto";
import { log } from "../log.js";
import { ApiError } from "./errors.js";
import { withSecurityHeaders } from "./security-headers.js";
import { statusText } from "./status-text.js";

const JSON_TYPE = "application/json; charset=utf-8";
export const GEOJSON_TYPE = "application/geo+json; charset=utf-8";

/** Big integers serialise as exact decimal strings; JSON has no lossless number for them. */
export const stringify = (body: unknown): string =>
  JSON.stringify(body, (_key, value) => (typeof value === "bigint" ? value.toString() : value));

/** A strong validator of the exact bytes sent, so a CDN or client can revalidate with If-None-Match. */
export const etagOf = (body: string): string => `"${createHash("sha1").update(body).digest("base64url")}"`;

export type ResponseInit = { status?: number; headers?: Record<string, string>; contentType?: string };

export function textResponse(body: string, init: ResponseInit & { contentType: string }): Response {
  return new Response(body, {
    status: init.status ?? 200,
    headers: { "content-type": init.contentType, etag: etagOf(body), ...init.headers },
  });
}

export function json(body: unknown, init: ResponseInit = {}): Response {
  return textResponse(stringify(body), { ...init, contentType: init.contentType ?? JSON_TYPE });
}

/**
 * The one place an error becomes a response. The body has one shape everywhere:
 * `{ error, code, message, description, parameter? }` — `description` repeats `message` for OGC API clients,
 * which read OGC exceptions as `{ code, description }`. Unknown errors are logged and answered with a generic 500.
 */
export function errorResponse(error: unknown, request?: Request): Response {
  if (error instanceof ApiError) {
    const body: Record<string, unknown> = {
      error: statusText(error.status),
      code: error.code,
      message: error.message,
      description: error.message,
    };
    if (error.extra.parameter !== undefined) body.parameter = error.extra.parameter;
    if (error.extra.details !== undefined) body.details = error.extra.details;
    return new Response(stringify(body), {
      status: error.status,
      headers: withSecurityHeaders(
        new Headers({ "content-type": JSON_TYPE, "cache-control": "no-store", ...error.extra.headers }),
      ),
    });
  }
  log("error", "unhandled error", {
    path: request ? new URL(request.url).pathname : undefined,
    error:
      error instanceof Error
        ? { name: error.name, message: error.message, stack: error.stack }
        : String(error),
  });
  const message = "The server could not complete the request. Please try again later.";
  return new Response(
    stringify({ error: statusText(500), code: "InternalError", message, description: message }),
    {
      status: 500,
      headers: withSecurityHeaders(new Headers({ "content-type": JSON_TYPE, "cache-control": "no-store" })),
    },
  );
}
