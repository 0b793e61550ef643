import * as v from "valibot";
import { CHAIN_NAMES } from "../chains/registry.js";
import { formatParam } from "../http/format.js";
import {
  addressParam,
  bboxParam,
  chainListParam,
  cursorParam,
  datetimeParam,
  integerParam,
  locationTypeListParam,
  nearParam,
  protocolVersionListParam,
  radiusParam,
  schemaListParam,
} from "../params.js";
import { MAX_RADIUS_M } from "../proofs/near.js";
import { FILTER_LANGS } from "./cql2/index.js";
import { CRS84, OGC_MAX_LIMIT } from "./vocabulary.js";

/**
 * `limit`: a whole number ≥ 1. Above the maximum it is served as the maximum (Part 1, 7.15.3, recommendation:
 * clamp rather than refuse), so a client asking for 5000 gets pages of 1000 and next links that keep paging.
 */
export const limitParam = v.pipe(
  v.string(),
  v.regex(/^\d+$/, "limit must be a whole number between 1 and 1000 (larger values are served as 1000)"),
  v.transform((s) => (s.length > 9 ? Number.MAX_SAFE_INTEGER : Number(s))),
  v.minValue(1, "limit must be at least 1"),
  v.transform((n) => Math.min(n, OGC_MAX_LIMIT)),
);

/** Only CRS84 is served; naming it explicitly is allowed, any other CRS is a 400. */
const crsParam = (name: string) =>
  v.pipe(
    v.string(),
    v.check(
      (s) => s.trim() === CRS84 || s.trim() === `<${CRS84}>`,
      `${name} must be ${CRS84} (the only CRS served)`,
    ),
  );

/** Query parameters of GET /api/ogc/collections/location-proofs/items; any other parameter is a 400. */
export const ITEMS_PARAMS = {
  f: v.optional(formatParam),
  limit: v.optional(limitParam),
  offset: v.optional(integerParam("offset", 0, Number.MAX_SAFE_INTEGER)),
  cursor: v.optional(cursorParam),
  bbox: v.optional(bboxParam("bbox", true)),
  "bbox-crs": v.optional(crsParam("bbox-crs")),
  near: v.optional(nearParam),
  radius: v.optional(radiusParam(MAX_RADIUS_M)),
  datetime: v.optional(datetimeParam),
  chain: v.optional(chainListParam(CHAIN_NAMES)),
  schema: v.optional(
    v.pipe(schemaListParam, v.description("EAS schema UID(s), comma-separated (property schema_uid).")),
  ),
  protocolVersion: v.optional(
    v.pipe(
      protocolVersionListParam,
      v.description(
        "Location Protocol version(s) as major.minor, comma-separated (property protocol_version).",
      ),
    ),
  ),
  locationType: v.optional(
    v.pipe(
      locationTypeListParam,
      v.description(
        "Location type(s) of the protocol's vocabulary, comma-separated (property location_type_normalized).",
      ),
    ),
  ),
  prover: v.optional(addressParam("prover")),
  subject: v.optional(addressParam("subject")),
  filter: v.optional(v.pipe(v.string(), v.minLength(1, "filter must not be empty"))),
  "filter-lang": v.optional(v.picklist(FILTER_LANGS, `filter-lang must be ${FILTER_LANGS.join(" or ")}`)),
  "filter-crs": v.optional(crsParam("filter-crs")),
  sortby: v.optional(v.pipe(v.string(), v.minLength(1, "sortby must not be empty"))),
};

export type ItemsQuery = v.InferOutput<v.ObjectSchema<typeof ITEMS_PARAMS, undefined>>;
