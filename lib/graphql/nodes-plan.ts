import type { SQL } from "drizzle-orm";
import { sql } from "drizzle-orm";
import {
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLResolveInfo,
  Kind,
  type SelectionSetNode,
} from "graphql/index.mjs";
import { listSource } from "../bounds/bounded-sql.js";
import { PAGE_BYTES } from "../bounds/limits.js";
import { BoundedMap } from "../cache/bounded-map.js";
import { jsonTextOf } from "../proofs/json-sql.js";
import { PROOF_PROPERTIES, type ProofProperty } from "../proofs/properties.js";
import { LIST_RECORD_JSON } from "../v0/location-proofs.js";
import { MAX_ALIASES } from "./limits.js";
import { camelCase } from "./proof-type.js";

/**
 * How a page's proofs are read and answered.
 *
 * Executing a GraphQL selection costs a few microseconds per field per proof (graphql-js resolves and completes each
 * one), several times the rest of a request on a page of a hundred proofs of thirty fields. A page's `nodes` are
 * proofs of scalar fields only, so when the selection is plain — fields, aliases, __typename, fragments on the proof,
 * no directive — PostgreSQL writes each proof as the JSON object GraphQL would answer (the response keys in
 * selection order, each value from the property catalogue's SQL source, as the native records are written) and the
 * response splices the texts in where graphql-js left an empty list (`splice`). Any other selection is executed
 * by graphql-js over the native records (`records`). Either way the proofs are the same rows of the same query.
 */
export type NodesPlan =
  | { kind: "splice"; json: SQL; key: string }
  | { kind: "records"; json: SQL }
  | { kind: "none"; json: SQL };

const BY_FIELD = new Map<string, ProofProperty>(PROOF_PROPERTIES.map((q) => [camelCase(q.name), q]));
const TYPENAME = { name: "__typename", source: sql`'LocationProof'::text` };
/**
 * The native list's record (LIST_RECORD_JSON: its values within the list's bounds, `truncated` where one was cut:
 * lib/bounds/), for graphql-js to execute a selection over (LocationProof has no distance: none is written).
 */
const RECORD = LIST_RECORD_JSON();
/** Nothing to write for a page whose proofs no one reads (totalCount, pageInfo): only its sort key is read. */
const NOTHING = sql`null`;

/** Projections already rendered, by their members: a handful of selections serve nearly every request. */
const projections = new BoundedMap<string, SQL>(500);

function projection(members: { name: string; source: SQL }[], key: string): SQL {
  return projections.getOrMake(key, () => jsonTextOf(members));
}

/** The `nodes` selections of a locationProofs field (through fragments), by response key. */
function nodesFields(
  set: SelectionSetNode,
  fragments: Record<string, FragmentDefinitionNode>,
  found: Map<string, FieldNode[]>,
): boolean {
  for (const s of set.selections) {
    if (s.directives?.length) return false;
    if (s.kind === Kind.FIELD) {
      if (s.name.value !== "nodes") continue;
      const key = s.alias?.value ?? "nodes";
      found.set(key, [...(found.get(key) ?? []), s]);
    } else {
      const fragment = s.kind === Kind.INLINE_FRAGMENT ? s : fragments[s.name.value];
      if (!fragment || !nodesFields(fragment.selectionSet, fragments, found)) return false;
    }
  }
  return true;
}

/** The members of a plain proof selection, in GraphQL's response order (first occurrence), or undefined. */
function plainMembers(
  set: SelectionSetNode,
  fragments: Record<string, FragmentDefinitionNode>,
  members: Map<string, { name: string; source: SQL; field: string }>,
): boolean {
  for (const s of set.selections) {
    if (s.directives?.length) return false;
    if (s.kind === Kind.FIELD) {
      const key = s.alias?.value ?? s.name.value;
      const field = s.name.value;
      if (members.has(key)) {
        // Validation lets a key repeat only for the same field (OverlappingFieldsCanBeMerged).
        if (members.get(key)!.field !== field) return false;
        continue;
      }
      if (field === "__typename") members.set(key, { ...TYPENAME, name: key, field });
      else {
        const property = BY_FIELD.get(field);
        if (!property || s.selectionSet) return false;
        // Within the list's bounds (lib/bounds/), as the native list carries it.
        members.set(key, { name: key, source: listSource(property), field });
      }
    } else {
      const fragment = s.kind === Kind.INLINE_FRAGMENT ? s : fragments[s.name.value];
      const on = fragment?.typeCondition?.name.value;
      if (!fragment || (on !== undefined && on !== "LocationProof")) return false;
      if (!plainMembers(fragment.selectionSet, fragments, members)) return false;
    }
  }
  return true;
}

/** The plan for the page a locationProofs field asks for (`info` is that field's). */
export function nodesPlan(info: GraphQLResolveInfo): NodesPlan {
  const found = new Map<string, FieldNode[]>();
  const plain = info.fieldNodes.every(
    (node) => node.selectionSet && nodesFields(node.selectionSet, info.fragments, found),
  );
  if (plain && found.size === 0) return { kind: "none", json: NOTHING };
  if (!plain || found.size > 1) return { kind: "records", json: RECORD };
  const [[key, nodes]] = [...found] as [[string, FieldNode[]]];
  const members = new Map<string, { name: string; source: SQL; field: string }>();
  for (const node of nodes) {
    if (!node.selectionSet || !plainMembers(node.selectionSet, info.fragments, members))
      return { kind: "records", json: RECORD };
  }
  const list = [...members.values()];
  return {
    kind: "splice",
    key,
    json: projection(list, list.map((m) => `${m.name}:${m.field}`).join(",")),
  };
}

/**
 * The bytes of JSON one page of a locationProofs field may read (its proofs, as the plan writes them): the list's
 * PAGE_BYTES shared by the request's pages (`pages`, each locationProofs key of the operation), and, where
 * graphql-js answers from the whole record (`records`), divided by the most copies of a value a selection can
 * make of it (the `nodes` key and each field aliased up to MAX_ALIASES times), so the answer stays within PAGE_BYTES.
 */
export function pageBytes(plan: NodesPlan, pages: number): number {
  const copies = plan.kind === "records" ? MAX_ALIASES * MAX_ALIASES : 1;
  return Math.floor(PAGE_BYTES / Math.max(1, pages) / copies);
}

/** How many response keys of the operation's root selection (through fragments) are locationProofs fields. */
export function rootPages(info: GraphQLResolveInfo): number {
  const keys = new Set<string>();
  const visit = (set: SelectionSetNode, seen: Set<string>) => {
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) {
        if (s.name.value === "locationProofs") keys.add(s.alias?.value ?? s.name.value);
      } else if (s.kind === Kind.INLINE_FRAGMENT) visit(s.selectionSet, seen);
      else if (!seen.has(s.name.value) && info.fragments[s.name.value])
        visit(info.fragments[s.name.value]!.selectionSet, new Set([...seen, s.name.value]));
    }
  };
  visit(info.operation.selectionSet, new Set());
  return Math.max(1, keys.size);
}
