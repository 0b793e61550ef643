import { readingFromReplica } from "../../db/read-scope.js";
import { statementsSent, withRequestBudget } from "../budget/request-budget.js";
import { ConfigError, getConfig } from "../config.js";
import {
  type DataVersion,
  etagOf,
  lastModifiedOf,
  notModified,
  requestScopeVersion,
  sameBody,
  withDataVersion,
  withVersionCarried,
} from "../data-version/version.js";
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
  /**
   * "data": what the route shows is a function of the indexed data (and the request): its validators come from the
   * data's version (lib/data-version/), read before the handler, and a conditional request that has not changed is
   * a 304 that reads the version alone. Otherwise the ETag is the hash of the body, made by running the handler.
   */
  validators?: "data";
  /**
   * With validators "data": the handler reads the version itself (lib/data-version/version.ts), carried by its page's
   * first statement or read before anything else (ensureDataVersion), rather than in a statement before the handler.
   * Only for a handler whose every path does one or the other (the lists: a page, or ensureDataVersion first).
   */
  carriesVersion?: boolean;
};

/** One route module's declaration: its access, and a handler per method it serves (HEAD and OPTIONS are derived). */
export type RouteDeclaration = RouteOptions &
  Partial<Record<"GET" | "POST" | "PUT" | "PATCH" | "DELETE", Handler>>;

/** What a route module exports: a handler for every method the platform dispatches. */
export type MethodSet = Record<HttpMethod, Handler>;

/**
 * The shared lifetime of a public 200 whose URL carries no data version (docs/deploy.md, "What the CDN keeps"): the
 * data changes about once a minute (the sync cron), and what a cache serves may be s-maxage + stale-while-revalidate
 * old, so a revocation reaches every cached answer (and the map's TileJSON, which it re-reads as often) within one
 * cron interval. Browsers revalidate every time (max-age=0), which a version-keyed answer makes a 304.
 * CDN-Cache-Control (RFC 9213) says the same to the CDNs that read it (Vercel's, Cloudflare, Fastly): Vercel strips
 * s-maxage from what it passes on, and a targeted field keeps the CDN's lifetime explicit whatever else is set.
 */
export const PUBLIC_CACHE_CONTROL = "public, max-age=0, s-maxage=15, stale-while-revalidate=15";
export const PUBLIC_CDN_CACHE_CONTROL = "max-age=15, stale-while-revalidate=15";

/**
 * Builds a route module's whole method set from one declaration, so a deployment answers every method itself
 * (Vercel's runtime answers a method a module does not export with a bare 405, and runs HEAD only if exported):
 * the declared methods; HEAD as GET without a body; OPTIONS as the CORS preflight on public routes; and a JSON 405
 * with `Allow` for the rest. Usage: `export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({…})`.
 */
export function route(declaration: RouteDeclaration): MethodSet {
  const { access, cache, validators, carriesVersion } = declaration;
  const get = declaration.GET;
  const allow = HTTP_METHODS.filter((m) =>
    m === "HEAD" ? !!get : m === "OPTIONS" ? access === "public" : !!declaration[m],
  );
  const options: Options = { access, cache, validators, carriesVersion, cors: corsHeaders(allow) };
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
    // A public request runs within its time budget (lib/budget/request-budget.ts); the restricted ones (the sync)
    // have budgets of their own (SYNC_TIME_BUDGET_MS, per statement SYNC_STATEMENT_TIMEOUT_MS).
    const budget = options.access === "public" ? requestBudgetMs() : undefined;
    return budget === undefined
      ? serve(request, started)
      : withRequestBudget(budget, () => serve(request, started), started);
  };

  async function serve(request: Request, started: number): Promise<Response> {
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
          ? await readingFromReplica(trustedClientIp(request, getConfig()), () =>
              options.validators === "data" && options.cache !== false
                ? versioned(request, handler, options.carriesVersion === true)
                : handler(request),
            )
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
      statements: statementsSent(),
    });
    return response;
  }
}

