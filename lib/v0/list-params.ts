import * as v from "valibot";
import { FILTER_PARAMS, filterParam } from "../params/filter-params.js";
import { bboxParam, booleanParam, doc, integerParam, timestampParam } from "../params/grammar.js";
import { MAX_RADIUS_M } from "../proofs/near.js";

export const LIST_DEFAULT_LIMIT = 100;
export const LIST_MAX_LIMIT = 1000;

/**
 * Query parameters of GET /api/v0/location-proofs; any other parameter is a 400. Bounds, defaults and the allowed
 * values are the validators' own: the OpenAPI document is generated from these schemas (lib/v0/openapi-params.ts).
 */
export const LIST_PARAMS = {
  limit: v.optional(
    doc(integerParam("limit", 1, LIST_MAX_LIMIT), "Page size; above the maximum is a 400 naming it.", "10"),
    String(LIST_DEFAULT_LIMIT),
  ),
  offset: filterParam(
    "offset",
    "Rows to skip (0 when absent). Slower the deeper: follow the next link (a cursor) instead. Not with cursor.",
  ),
  cursor: filterParam(
    "cursor",
    "The opaque position a next/prev link carries (checksummed); not with offset.",
  ),
  bbox: v.optional(
    doc(
      bboxParam("bbox"),
      "minLng,minLat,maxLng,maxLat in degrees (CRS84): longitudes in [-180, 180], latitudes in [-90, 90], minLat ≤ maxLat; minLng > maxLng crosses the antimeridian. Proofs without coordinates never match.",
      "-10,35,30,60",
    ),
  ),
  near: filterParam(
    "near",
    "lon,lat in degrees (CRS84): with radius, only proofs whose representative point lies within radius metres (great-circle distance on the WGS84 mean-radius sphere) of this point; each record then carries its `distance` in metres. Proofs without coordinates never match. Needs radius.",
    "2.3522,48.8566",
  ),
  radius: filterParam(
    "radius",
    `Metres from near (more than 0, at most ${MAX_RADIUS_M}: half the Earth's circumference). Needs near.`,
    "1000",
  ),
  sort: v.optional(
    doc(
      v.picklist(["distance"], "sort must be distance"),
      "distance: nearest first (then uid, then chain id), paged by cursor like the default order; needs near and radius. Absent: newest event first.",
    ),
  ),
  filter: v.optional(
    doc(
      v.picklist(["hasCoordinates"], "filter must be hasCoordinates"),
      "hasCoordinates: only proofs with valid coordinates.",
    ),
  ),
  includeRevoked: v.optional(
    doc(booleanParam("includeRevoked"), "Revoked proofs are left out unless true."),
    "false",
  ),
  chain: filterParam("chain", "Chain name(s), comma-separated.", "sepolia,base"),
  schema: filterParam(
    "schema",
    "EAS schema UID(s), comma-separated: only records of these schemas (GET /api/v0/config lists each chain's).",
    "0xba4171c92572b1e4f241d044c32cdf083be9fd946b8766977558ca6378c824e2",
  ),
  protocolVersion: filterParam(
    "protocolVersion",
    "Location Protocol version(s) as major.minor, comma-separated (property protocol_version).",
    "0.2,1.0",
  ),
  locationType: filterParam(
    "locationType",
    "Location type(s) of the protocol's vocabulary, comma-separated, matched against the normalised type (property location_type_normalized), so one name finds every spelling writers used.",
    "geojson-point",
  ),
  prover: filterParam("prover", "Attester address, 0x + 40 hex digits, any case."),
  subject: filterParam("subject", "Recipient address, 0x + 40 hex digits, any case."),
  source: v.optional(
    doc(
      FILTER_PARAMS.source,
      "Where the records come from: onchain (attestations indexed from the chains), offchain (signed off-chain attestations published to POST /api/v0/location-records) or all (both, in one order, paged by one cursor). Each record says which in its `source` member.",
      "all",
    ),
    "onchain",
  ),
  fromTimestamp: v.optional(
    doc(
      timestampParam("fromTimestamp", "start"),
      "Inclusive lower bound on event_timestamp: an ISO 8601 date or date-time (no offset = UTC; a date alone = that whole UTC day), years 0001-9999 UTC. Proofs without an event time never match.",
      "2025-01-31T12:00:00Z",
    ),
  ),
  toTimestamp: v.optional(
    doc(
      timestampParam("toTimestamp", "end"),
      "Inclusive upper bound on event_timestamp, as fromTimestamp.",
      "2025-12-31",
    ),
  ),
  datetime: filterParam(
    "datetime",
    "As in OGC API: an instant, start/end, ../end or start/.. on event_timestamp; ends inclusive.",
    "2025-01-01T00:00:00Z/..",
  ),
  f: filterParam("f", "json, or html (the same page as a table); without it, the Accept header decides."),
};

export type ListQuery = v.InferOutput<v.ObjectSchema<typeof LIST_PARAMS, undefined>>;

/** Query parameters of GET /api/v0/location-proofs/stats: the list's filters on where a record comes from. */
export const STATS_PARAMS = {
  schema: LIST_PARAMS.schema,
  protocolVersion: LIST_PARAMS.protocolVersion,
  locationType: LIST_PARAMS.locationType,
};
