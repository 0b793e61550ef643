import { hash } from "node:crypto";
import { databaseErrorOf, isDatabaseOutage, isStatementTimeout } from "../../db/errors.js";
import { budgetSpent, requestBudgetExceeded } from "../budget/request-budget.js";
import { ConfigError, getConfig } from "../config.js";
import { errorFields, log, logOnce } from "../log.js";
import { ApiError, serviceUnavailable } from "./errors.js";
import { requestUrl } from "./request-url.js";
import { withSecurityHeaders } from "./security-headers.js";
import { statusText } from "./status-text.js";

export const JSON_TYPE = "application/json; charset=utf-8";
export const GEOJSON_TYPE = "application/geo+json; charset=utf-8";

const bigintAsString = (_key: string, value: unknown) =>
  typeof value === "bigint" ? value.toString() : value;

/**
 * Big integers serialise as exact decimal strings; JSON has no lossless number for them. Proof rows hold none (the
 * schema maps bigint columns to numbers at the query layer), so the plain, replacer-free JSON.stringify serialises
 * them: a replacer is a function call per value, a large share of a big page's CPU. Only a document that
 * does hold a bigint (chain reads in the sync's answers) throws, and is serialised again with the replacer.
 */
export function stringify(body: unknown): string {
  try {
    return JSON.stringify(body);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return JSON.stringify(body, bigintAsString);
  }
}

/** A strong validator of the exact bytes sent, so a CDN or client can revalidate with If-None-Match. */
export const etagOf = (body: string | Uint8Array): string => `"${hash("sha1", body, "base64url")}"`;

export type ResponseInit = { status?: number; headers?: Record<string, string>; contentType?: string };

/** A stream of `bytes` as they are (the buffer is never written again: the caller lets go of it). */
export const streamOf = (bytes: Uint8Array) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });

/**
 * A response whose body is known whole: encoded once, with its ETag and its Content-Length. The length lets every
 * HTTP/1.1 hop send the body as it is instead of chunked (and a client show progress on a large page); without it
 * Node's server ends each response with a chunk terminator of its own, a further socket write per request. The ETag
 * is the strong one of the bytes unless `init.headers` gives one (then the bytes are not hashed for nothing).
 *
 * The body is handed over as a stream of the one buffer, not as the buffer: the platform reads every Response body
 * as a stream anyway (undici wraps a buffer body in one), but first copies a buffer body, as the Fetch standard
 * says. That copy, and the garbage collections its memory brings on, are a visible part of a page's CPU under load
 * (docs/performance.md, "How a page is made, and why it is cheap").
 */
export function bytesResponse(
  bytes: Buffer<ArrayBuffer>,
  init: ResponseInit & { contentType: string },
): Response {
  return new Response(streamOf(bytes), {
    status: init.status ?? 200,
    headers: {
      "content-type": init.contentType,
      "content-length": String(bytes.length),
      ...(init.headers?.etag === undefined ? { etag: etagOf(bytes) } : {}),
      ...init.headers,
    },
  });
}

/**
 * A document around a list of texts (rows written by PostgreSQL): `head`, the texts with `separator` between them (a
 * comma by default, a JSON array's), `tail`, encoded straight into one buffer of the exact size. Joining many long
 * strings in V8 and encoding the result is much slower (V8 flattens the joined string before it can encode it);
 * encoding each text into a buffer of its own and concatenating those copies every byte twice more (and a buffer per
 * row is garbage the collector must then find). The JSON lists and the downloads' text formats are written so.
 */
export function listBytes(
  head: string,
  texts: readonly string[],
  tail: string,
  separator = ",",
): Buffer<ArrayBuffer> {
  const between = separator === "," ? COMMA : Buffer.from(separator, "utf8");
  let size =
    Buffer.byteLength(head) + Buffer.byteLength(tail) + between.length * Math.max(0, texts.length - 1);
  for (const text of texts) size += Buffer.byteLength(text);
  const bytes = Buffer.allocUnsafe(size);
  let at = bytes.write(head, 0);
  for (let i = 0; i < texts.length; i++) {
    if (i > 0) for (let j = 0; j < between.length; j++) bytes[at++] = between[j]!;
    at += bytes.write(texts[i]!, at);
  }
  bytes.write(tail, at);
  return bytes;
}

const COMMA = Buffer.from(",");
export function json(body: unknown, init: ResponseInit = {}): Response {
  return textResponse(stringify(body), { ...init, contentType: init.contentType ?? JSON_TYPE });
}