/**
 * A route whose validators come from the data's version. A conditional request reads the version first (the
 * request's replica, before any row, so its rows are at least that new) and is a 304 from it alone when the client
 * holds it. Any other request of a route that carries its version (RouteOptions.carriesVersion) reads it with its
 * rows: the handler's first statement carries it when it can (a list's page: lib/data-version/version.ts), else the
 * handler reads it before anything else (ensureDataVersion). The rest read it first too.
 */
async function versioned(request: Request, handler: Handler, carries: boolean): Promise<Response> {
  const conditional = request.headers.has("if-none-match") || request.headers.has("if-modified-since");
  if (carries && !conditional) {
    const { result: response, version } = await withVersionCarried(request, () => handler(request));
    if (response.status === 200 && version)
      setValidators(request, response.headers, version, response.headers.get("etag"));
    return response;
  }
  let version: DataVersion;
  try {
    version = await requestScopeVersion(request);
  } catch (error) {
    // No database configured: the handler answers as it would, a bad parameter with its 400 before any database
    // work, a read with the misconfiguration's 503, and no data validators. A database that fails (an outage, a
    // stall, a spent budget) is the answer itself: the handler would only meet it again, after another wait.
    if (error instanceof ConfigError) return handler(request);
    throw error;
  }
  const held = notModified(request, version);
  if (held) {
    const headers = new Headers();
    setValidators(request, headers, version);
    headers.set("etag", held);
    return new Response(null, { status: 304, headers });
  }
  const response = await withDataVersion(version, () => handler(request));
  if (response.status !== 200) return response;
  setValidators(request, response.headers, version, response.headers.get("etag"));
  if (!sameBody(request, response.headers.get("etag")!)) return response;
  response.headers.delete("content-length");
  return new Response(null, { status: 304, headers: response.headers });
}

function setValidators(
  request: Request,
  headers: Headers,
  version: DataVersion,
  bodyTag?: string | null,
): void {
  headers.set("etag", etagOf(request, version, bodyTag));
  const modified = lastModifiedOf(version);
  if (modified) headers.set("last-modified", modified.toUTCString());
}

/** The request budget, or none when the configuration cannot be read (that error is the response's to report). */
function requestBudgetMs(): number | undefined {
  try {
    return getConfig().requestBudgetMs;
  } catch {
    return undefined;
  }
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
  const read = request.method === "GET" || request.method === "HEAD";
  // A 304 of a versioned route (answered from the data's version alone) keeps the headers its 200 would have.
  const cacheable =
    options.access === "public" &&
    options.cache !== false &&
    read &&
    (response.status === 200 || (response.status === 304 && options.validators === "data"));
  if (options.access === "public") {
    for (const [key, value] of Object.entries(options.cors)) headers.set(key, value);
  }
  if (!headers.has("cache-control")) {
    headers.set("cache-control", cacheable ? PUBLIC_CACHE_CONTROL : "no-store");
    if (cacheable) headers.set("cdn-cache-control", PUBLIC_CDN_CACHE_CONTROL);
  }
  if (cacheable) {
    // Absolute links follow the forwarded headers unless PUBLIC_BASE_URL is set (lib/http/links.ts): a cache must
    // then key on them too, or one client's forged X-Forwarded-Host would be served to everyone.
    headers.append(
      "vary",
      getConfig().publicBaseUrl ? "Accept" : "Accept, X-Forwarded-Host, X-Forwarded-Proto",
    );
    if (response.status === 304) return response;
    const etag = headers.get("etag");
    if (etag && matchesEtag(request.headers.get("if-none-match"), etag)) {
      // The 200's length would describe a body this answer does not have (a weak match may differ in it).
      headers.delete("content-length");
      return new Response(null, { status: 304, headers });
    }
  } else {
    headers.delete("etag");
    headers.delete("last-modified");
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
