import * as v from "valibot";
import { CHAIN_NAMES } from "../chains/registry.js";
import { formatParam } from "../http/format.js";
import {
  addressParam,
  bboxParam,
  booleanParam,
  chainListParam,
  cursorParam,
  datetimeParam,
  integerParam,
  timestampParam,
} from "../params.js";

export const LIST_DEFAULT_LIMIT = 100;
export const LIST_MAX_LIMIT = 1000;

/** Query parameters of GET /api/v0/location-proofs; any other parameter is a 400. */
export const LIST_PARAMS = {
  limit: v.optional(integerParam("limit", 1, LIST_MAX_LIMIT)),
  offset: v.optional(integerParam("offset", 0, Number.MAX_SAFE_INTEGER)),
  cursor: v.optional(cursorParam),
  bbox: v.optional(bboxParam("bbox")),
  filter: v.optional(v.picklist(["hasCoordinates"], "filter must be hasCoordinates")),
  includeRevoked: v.optional(booleanParam("includeRevoked")),
  chain: v.optional(chainListParam(CHAIN_NAMES)),
  prover: v.optional(addressParam("prover")),
  subject: v.optional(addressParam("subject")),
  fromTimestamp: v.optional(timestampParam("fromTimestamp", "start")),
  toTimestamp: v.optional(timestampParam("toTimestamp", "end")),
  datetime: v.optional(datetimeParam),
  // json (the default) or html; without it, Accept decides (lib/http/format.ts).
  f: v.optional(formatParam),
};

export type ListQuery = v.InferOutput<v.ObjectSchema<typeof LIST_PARAMS, undefined>>;
