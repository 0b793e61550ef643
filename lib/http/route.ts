import { readingFromReplica } from "../../db/read-scope.js";
import { getConfig } from "../config.js";
import { htmlErrorResponse } from "../html/error-page.js";
import { log } from "../log.js";
import { authorizeRestricted } from "./auth.js";
import { trustedClientIp } from "./client-ip.js";
import { corsHeaders, preflightWith } from "./cors.js";
import { methodNotAllowed } from "./errors.js";
import { requestedFormat } from "./format.js";
import { getRateLimiter, type RateLimitOutcome, rateLimitHeaders, tooManyRequests } from "./rate-limit.js";
import { requestUrl } from "./request-url.js";
import { errorResponse } from "./respond.js";
import { withSecurityHeaders } from "./security-headers.js";

export type Handler = (request: Request) => Promise<Response>;

/** A route's options, and the CORS headers of its methods (public routes). */
type Options = RouteOptions & { cors: Record<string, string> };

/** The methods Vercel's Node runtime dispatches to a function's exports (any other export is never called). */
export const HTTP_METHODS = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "DELETE", "PATCH"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export type RouteOptions = {
  /**
   * public: anyone may read it (CORS, CDN caching with ETag/304, rate limited: lib/http/rate-limit.ts).
   * restricted: sync and cron endpoints (bearer CRON_SECRET: lib/http/auth.ts; never cached, no CORS).
   */
  access: "public" | "restricted";
  /** Public responses are CDN-cacheable unless this is false (e.g. /health must reflect the present). */
  cache?: boolean;
};

/** One route module's declaration: its access, and a handler per method it serves (HEAD and OPTIONS are derived). */
export type RouteDeclaration = RouteOptions &
  Partial<Record<"GET" | "POST" | "PUT" | "PATCH" | "DELETE", Handler>>;

/** What a route module exports: a handler for every method the platform dispatches. */
export type MethodSet = Record<HttpMethod, Handler>;

/** Data changes about once a minute (the sync cron), so the CDN may serve a response for 30 s, then revalidate. */
const PUBLIC_CACHE_CONTROL = "public, max-age=0, s-maxage=30, stale-while-revalidate=30";

/**
 * Builds a route module's whole method set from one declaration, so a deployment answers every method itself
 * (Vercel's runtime answers a method a module does not export with a bare 405, and runs HEAD only if exported):
 * the declared methods; HEAD as GET without a body; OPTIONS as the CORS preflight on public routes; and a JSON 405
 * with `Allow` for the rest. Usage: `export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({…})`.
 */
export function route(declaration: RouteDeclaration): MethodSet {
  const { access, cache } = declaration;
  const get = declaration.GET;
  const allow = HTTP_METHODS.filter((m) =>
    m === "HEAD" ? !!get : m === "OPTIONS" ? access === "public" : !!declaration[m],
  );
  const options: Options = { access, cache, cors: corsHeaders(allow) };
  const handlers: Partial<Record<HttpMethod, Handler>> = {};
  for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"] as const) {
    const handler = declaration[method];
    if (handler) handlers[method] = handle(handler, options);
  }
  if (get) handlers.HEAD = bodiless(handle(get, options));
  if (access === "public") handlers.OPTIONS = preflightWith(options.cors);
  // The 405 needs no access check: it reveals nothing, and it must not spend the caller's rate limit.
  const refuse = handle(
    async (request) => {
      throw methodNotAllowed(request.method, allow);
    },
    options,
    false,
  );
  handlers.HEAD ??= bodiless(refuse);
  // The method set, readable from the module (its HEAD export is always its own function): the local server answers
  // methods no Request can carry (TRACE, CONNECT, …) itself, with this Allow (lib/local/http-server.ts).
  Object.defineProperty(handlers.HEAD, "allow", { value: allow });
  return Object.fromEntries(HTTP_METHODS.map((m) => [m, handlers[m] ?? refuse])) as MethodSet;
}

/** The methods a module built with route() answers (see route()), or undefined for any other module. */
export const allowedMethodsOf = (mod: Record<string, unknown>): readonly string[] | undefined =>
  (mod.HEAD as { allow?: readonly string[] } | undefined)?.allow;

/** HEAD: the same status and headers as GET, no body. */
const bodiless =
  (handler: Handler): Handler =>
  async (request) => {
    const res = await handler(request);
    return new Response(null, { status: res.status, statusText: res.statusText, headers: res.headers });
  };

/**
 * Wraps a route handler with what every route shares: access (rate limit or restricted-endpoint auth, before the
 * handler runs), errors become JSON responses in one place, shared headers (security, CORS, caching, rate limit),
 * conditional requests, and one structured log line per request. An error asked for as HTML (lib/http/format.ts)
 * becomes a page after errorResponse() built it (lib/html/error-page.ts).
 */
function handle(handler: Handler, options: Options, checkAccess = true): Handler {
  return async (request: Request): Promise<Response> => {
    const started = performance.now();
    let response: Response;
    // The rate-limit headers are computed once, so a 429's message and its Retry-After always agree.
    let limitHeaders: Record<string, string> = {};
    try {
      if (checkAccess && options.access === "restricted") authorizeRestricted(request);
      else if (checkAccess) {
        const limit: RateLimitOutcome = await getRateLimiter().check(request);
        limitHeaders = rateLimitHeaders(limit);
        if (limit.state === "limited") throw tooManyRequests(limit, limitHeaders);
      }
      // The public reads go to a read replica when there is one (db/read-scope.ts); everything else to the primary.
      response =
        options.access === "public" && (request.method === "GET" || request.method === "HEAD")
          ? await readingFromReplica(trustedClientIp(request, getConfig()), () => handler(request))
          : await handler(request);
    } catch (error) {
      response = errorResponse(error, request);
      // A browser that asked for HTML gets the same error as a page (status, headers and message unchanged).
      if (requestedFormat(request) === "html") response = await htmlErrorResponse(response);
    }
    response = finish(request, response, options, limitHeaders);
    log("info", "request", {
      method: request.method,
      path: requestUrl(request).pathname,
      status: response.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
    });
    return response;
  };
}

function finish(
  request: Request,
  response: Response,
  options: Options,
  extraHeaders: Record<string, string>,
): Response {
  // Every response reaching here was built by a handler of ours with `new Response`, whose headers are mutable: they
  // are completed in place, and the response returned as it is (a copy of its headers and a new Response around its
  // body stream cost every request for nothing).
  const headers = response.headers;
  for (const [key, value] of Object.entries(extraHeaders)) headers.set(key, value);
  withSecurityHeaders(headers);
  const cacheable =
    options.access === "public" &&
    options.cache !== false &&
    (request.method === "GET" || request.method === "HEAD") &&
    response.status === 200;
  if (options.access === "public") {
    for (const [key, value] of Object.entries(options.cors)) headers.set(key, value);
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
      // The 200's length would describe a body this answer does not have (a weak match may differ in it).
      headers.delete("content-length");
      return new Response(null, { status: 304, headers });
    }
  } else {
    headers.delete("etag");
  }
  return response;
}

/** If-None-Match holds a list of entity tags, or `*`; weak comparison as RFC 9110 prescribes for it. */
function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === "*") return true;
  const bare = (tag: string) => tag.trim().replace(/^W\//, "");
  return ifNoneMatch.split(",").some((tag) => bare(tag) === bare(etag));
}
