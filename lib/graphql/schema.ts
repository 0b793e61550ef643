import {
  GraphQLBoolean,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLOutputType,
  GraphQLSchema,
  GraphQLString,
  responsePathAsArray,
} from "graphql/index.mjs";
import * as v from "valibot";
import { getDb } from "../../db/client.js";
import { badParameter } from "../http/errors.js";
import { uidParam } from "../params/grammar.js";
import { countMatching } from "../proofs/count.js";
import { decodeCursor } from "../proofs/cursor.js";
import { serializeProof } from "../proofs/properties.js";
import { findRecordByUid } from "../proofs/query.js";
import type { JsonRow } from "../proofs/rows.js";
import { proofStats } from "../proofs/stats.js";
import type { ListQuery } from "../v0/list-params.js";
import { listFilter, listPage } from "../v0/location-proofs.js";
import {
  DEFAULT_FIRST,
  LocationProofFilterType,
  MAX_FIRST,
  parseFilter,
  parsePaging,
} from "./filter-input.js";
import { type NodesPlan, nodesPlan, pageBytes, rootPages } from "./nodes-plan.js";
import { LocationProofType, type NativeRecord } from "./proof-type.js";

/**
 * The GraphQL schema: one proof by uid, a filtered page of proofs with cursor paging, a count and the statistics.
 * Every field reads through the native API's own lib functions (the list's listPage, the count the list carries,
 * findProofByUid, proofStats): one filter model, one query builder, the native cursor.
 */

/**
 * What every resolver gets: the HTTP request (the list's page is built for it, as the native list's is), and the
 * pages whose proofs PostgreSQL wrote as the answer's JSON, for the response to splice in (lib/graphql/nodes-plan.ts).
 */
export type GraphQLContext = {
  request: Request;
  splices: Splice[];
  /**
   * Runs one root field's database work when a slot is free: graphql-js starts a query's root fields at once, and
   * a request may read at most MAX_CONCURRENT_READS at a time (lib/graphql/limits.ts), so one request never holds
   * the whole pool while other requests wait.
   */
  read: <T>(work: () => Promise<T>) => Promise<T>;
};
/** Where in the answer (its response path) a page's proofs go, as JSON texts. */
export type Splice = { path: (string | number)[]; texts: string[] };

type Args = Record<string, unknown>;
const filterArg = { type: LocationProofFilterType, description: "Filters, as the native list's parameters" };

/** The arguments of each root field, checked: a bad value is a 400 naming it (`filter.bbox`, `first`, `uid`). */
export const ARGUMENT_CHECKS: Record<string, (args: Args) => unknown> = {
  locationProof: (args) => {
    const uid = v.safeParse(uidParam, args.uid);
    if (!uid.success) throw badParameter("uid", uid.issues[0].message);
    return uid.output;
  },
  locationProofs: (args) => {
    const q = {
      ...parseFilter(args.filter as Args | null),
      ...parsePaging(args.first as number | null, args.after as string | null),
    } as ListQuery;
    if (q.cursor !== undefined) {
      const decoded = decodeCursor(q.cursor, {});
      // Only a forward cursor continues a page after another; a malformed one is the list's own 400 (proofPage).
      if (!("problem" in decoded) && decoded.direction !== "next")
        throw badParameter(
          "after",
          "after takes an endCursor (or a native next link's cursor), not a prev cursor",
        );
    }
    return q;
  },
  locationProofsCount: (args) => parseFilter(args.filter as Args | null),
};

/** A page as the list reads it: each proof as the JSON PostgreSQL wrote for its plan, and the paging. */
type Page = { texts: string[]; total: number; next: string | null; prev: string | null; plan: NodesPlan };

const PageInfoType = new GraphQLObjectType<Page>({
  name: "PageInfo",
  description: "Where the page lies in the list (forward paging: pass endCursor as `after`)",
  fields: {
    hasNextPage: { type: new GraphQLNonNull(GraphQLBoolean), resolve: (p) => p.next !== null },
    hasPreviousPage: { type: new GraphQLNonNull(GraphQLBoolean), resolve: (p) => p.prev !== null },
    endCursor: {
      type: GraphQLString,
      description:
        "The `after` of the next page; null on the last page. The native list's cursor: a native next link's cursor works as `after` too.",
      resolve: (p) => p.next,
    },
  },
});

const LocationProofPageType = new GraphQLObjectType<Page, GraphQLContext>({
  name: "LocationProofPage",
  description: "A page of proofs in the native list's order (newest event first), with the total and paging",
  fields: {
    nodes: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(LocationProofType))),
      resolve: (p, _args, context, info) => {
        if (p.plan.kind === "records") return p.texts.map((text) => JSON.parse(text) as NativeRecord);
        if (p.plan.kind === "splice")
          context.splices.push({ path: responsePathAsArray(info.path), texts: p.texts });
        return [];
      },
    },
    totalCount: {
      type: new GraphQLNonNull(GraphQLInt),
      description: "Proofs matching the filter (the native list's pagination.total)",
      resolve: (p) => p.total,
    },
    pageInfo: { type: new GraphQLNonNull(PageInfoType), resolve: (p) => p },
  },
});

