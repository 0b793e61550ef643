import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type FileRoute, scanApi } from "../../lib/local/route-table.js";
import { PATHS } from "../../lib/ogc/vocabulary.js";
import { ROOT } from "./app.js";

/** The items of each OGC collection, as the tests of both collections read them. */
export const POINT_ITEMS = PATHS.items("location-proofs");
export const SHAPE_ITEMS = PATHS.items("location-proof-shapes");
/** The URI of an EPSG system, as `crs`, `bbox-crs` and `filter-crs` take it. */
export const epsgUri = (code: number) => `http://www.opengis.net/def/crs/EPSG/0/${code}`;

export type ApiRoute = { route: FileRoute; path: string; access: "public" | "restricted" };

/**
 * Every function under api/, with the path clients use (a static vercel.json rewrite onto it, such as `/` for
 * /api/root, else its own path) and the access it declares to route(). Suites that must cover every endpoint
 * derive their list from here, so a new route is covered without editing them.
 */
export function apiRoutes(): ApiRoute[] {
  const vercel = JSON.parse(readFileSync(join(ROOT, "vercel.json"), "utf8")) as {
    rewrites?: { source: string; destination: string }[];
  };
  const aliases = new Map(
    (vercel.rewrites ?? []).filter((r) => !/[:(*]/.test(r.source)).map((r) => [r.destination, r.source]),
  );
  return scanApi(ROOT).map((route) => ({
    route,
    path: aliases.get(route.path) ?? route.path,
    access: /access:\s*"restricted"/.test(readFileSync(route.file, "utf8")) ? "restricted" : "public",
  }));
}

/** The restricted endpoints without path parameters. */
export const restrictedPaths = (): string[] =>
  apiRoutes()
    .filter((r) => r.access === "restricted" && r.route.params.length === 0)
    .map((r) => r.path);
