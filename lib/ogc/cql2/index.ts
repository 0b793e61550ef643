import type { SQL } from "drizzle-orm";
import { badParameter } from "../../http/errors.js";
import type { SpatialTarget } from "../../proofs/filter.js";
import { CqlSemanticError, compileCql2 } from "./compile.js";
import { CqlSyntaxError } from "./lexer.js";
import { parseCql2 } from "./parse.js";

export { CQL_LIMITS } from "./parse.js";

/** The filter languages accepted by `filter-lang`; CQL2 JSON is not implemented (and not declared). */
export const FILTER_LANGS = ["cql2-text"] as const;

/** `filter` (CQL2 text) → SQL for ProofFilter.where; any problem is a 400 naming the parameter and the reason. */
export function cql2Filter(text: string, geometry?: SpatialTarget): SQL {
  try {
    return compileCql2(parseCql2(text), geometry);
  } catch (error) {
    if (error instanceof CqlSyntaxError || error instanceof CqlSemanticError) {
      throw badParameter("filter", `filter: invalid CQL2 text: ${error.message}`);
    }
    throw error;
  }
}
