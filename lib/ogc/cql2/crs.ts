import { CRS84 } from "../vocabulary.js";

/**
 * The CRSs `filter-crs` accepts for a filter's geometry literals: CRS84 only, the CRS every geometry is stored and
 * compared in. This list is the seam for other CRSs (lib/crs/): a CRS added here needs its transform of a literal's
 * positions to CRS84, applied to the tree (ast.ts) after parsing and before compiling, so both encodings and the
 * compiler stay as they are. items-params.ts validates and documents `filter-crs` from this list.
 */
export const FILTER_CRS: readonly string[] = [CRS84];

/** A `filter-crs` value as written (a URI, or a URI in angle brackets) → the CRS it names, if accepted. */
export const filterCrsOf = (value: string): string | undefined => {
  const uri = value.trim().replace(/^<(.*)>$/, "$1");
  return FILTER_CRS.includes(uri) ? uri : undefined;
};
