import { itemsBbox, itemsFilter } from "../ogc/items.js";
import type { ItemsQuery } from "../ogc/items-params.js";
import { parseSortby } from "../ogc/sortby.js";
import { type Collection, PATHS } from "../ogc/vocabulary.js";
import type { ProofFilter } from "../proofs/filter.js";
import { pointFeatureJson, shapeFeatureJson } from "../proofs/json-sql.js";
import { DISTANCE } from "../proofs/sort.js";
import type { ListQuery } from "../v0/list-params.js";
import { listPathOf } from "../v0/paths.js";
import type { ExportFormat } from "./formats.js";
import { exportResponse } from "./response.js";

/**
 * GET …/items as a download: the items' own filter (itemsFilter: bbox, datetime, CQL2, near/radius, chain, prover,
 * …, under OGC API - Features' rules) and sortby, each feature as the items' GeoJSON writes it.
 */
export function itemsDownload(request: Request, q: ItemsQuery, format: ExportFormat, collection: Collection) {
  const sort = q.sortby ? parseSortby(q.sortby) : undefined;
  return exportResponse(request, {
    format,
    filter: itemsFilter({ ...q, bbox: itemsBbox(q) }, collection, sort),
    ...(sort ? { sort } : {}),
    json: collection.geometry === "point" ? pointFeatureJson : shapeFeatureJson,
    points: collection.geometry === "point",
    path: PATHS.items(collection.id),
    name: collection.id,
    ...(q.offset !== undefined ? { offset: q.offset } : {}),
    ...(q.cursor !== undefined ? { cursor: q.cursor } : {}),
  });
}

/**
 * The native list as a download, given the list's own filter (listFilter, lib/v0/location-proofs.ts: its rules, revoked proofs hidden unless asked)
 * and order, each proof as a feature of the point collection (id, point, the OGC properties), so that a download
 * reads the same whichever list it came from.
 */
export function listDownload(request: Request, q: ListQuery, format: ExportFormat, filter: ProofFilter) {
  return exportResponse(request, {
    format,
    filter,
    ...(q.sort === "distance" ? { sort: [{ field: DISTANCE, descending: false }] } : {}),
    json: pointFeatureJson,
    points: true,
    path: listPathOf(request),
    name: "location-proofs",
    ...(q.offset !== undefined ? { offset: q.offset } : {}),
    ...(q.cursor !== undefined ? { cursor: q.cursor } : {}),
  });
}
