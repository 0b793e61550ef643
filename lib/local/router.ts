import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { getTransformedRoutes } from "@vercel/routing-utils";
import { ApiError, cannotGet, methodNotAllowed } from "../http/errors.js";
import { errorResponse } from "../http/respond.js";
import { type FileRoute, matchFile, scanApi } from "./route-table.js";

/**
 * The local stand-in for Vercel's router, used by `npm run dev` and by the tests, so that both exercise the same
 * routing as production: the api/ tree is the route table (files, index.ts, [param] segments), then the
 * vercel.json rewrites, compiled by Vercel's own @vercel/routing-utils. There is no second, hand-kept route list.
 */
export type Router = { handle(request: Request): Promise<Response>; routes: FileRoute[] };

type Rewrite = { src: RegExp; dest: string };
type Module = Record<string, unknown>;

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

export function createRouter(root: string): Router {
  const routes = scanApi(root);
  const vercel = JSON.parse(readFileSync(join(root, "vercel.json"), "utf8")) as { rewrites?: unknown[] };
  const transformed = getTransformedRoutes({ rewrites: (vercel.rewrites ?? []) as never });
  if (transformed.error) throw new Error(`vercel.json: ${transformed.error.message}`);
  const rewrites: Rewrite[] = (transformed.routes ?? [])
    .filter((r): r is { src: string; dest: string } => "src" in r && typeof r.dest === "string")
    .map((r) => ({ src: new RegExp(r.src), dest: r.dest }));
  const modules = new Map<string, Promise<Module>>();
  const load = (file: string) => {
    let m = modules.get(file);
    if (!m) {
      m = import(pathToFileURL(file).href) as Promise<Module>;
      modules.set(file, m);
    }
    return m;
  };

  async function handle(request: Request): Promise<Response> {
    try {
      const url = new URL(request.url);
      const resolved = resolve(url);
      if (!resolved) throw cannotGet(request.method, url.pathname);
      const mod = await load(resolved.route.file);
      const target = new URL(url);
      target.pathname = resolved.pathname;
      target.search = resolved.search;
      const forwarded = new Request(target, request);
      return await invoke(mod, forwarded);
    } catch (error) {
      return errorResponse(error, request);
    }
  }

  /** Filesystem first; then each rewrite in order, whose destination must itself be a function (check: true). */
  function resolve(url: URL) {
    // Repeated slashes are one separator, a trailing slash is dropped (`//api//v0/x/` is `/api/v0/x`).
    const collapsed = url.pathname.replace(/\/{2,}/g, "/");
    const pathname = collapsed.length > 1 ? collapsed.replace(/\/+$/, "") : collapsed;
    const query = url.search.slice(1);
    const direct = matchFile(routes, pathname);
    if (direct) return withParams(direct, pathname, query);
    for (const rewrite of rewrites) {
      const m = rewrite.src.exec(pathname);
      if (!m) continue;
      const dest = rewrite.dest.replace(/\$(\d+)/g, (_, i: string) => encodeURIComponent(m[Number(i)] ?? ""));
      const [destPath = "/", destQuery = ""] = dest.split("?");
      const hit = matchFile(routes, destPath);
      // Vercel keeps the original query string on a rewrite, after the destination's own parameters.
      if (hit) return withParams(hit, destPath, [destQuery, query].filter(Boolean).join("&"));
    }
    return undefined;
  }

  return { handle, routes };
}

/**
 * Dynamic segments reach the function as query parameters, as on Vercel. The client's query string is passed on
 * byte for byte (as the platform does), not re-serialised, so percent-encodings arrive as they were sent.
 */
function withParams(
  hit: { route: FileRoute; params: Record<string, string> },
  pathname: string,
  query: string,
) {
  const present = new URLSearchParams(query);
  const extra = Object.entries(hit.params)
    .filter(([k]) => !present.has(k))
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
  const search = [query, ...extra].filter(Boolean).join("&");
  return { route: hit.route, pathname, search: search ? `?${search}` : "" };
}

async function invoke(mod: Module, request: Request): Promise<Response> {
  const method = request.method.toUpperCase();
  const fn = mod[method];
  if (typeof fn === "function") return (fn as (r: Request) => Promise<Response>)(request);
  if (method === "HEAD" && typeof mod.GET === "function") {
    const res = await (mod.GET as (r: Request) => Promise<Response>)(new Request(request, { method: "GET" }));
    return new Response(null, { status: res.status, headers: res.headers });
  }
  const allow = METHODS.filter(
    (m) => typeof mod[m] === "function" || (m === "HEAD" && typeof mod.GET === "function"),
  );
  if (allow.length === 0) throw new ApiError(500, "InternalError", "route exports no handler");
  throw methodNotAllowed(method, allow);
}