/** A whole text body, encoded as UTF-8 and answered as bytesResponse does. */
export function textResponse(body: string, init: ResponseInit & { contentType: string }): Response {
  return bytesResponse(Buffer.from(body, "utf8"), init);
}

/** What a client is told to wait before retrying during a database outage (a restart or failover takes seconds). */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

/**
 * A missing or invalid setting, as a client may see it: the variables' names and the rule (never their values),
 * logged once per instance rather than once per request.
 */
export function misconfiguration(error: ConfigError): { message: string; settings: readonly string[] } {
  logOnce(`config:${error.message}`, "error", "service misconfigured", {
    settings: error.settings,
    error: error.message,
  });
  return { message: `The service is misconfigured: ${error.message}`, settings: error.settings };
}

/**
 * A statement the database stopped at the service's time budget (db/errors.ts, isStatementTimeout): 504, without
 * Retry-After. The database is up — an outage is the 503 — and the same request would run as long again, so the
 * message says what to ask instead. The commonest cause is a deep `offset`, which reads every row before the page.
 */
function queryTimeout(): ApiError {
  let budget = "";
  try {
    budget = ` (${getConfig().database.statementTimeoutMs} ms)`;
  } catch {
    // The budget is only a detail of the message.
  }
  return new ApiError(
    504,
    "QueryTimeout",
    `The query ran longer than this service allows a database statement${budget}, and the database stopped it. The database is available; the same request would take as long again. To page deep into a result, follow the \`next\` link (cursor paging) instead of a large \`offset\`; otherwise narrow the filter (bbox, datetime, chain, prover).`,
  );
}

/**
 * Errors the client did not cause, as ApiErrors: a misconfiguration (503 naming the setting), a database outage —
 * refused, stalled, timed out, restarting, overloaded — (503 with Retry-After), and a statement stopped at its time
 * budget on a database that is up (504, queryTimeout). The database's own code and message go to the log, never to
 * the body. Anything else stays as it is.
 */
function classify(error: unknown, request?: Request): unknown {
  if (error instanceof ConfigError) {
    const { message, settings } = misconfiguration(error);
    return serviceUnavailable(message, { settings });
  }
  // A statement stopped at the request's deadline (db/client.ts): the request's budget, not the database, ran out.
  if (
    !(error instanceof ApiError) &&
    budgetSpent() &&
    (isStatementTimeout(error) || isDatabaseOutage(error))
  ) {
    log("warn", "request budget spent", {
      path: request ? requestUrl(request).pathname : undefined,
      query: request ? requestUrl(request).search : undefined,
    });
    return requestBudgetExceeded();
  }
  if (!(error instanceof ApiError) && isStatementTimeout(error)) {
    log("warn", "statement timeout", {
      path: request ? requestUrl(request).pathname : undefined,
      query: request ? requestUrl(request).search : undefined,
      db: databaseErrorOf(error),
    });
    return queryTimeout();
  }
  if (!(error instanceof ApiError) && isDatabaseOutage(error)) {
    log("error", "database unavailable", {
      path: request ? requestUrl(request).pathname : undefined,
      db: databaseErrorOf(error),
      error: errorFields(error),
    });
    return new ApiError(503, "ServiceUnavailable", "The database is unavailable; please retry shortly.", {
      headers: { "retry-after": String(OUTAGE_RETRY_AFTER_SECONDS) },
    });
  }
  return error;
}

/**
 * The one place an error becomes a response. The body has one shape everywhere:
 * `{ error, code, message, description, parameter? }` — `description` repeats `message` for OGC API clients,
 * which read OGC exceptions as `{ code, description }`. Outages and misconfiguration are 503s, a statement stopped
 * at its budget a 504 (classify above); unknown errors are logged and answered with a generic 500.
 */
export function errorResponse(thrown: unknown, request?: Request): Response {
  const error = classify(thrown, request);
  if (error instanceof ApiError) {
    const body: Record<string, unknown> = {
      error: statusText(error.status),
      code: error.code,
      message: error.message,
      description: error.message,
    };
    if (error.extra.parameter !== undefined) body.parameter = error.extra.parameter;
    if (error.extra.details !== undefined) body.details = error.extra.details;
    const bytes = Buffer.from(stringify(body), "utf8");
    return new Response(bytes, {
      status: error.status,
      headers: withSecurityHeaders(
        new Headers({
          "content-type": JSON_TYPE,
          "content-length": String(bytes.length),
          "cache-control": "no-store",
          ...error.extra.headers,
        }),
      ),
    });
  }
  log("error", "unhandled error", {
    path: request ? requestUrl(request).pathname : undefined,
    db: databaseErrorOf(error),
    error: errorFields(error),
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
