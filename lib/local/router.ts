import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { getTransformedRoutes } from "@vercel/routing-utils";
import { cannotGet } from "../http/errors.js";
import { errorResponse } from "../http/respond.js";
import { allowedMethodsOf, HTTP_METHODS } from "../http/route.js";
import { type FileRoute, scanApi } from "./route-table.js";
import { staticFiles } from "./static-files.js";

/**
 * The local stand-in for Vercel's router, used by `npm run dev` and by the tests, so that both exercise the same
 * routing as production: public/ and the api/ tree are the filesystem (files, index.ts, [param] segments), then
 * the vercel.json rewrites, compiled by Vercel's own @vercel/routing-utils. There is no second, hand-kept route
 * list. The parity suite (tests/platform/parity.test.ts) checks this router against the built output on Node 24.
 */
export type Router = {
  handle(request: Request): Promise<Response>;
  /** The methods the resource at `url` answers, for a 405's Allow (used by the local server: http-server.ts). */
  allowedMethods(url: URL): Promise<readonly string[]>;
  routes: FileRoute[];
};

type Rewrite = { src: RegExp; dest: string };
type Module = Record<string, unknown>;

export function createRouter(root: string): Router {
  const routes = scanApi(root);
  const byPath = new Map(routes.map((r) => [r.path, r]));
  const vercel = JSON.parse(readFileSync(join(root, "vercel.json"), "utf8")) as { rewrites?: unknown[] };
  const transformed = getTransformedRoutes({ rewrites: (vercel.rewrites ?? []) as never });
  if (transformed.error) throw new Error(`vercel.json: ${transformed.error.message}`);
  const rewrites: Rewrite[] = (transformed.routes ?? [])
    .filter((r): r is { src: string; dest: string } => "src" in r && typeof r.dest === "string")
    // Vercel matches a route's src without regard to case (unless the route says caseSensitive).
    .map((r) => ({ src: new RegExp(r.src, "i"), dest: r.dest }));
  const statics = staticFiles(root);
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
      if ("file" in resolved) return statics.respond(resolved.file, request);
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

  /**
   * Vercel's order for this project's config.json: the filesystem (public/ files, then functions at their exact
   * path — a [param] file is only reached through a rewrite, as in the deployment, where nothing matches a bracket
   * segment by itself), then each rewrite in order, whose destination must exist (check: true). Route sources match
   * without regard to case, and captures go into the destination as they are (already percent-encoded), as in
   * Vercel's own router.
   */
  function resolve(
    url: URL,
  ): { file: string } | { route: FileRoute; pathname: string; search: string } | undefined {
    // Repeated slashes are one separator, a trailing slash is dropped (`//api//v0/x/` is `/api/v0/x`).
    const collapsed = url.pathname.replace(/\/{2,}/g, "/");
    const pathname = collapsed.length > 1 ? collapsed.replace(/\/+$/, "") : collapsed;
    const query = url.search.slice(1);
    const file = statics.match(pathname);
    if (file) return { file };
    const direct = byPath.get(pathname);
    if (direct) return { route: direct, pathname, search: url.search };
    for (const rewrite of rewrites) {
      const m = rewrite.src.exec(pathname);
      if (!m) continue;
      const dest = rewrite.dest.replace(/\$(\d+)/g, (_, i: string) => m[Number(i)] ?? "");
      const [destPath = "/", destQuery = ""] = dest.split("?");
      const destFile = statics.match(destPath);
      if (destFile) return { file: destFile };
      const hit = byPath.get(destPath);
      // Vercel keeps the original query string on a rewrite, after the destination's own parameters.
      const search = [destQuery, query].filter(Boolean).join("&");
      if (hit) return { route: hit, pathname: destPath, search: search ? `?${search}` : "" };
    }
    return undefined;
  }

  async function allowedMethods(url: URL): Promise<readonly string[]> {
    const resolved = resolve(url);
    if (!resolved) return [];
    if ("file" in resolved) return ["GET", "HEAD"];
    const mod = await load(resolved.route.file);
    return allowedMethodsOf(mod) ?? HTTP_METHODS.filter((m) => typeof mod[m] === "function");
  }

  return { handle, allowedMethods, routes };
}

/**
 * As Vercel's Node runtime does (@vercel/node, createWebExportsHandler): the export named like the method answers;
 * a method the module does not export gets a bare 405 (no body, no Allow). Route modules built with route()
 * export every method, so this fallback is what a module written without it would get in production too.
 */
async function invoke(mod: Module, request: Request): Promise<Response> {
  const fn = mod[request.method.toUpperCase()];
  if (typeof fn === "function") return (fn as (r: Request) => Promise<Response>)(request);
  return new Response(null, { status: 405 });
}
