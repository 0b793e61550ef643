import * as v from "valibot";
import { chainListParam } from "../params/grammar.js";
import { enabledChainNames } from "./service.js";

/**
 * `chain=` of the sync routes: one or more enabled chain names, comma-separated. An unknown name is a 400 that
 * lists the valid ones.
 */
export function chainParam() {
  const names = enabledChainNames();
  return v.optional(
    chainListParam(
      names,
      "chain",
      `one or more of the enabled chains: ${names.join(", ") || "(none: set CHAINS)"}`,
    ),
  );
}

export const workerActionParam = v.picklist(["pause", "resume"], "action must be pause or resume");
