import type { SQL } from "drizzle-orm";
import type { CrsSystem } from "../../crs/systems.js";
import { ApiError } from "../../http/errors.js";
import type { SpatialTarget } from "../../proofs/filter.js";
import type { Expr } from "./ast.js";
import type { Catalogue } from "./catalogue.js";
import { compileCql2 } from "./compile.js";
import { parseCql2 } from "./parse.js";
import { parseCql2Json } from "./parse-json.js";
import { proofCatalogue } from "./proof-catalogue.js";
import { CqlError } from "./where.js";

export { CQL_LIMITS } from "./literals.js";

/** The filter languages accepted by `filter-lang` (cql2-text is the default). */
export const FILTER_LANGS = ["cql2-text", "cql2-json"] as const;
export type FilterLang = (typeof FILTER_LANGS)[number];

/** Either encoding into the one tree; geometry literals written in `crs` (filter-crs) come out in CRS84 (crs.ts). */
export function parseFilter(text: string, lang: FilterLang = "cql2-text", crs?: CrsSystem): Expr {
  return lang === "cql2-json" ? parseCql2Json(text, crs) : parseCql2(text, crs);
}

/** A filter (either encoding) compiled over a catalogue; a problem is a CqlError saying where. */
export const compileFilter = (text: string, lang: FilterLang, catalogue: Catalogue, crs?: CrsSystem): SQL =>
  compileCql2(parseFilter(text, lang, crs), catalogue);

const CATALOGUES: Record<SpatialTarget, Catalogue> = {
  point: proofCatalogue("point"),
  bounds: proofCatalogue("bounds"),
};

/**
 * `filter` → SQL for ProofFilter.where, over the proofs collection whose geometry is `geometry`. Any problem is a
 * 400 naming the parameter, the reason and where it is (a character of the text, a JSON pointer).
 */
export function cql2Filter(
  text: string,
  geometry: SpatialTarget = "bounds",
  lang: FilterLang = "cql2-text",
  crs?: CrsSystem,
): SQL {
  try {
    return compileFilter(text, lang, CATALOGUES[geometry], crs);
  } catch (error) {
    if (error instanceof CqlError) {
      throw new ApiError(
        400,
        "InvalidParameterValue",
        `filter: invalid ${lang === "cql2-json" ? "CQL2 JSON" : "CQL2 text"}: ${error.message}`,
        {
          parameter: "filter",
          ...(error.where ? { details: { where: error.where } } : {}),
        },
      );
    }
    throw error;
  }
}
