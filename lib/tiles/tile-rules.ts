import { QUERYABLE_PARAM_NAMES } from "../params/queryable-params.js";
/**
 * The rules of a tile, in one place (free of the data layer, so the documents and pages that state them load
 * nothing else): a tile whose matching proofs are at most MAX_POINTS carries each of them as a point, in layer
 * POINTS_LAYER, with its id and main properties; a tile with more carries clusters instead, in layer
 * CLUSTERS_LAYER, one per cell of a CLUSTER_GRID × CLUSTER_GRID grid over the tile that holds proofs, with the exact
 * number of its proofs, their mean position (inside the cell) and, for a cell of one proof, its id. Either way every
 * matching proof with coordinates in the tile is counted exactly once.
 */
export const MAX_POINTS = 500;

/** The cluster grid: 2^3 = 8 cells a side, each 512 of the tile's 4096 units (32 pixels of a 256-pixel tile). */
export const CLUSTER_GRID_BITS = 3;
export const CLUSTER_GRID = 2 ** CLUSTER_GRID_BITS;

/**
 * The most proofs a tile reads for a filter the counts cannot answer (a time window, a prover, a subject, where a
 * record comes from, a circle, a CQL2 filter): what one tile may cost whatever its filter (lib/tiles/tile-budget.ts).
 * Up to it, the tile is made from the rows and is exact; beyond it, each of its crowded cells is estimated from a
 * sample of its proofs. A multiple of the 64 cells of a tile, each of which reads at most ROW_BUDGET / 64 then.
 */
export const ROW_BUDGET = 4096;

export const POINTS_LAYER = "location-proofs";
export const CLUSTERS_LAYER = "location-proof-clusters";

/**
 * The properties a point carries, from the one catalogue (lib/proofs/properties.ts): the id and what a map shows
 * or filters by. The memo is cut to MEMO_CHARS characters (it is free text of any length; the proof's page has it
 * whole), which keeps a point's size bounded.
 */
export const TILE_PROPERTY_NAMES = ["uid", "chain", "prover", "event_timestamp", "revoked", "memo"] as const;
export const MEMO_CHARS = 40;

/**
 * The query parameters a tile takes (lib/tiles/tile-params.ts), and so the ones the items page passes on to its map
 * (lib/tiles/map-tile-url.ts): every filter of the items (lib/ogc/items-params.ts), by name. The items' parameters
 * that page or order a list, and bbox (the tile is the box), are ITEMS_PAGE_NAMES; tile-params.ts checks that every
 * items parameter is in exactly one of the two lists, so a filter added to the items cannot be left off the map.
 */
export const TILE_FILTER_NAMES = [
  "datetime",
  "chain",
  "schema",
  "protocolVersion",
  "locationType",
  "prover",
  "subject",
  "source",
  "near",
  "radius",
  "filter",
  "filter-lang",
  "filter-crs",
  ...QUERYABLE_PARAM_NAMES,
] as const;

/** The items' parameters that are not filters of the proofs: the format, the page, the order, and bbox. */
export const ITEMS_PAGE_NAMES = [
  "f",
  "limit",
  "offset",
  "cursor",
  "bbox",
  "bbox-crs",
  "sortby",
  "crs",
  "profile",
] as const;

/**
 * The most bytes a tile takes: a points tile of MAX_POINTS proofs whose every value is as long as it can be (its own
 * uid, prover and event time, a memo of MEMO_CHARS four-byte characters) stays under it (tests/tiles/mvt.test.ts),
 * and a clusters tile of CLUSTER_GRID² clusters takes a few kilobytes.
 */
export const TILE_BYTES_BOUND = 192 * 1024;
