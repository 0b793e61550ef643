import * as v from "valibot";
import { knownChainNames } from "../chains/registry.js";
import { listFormatParam } from "../exports/negotiate.js";
import { MAX_RADIUS_M } from "../proofs/near.js";
import {
  addressParam,
  chainListParam,
  cursorParam,
  datetimeParam,
  doc,
  integerParam,
  locationTypeListParam,
  nearParam,
  protocolVersionListParam,
  radiusParam,
  schemaListParam,
  sourceParam,
} from "./grammar.js";

/**
 * The validators of the parameters both lists of proofs take (GET /api/v0/location-proofs, lib/v0/list-params.ts, and
 * the OGC items, lib/ogc/items-params.ts), by name: each list documents them in its own words, and a value is taken
 * or refused the same way on either.
 */
export const FILTER_PARAMS = {
  f: listFormatParam,
  offset: integerParam("offset", 0, Number.MAX_SAFE_INTEGER),
  cursor: cursorParam,
  near: nearParam,
  radius: radiusParam(MAX_RADIUS_M),
  datetime: datetimeParam,
  // The registry's networks and those the environment defines (CHAINS): a deployment's environment is set before
  // its functions load.
  chain: chainListParam(knownChainNames(process.env)),
  schema: schemaListParam,
  protocolVersion: protocolVersionListParam,
  locationType: locationTypeListParam,
  prover: addressParam("prover"),
  subject: addressParam("subject"),
  source: sourceParam,
};

/** The shared validator of parameter `name`, optional, with the list's own documentation of it (doc). */
export const filterParam = <K extends keyof typeof FILTER_PARAMS>(
  name: K,
  ...documentation: Parameters<typeof doc> extends [unknown, ...infer D] ? D : never
) => v.optional(doc(FILTER_PARAMS[name], ...documentation));