/** The statistics' counts (GET /api/v0/location-proofs/stats), overall and per chain, in camelCase. */
const COUNTS: [string, string, GraphQLOutputType, string][] = [
  ["total", "total", new GraphQLNonNull(GraphQLInt), "Every stored proof, revoked ones included"],
  ["revoked", "revoked", new GraphQLNonNull(GraphQLInt), "Revoked proofs"],
  ["active", "active", new GraphQLNonNull(GraphQLInt), "total − revoked"],
  ["withCoordinates", "with_coordinates", new GraphQLNonNull(GraphQLInt), "Proofs with valid coordinates"],
  ["last24h", "last_24h", new GraphQLNonNull(GraphQLInt), "Proofs of the last 24 hours, by event time"],
  ["last7d", "last_7d", new GraphQLNonNull(GraphQLInt), "Of the last 7 days, by event time"],
  ["last30d", "last_30d", new GraphQLNonNull(GraphQLInt), "Of the last 30 days, by event time"],
  ["earliestEvent", "earliest_event", GraphQLString, "The earliest event time (ISO 8601 UTC)"],
  ["latestEvent", "latest_event", GraphQLString, "The latest event time (ISO 8601 UTC)"],
];
const countFields = () =>
  Object.fromEntries(
    COUNTS.map(([name, key, type, description]) => [
      name,
      { type, description, resolve: (s: NativeRecord) => s[key] },
    ]),
  );

const ChainStatsType = new GraphQLObjectType<NativeRecord>({
  name: "ChainStats",
  fields: () => ({
    chain: { type: new GraphQLNonNull(GraphQLString), resolve: (s) => s.chain },
    chainId: { type: GraphQLInt, description: "EVM chain id", resolve: (s) => s.chain_id },
    ...countFields(),
  }),
});

/** A schema's or a protocol version's counts (the stats' by_schema and by_protocol_version). */
const sourceStatsType = (name: string, key: string, keyDescription: string) =>
  new GraphQLObjectType<NativeRecord>({
    name,
    fields: () => ({
      [key]: { type: new GraphQLNonNull(GraphQLString), description: keyDescription, resolve: (s) => s.key },
      ...Object.fromEntries(
        COUNTS.slice(0, 4).map(([field, k, type, description]) => [
          field,
          { type, description, resolve: (s: NativeRecord) => s[k] },
        ]),
      ),
    }),
  });
const SchemaStatsType = sourceStatsType("SchemaStats", "schemaUid", "EAS schema UID");
const ProtocolVersionStatsType = sourceStatsType(
  "ProtocolVersionStats",
  "protocolVersion",
  "Location Protocol version, major.minor (none: records of a schema that is not the protocol's)",
);
const listOf = (type: GraphQLObjectType, member: string) => ({
  type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(type))),
  resolve: (s: NativeRecord) =>
    Object.entries(s[member] as Record<string, NativeRecord>).map(([key, c]) => ({ key, ...c })),
});

const StatsType = new GraphQLObjectType<NativeRecord>({
  name: "LocationProofStats",
  description:
    "Counted from the data, overall, per chain, per schema and per protocol version (GET /api/v0/location-proofs/stats)",
  fields: () => ({
    ...countFields(),
    byChain: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(ChainStatsType))),
      description: "Per chain, in chain name order",
      resolve: (s) =>
        Object.entries(s.by_chain as Record<string, NativeRecord>).map(([chain, c]) => ({ chain, ...c })),
    },
    bySchema: { ...listOf(SchemaStatsType, "by_schema"), description: "Per schema" },
    byProtocolVersion: {
      ...listOf(ProtocolVersionStatsType, "by_protocol_version"),
      description: "Per Location Protocol version",
    },
  }),
});

const QueryType = new GraphQLObjectType<unknown, GraphQLContext>({
  name: "Query",
  fields: {
    locationProof: {
      type: LocationProofType,
      description:
        "One proof by attestation uid (0x + 64 hex digits, any case), revoked or not; null when none has it",
      args: { uid: { type: new GraphQLNonNull(GraphQLString) } },
      resolve: async (_, args, context) => {
        const uid = ARGUMENT_CHECKS.locationProof!(args) as string;
        const row = await context.read(async () => findRecordByUid(await getDb(), uid));
        return row ? serializeProof(row) : null;
      },
    },
    locationProofs: {
      type: new GraphQLNonNull(LocationProofPageType),
      description:
        "A page of proofs matching the filter, newest event first (then uid, then chain id), as GET /api/v0/location-proofs answers it",
      args: {
        filter: filterArg,
        first: {
          type: GraphQLInt,
          defaultValue: DEFAULT_FIRST,
          description: `Page size, 1 to ${MAX_FIRST} (the native limit)`,
        },
        after: {
          type: GraphQLString,
          description: "The endCursor of the page before (absent: the first page)",
        },
      },
      resolve: async (_, args, context, info): Promise<Page> => {
        const q = ARGUMENT_CHECKS.locationProofs!(args) as ListQuery;
        const plan = nodesPlan(info);
        // A proof here has no distance field: its JSON is the plan's whatever the filter (near and radius too).
        // Its JSON within the list's bounds (lib/bounds/): the values, and the page's bytes (pageBytes).
        const bytes = pageBytes(plan, rootPages(info));
        const page = await context.read(() => listPage(q, () => plan.json, bytes));
        return {
          texts: (page.rows as JsonRow[]).map((row) => row.json),
          total: page.total,
          next: page.cursors.next,
          prev: page.cursors.prev,
          plan,
        };
      },
    },
    locationProofsCount: {
      type: new GraphQLNonNull(GraphQLInt),
      description: "How many proofs match the filter (the list's totalCount without a page)",
      args: { filter: filterArg },
      resolve: async (_, args, context) => {
        const filter = listFilter(ARGUMENT_CHECKS.locationProofsCount!(args) as ListQuery);
        return context.read(async () => countMatching(await getDb(), filter));
      },
    },
    locationProofsStats: {
      type: new GraphQLNonNull(StatsType),
      description: "Statistics over every stored proof, overall and per chain",
      resolve: async (_, _args, context) => context.read(async () => proofStats(await getDb())),
    },
  },
});

export const schema = new GraphQLSchema({ query: QueryType });
