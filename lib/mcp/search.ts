import * as v from "valibot";
import { parseEntries } from "../http/query.js";
import { integerParam } from "../params/grammar.js";
import type { JsonRow } from "../proofs/rows.js";
import { LIST_PARAMS } from "../v0/list-params.js";
import { LIST_RECORD_JSON, listPage } from "../v0/location-proofs.js";
import { type ArgumentKind, nativeParameters } from "./arguments.js";

/** A small page: an agent reads every record it is given. */
export const SEARCH_DEFAULT_LIMIT = 10;
export const SEARCH_MAX_LIMIT = 50;

/** The search tool's arguments: the native list's parameters by the same names (lib/v0/list-params.ts). */
export const SEARCH_ARGUMENTS: Record<string, ArgumentKind> = {
  near: "list",
  radius: "number",
  sort: "text",
  bbox: "list",
  fromTimestamp: "text",
  toTimestamp: "text",
  datetime: "text",
  chain: "list",
  prover: "text",
  subject: "text",
  schema: "list",
  protocolVersion: "list",
  locationType: "list",
  hasCoordinates: "boolean",
  includeRevoked: "boolean",
  limit: "number",
  cursor: "text",
};

/** The native list's validators, with the tool's smaller page; `filter` and `f` are set by the tool itself. */
const ENTRIES = {
  ...LIST_PARAMS,
  limit: v.optional(integerParam("limit", 1, SEARCH_MAX_LIMIT), String(SEARCH_DEFAULT_LIMIT)),
};

export type SearchResult = {
  data: Record<string, unknown>[];
  pagination: {
    total: number;
    limit: number;
    returned: number;
    next_cursor: string | null;
    prev_cursor: string | null;
  };
};

/**
 * search_location_proofs: the native list's query (the same filter model and page plan: lib/v0/location-proofs.ts,
 * listPage) over the tool's arguments, its records as the list writes them, and cursors to continue instead of links.
 */
export async function searchProofs(args: Record<string, unknown> | undefined): Promise<SearchResult> {
  const { hasCoordinates, ...raw } = nativeParameters(args, SEARCH_ARGUMENTS);
  const q = parseEntries(
    { ...raw, ...(hasCoordinates === "true" ? { filter: "hasCoordinates" } : {}) },
    ENTRIES,
  );
  const page = await listPage({ ...q, f: "json" }, LIST_RECORD_JSON);
  return {
    data: (page.rows as JsonRow[]).map((row) => JSON.parse(row.json) as Record<string, unknown>),
    pagination: {
      total: page.total,
      limit: page.limit,
      returned: page.rows.length,
      next_cursor: page.cursors.next,
      prev_cursor: page.cursors.prev,
    },
  };
}
