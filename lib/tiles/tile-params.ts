import type * as v from "valibot";
import { badParameter, notFound } from "../http/errors.js";
import { FORMAT_ONLY } from "../http/format.js";
import { routeParam } from "../http/query.js";
import { ITEMS_PARAMS } from "../ogc/items-params.js";
import { TILE_MATRIX_SET_IDS } from "./tile-matrix-set.js";
import { type ITEMS_PAGE_NAMES, TILE_FILTER_NAMES } from "./tile-rules.js";
import { MAX_ZOOM, type TileAddress } from "./web-mercator.js";

/**
 * The query parameters of a tile: the items' filters (lib/ogc/items-params.ts, the same validators and messages), by
 * the one list of their names (TILE_FILTER_NAMES), so a map shows the proofs the list beside it pages through. What
 * pages or orders a list (limit, offset, cursor, sortby) and bbox (the tile is the box) are not among them: sent to a
 * tile, they are 400s like any unknown parameter.
 */
export const TILE_PARAMS = Object.fromEntries(
  TILE_FILTER_NAMES.map((name) => [name, ITEMS_PARAMS[name]]),
) as {
  [K in TileFilterName]: (typeof ITEMS_PARAMS)[K];
};

/**
 * Every items parameter is a tile filter or a page parameter (ITEMS_PAGE_NAMES), never neither: a compile error
 * names a new items parameter until it is put in one of the two lists.
 */
type Unsorted = Exclude<keyof typeof ITEMS_PARAMS, TileFilterName | (typeof ITEMS_PAGE_NAMES)[number]>;
export const EVERY_ITEMS_PARAM_SORTED: [Unsorted] extends [never] ? true : Unsorted = true;

type TileFilterName = (typeof TILE_FILTER_NAMES)[number];

export type TileQuery = v.InferOutput<v.ObjectSchema<typeof TILE_PARAMS, undefined>>;

/** The path segments of a tile, as Vercel passes them (lib/http/query.ts, routeParam). */
export const TILE_ROUTE_PARAMS = ["tileMatrixSetId", "tileMatrix", "tileCol", "tileRow"] as const;

/** A tile matrix set id of the path: one we serve, else a 404 that lists them (the id itself is not echoed). */
export function tileMatrixSetOf(request: Request): string {
  const id = routeParam(request, "tileMatrixSetId");
  if (!(TILE_MATRIX_SET_IDS as readonly string[]).includes(id))
    throw notFound(`No such tile matrix set. Available: ${TILE_MATRIX_SET_IDS.join(", ")}`);
  return id;
}

const WHOLE = /^(0|[1-9]\d{0,9})$/;

/**
 * The tile a path names: z (tileMatrix) from 0 to MAX_ZOOM, x (tileCol) and y (tileRow) from 0 to 2^z − 1,
 * each a plain whole number. Anything else is a 400 naming the segment: a tile outside the matrix is no tile, and
 * an empty one would tell a client there is nothing there.
 */
export function tileAddressOf(request: Request): TileAddress {
  tileMatrixSetOf(request);
  const number = (name: string, what: string, max: number, at = "") => {
    const raw = routeParam(request, name);
    const n = WHOLE.test(raw) ? Number(raw) : Number.NaN;
    if (!(n >= 0 && n <= max))
      throw badParameter(name, `${name} (${what}) must be a whole number from 0 to ${max}${at}`);
    return n;
  };
  const z = number("tileMatrix", "z", MAX_ZOOM);
  const last = 2 ** z - 1;
  const x = number("tileCol", "x", last, ` at tileMatrix ${z}`);
  const y = number("tileRow", "y", last, ` at tileMatrix ${z}`);
  return { z, x, y };
}

/** The tilesets and the tileset take the same filters (kept in their links) and `f`. */
export const TILESET_PARAMS = { f: FORMAT_ONLY.f, ...TILE_PARAMS };
