import * as v from "valibot";
import { getDb } from "../../db/client.js";
import { badParameter } from "../http/errors.js";
import { parseEntries } from "../http/query.js";
import { uidParam } from "../params/grammar.js";
import { sourceFilter } from "../params/to-filter.js";
import { STATS_PARAMS } from "../v0/list-params.js";
import { getLocationProof } from "../v0/location-proofs.js";
import { serviceConfig } from "../v0/service-info.js";
import { statsBody } from "../v0/stats-route.js";
import { nativeParameters } from "./arguments.js";
import {
  getProofInputSchema,
  noArguments,
  searchInputSchema,
  searchOutputSchema,
  standalone,
  statisticsInputSchema,
} from "./schemas.js";
import { searchProofs } from "./search.js";

type Json = Record<string, unknown>;

/** What a tool answers: its structured content, and a sentence for a reader who sees text only. */
export type ToolAnswer = { structured: Json; text: string };

export type Tool = {
  name: string;
  title: string;
  description: string;
  inputSchema: () => Json;
  outputSchema: () => Json;
  /** Answers, or throws an ApiError whose message says what is wrong (a tool error, never a failed request). */
  run(args: Record<string, unknown> | undefined, request: Request): Promise<ToolAnswer>;
};

const count = (n: number, noun: string) => `${n.toLocaleString("en")} ${noun}${n === 1 ? "" : "s"}`;

/**
 * The MCP tools: each is one native endpoint's question, answered by the same lib function with the arguments the
 * native validators take, so that a tool and the endpoint give the same answer (tests/mcp/ compare them).
 */
export const TOOLS: readonly Tool[] = [
  {
    name: "search_location_proofs",
    title: "Search location proofs",
    description:
      "Location proofs (EAS attestations that something was somewhere at some time), newest event first or nearest first: filter by a point and radius (near, radius), a bounding box, event time, chain, prover (attester), subject (recipient), schema, protocol version and location type. Answers a small page, the total, and a cursor to continue. Same filters as GET /api/v0/location-proofs.",
    inputSchema: searchInputSchema,
    outputSchema: searchOutputSchema,
    async run(args) {
      const result = await searchProofs(args);
      const { total, returned, next_cursor } = result.pagination;
      return {
        structured: result,
        text: `${count(returned, "location proof")} of ${total.toLocaleString("en")} matching${
          next_cursor ? `; more with cursor "${next_cursor}"` : ""
        }.`,
      };
    },
  },
  {
    name: "get_location_proof",
    title: "Get one location proof",
    description:
      "One location proof by its attestation uid, revoked or not (its revoked flag says which). Same as GET /api/v0/location-proofs/{uid}.",
    inputSchema: getProofInputSchema,
    outputSchema: () => standalone("LocationProof"),
    async run(args) {
      const { uid } = nativeParameters(args, { uid: "text" });
      if (uid === undefined) throw badParameter("uid", "uid is required");
      const parsed = v.safeParse(uidParam, uid);
      if (!parsed.success) throw badParameter("uid", parsed.issues[0].message);
      const proof = (await getLocationProof(parsed.output)) as Json;
      return {
        structured: proof,
        text: `Location proof ${parsed.output} on ${String(proof.chain)}${proof.revoked ? " (revoked)" : ""}.`,
      };
    },
  },
  {
    name: "location_proof_statistics",
    title: "Location proof statistics",
    description:
      "Counts of location proofs overall and by chain, schema and protocol version (total, revoked, with coordinates, first and latest event), optionally only of some schemas, protocol versions or location types. Same as GET /api/v0/location-proofs/stats.",
    inputSchema: statisticsInputSchema,
    outputSchema: () => standalone("Stats"),
    async run(args) {
      const q = parseEntries(
        nativeParameters(args, { schema: "list", protocolVersion: "list", locationType: "list" }),
        STATS_PARAMS,
      );
      const stats = (await statsBody(await getDb(), sourceFilter(q))) as unknown as Json & { total: number };
      return {
        structured: stats,
        text: `${count(stats.total, "location proof")} in ${Object.keys(stats.by_chain as Json).length} chain(s).`,
      };
    },
  },
  {
    name: "list_networks",
    title: "Networks and schemas",
    description:
      "The chains this service knows (name, chain id, EAS and SchemaRegistry addresses), which it syncs and how fresh each is, the location schemas each indexes, and the API's limits. Same as GET /api/v0/config.",
    inputSchema: noArguments,
    outputSchema: () => standalone("Config"),
    async run(args, request) {
      nativeParameters(args, {});
      const config = (await serviceConfig(request)) as unknown as Json & { chains: { enabled: boolean }[] };
      const synced = config.chains.filter((c) => c.enabled).length;
      return {
        structured: config,
        text: `${count(config.chains.length, "network")} known, ${synced} synced here.`,
      };
    },
  },
];
