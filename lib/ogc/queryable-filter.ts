import type { SQL } from "drizzle-orm";
import {
  QUERYABLE_PARAM_NAMES,
  type QueryableParamName,
  type QueryableValue,
} from "../params/queryable-params.js";
import type { Expr, Scalar } from "./cql2/ast.js";
import { compileCql2 } from "./cql2/compile.js";
import { proofCatalogue } from "./cql2/proof-catalogue.js";

/**
 * The queryables given as query parameters (lib/params/queryable-params.ts) as one CQL2 tree, `name = value` for each,
 * AND-ed, compiled by the one compiler over the collections' catalogue: so `?revoked=false` and
 * `filter=revoked = false` are one predicate, typed and null-safe alike (a feature whose property is null never
 * matches). The catalogue's non-spatial queryables are the same on both collections.
 */
const CATALOGUE = proofCatalogue("point");

const literal = (value: QueryableValue): Scalar =>
  value instanceof Date
    ? { kind: "timestamp", value }
    : typeof value === "string"
      ? { kind: "string", value }
      : typeof value === "number"
        ? { kind: "number", value }
        : { kind: "boolean", value };

export function queryableParamsWhere(
  q: Partial<Record<QueryableParamName, QueryableValue | undefined>>,
): SQL | undefined {
  const args: Expr[] = [];
  for (const name of QUERYABLE_PARAM_NAMES) {
    const value = q[name];
    if (value !== undefined)
      args.push({ kind: "compare", op: "=", left: { kind: "property", name }, right: literal(value) });
  }
  if (args.length === 0) return undefined;
  return compileCql2(args.length === 1 ? args[0]! : { kind: "and", args }, CATALOGUE);
}
