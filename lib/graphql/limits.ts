import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from "graphql/index.mjs";
import { PROOF_PROPERTIES } from "../proofs/properties.js";
import { DEFAULT_FIRST, MAX_FIRST } from "./filter-input.js";

/**
 * Limits on what one GraphQL request may ask, checked before anything runs, each refused with an error naming it
 * (extensions: code QueryTooComplex, `limit`, `max`, `actual`):
 *
 * - depth: fields nested in fields. This schema's own queries are at most 3 deep; the limit is what the standard
 *   introspection query needs (GraphiQL and client generators send it), and it stops introspection queries that
 *   follow the schema's cycles (a type's fields' types' fields …) into an answer that grows with every level.
 * - cost: what the answer holds, so that one request cannot ask for more than the native API's largest page. Every
 *   field selected costs 1 each time it is answered: a field inside a page's `nodes` is answered once per proof the
 *   page may hold (its `first`), so it costs `first`; each field that reads the database costs DB_READ_COST more.
 *   Selections of one response key merge (as GraphQL merges them), aliases are separate keys.
 * - aliases: how many response keys one field may have in one selection. A field aliased a thousand times inside
 *   `nodes` would make PostgreSQL write each proof's value a thousand times; a few (the same page under two
 *   filters, a field under two names) are all a real query needs.
 * - tokens: the document's size in tokens, checked by the parser (parse's maxTokens) before the rest.
 *
 * Beside these, a request's reads run at most MAX_CONCURRENT_READS at a time (lib/graphql/schema.ts), so one
 * request never holds the whole connection pool, and every statement has the request's deadline
 * (lib/budget/request-budget.ts).
 */
export const MAX_DEPTH = 15;
export const DB_READ_COST = 10;
/** The fields of one proof (every property of the catalogue, as LocationProof has them). */
export const PROOF_FIELDS = PROOF_PROPERTIES.length;
/** The largest native page with every field, and room for the rest of a query beside it. */
export const MAX_COST = MAX_FIRST * PROOF_FIELDS + 1000;
export const MAX_ALIASES = 4;
export const MAX_TOKENS = 5000;
export const MAX_CONCURRENT_READS = 2;

/** The root fields that read the database. */
const READS = new Set(["locationProof", "locationProofs", "locationProofsCount", "locationProofsStats"]);

type Measure = {
  depth: number;
  cost: number;
  /** the field aliased most often in one selection, and how many keys it had */
  aliases: { field: string; keys: number };
};

/**
 * The operation's depth, cost and most-aliased field. `variables` are the coerced ones (a page's `first` may be a
 * variable); a `first` that is no valid size counts as the largest (its own check refuses it later).
 */
export function measure(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): Measure {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const firstOf = (arg: ValueNode | undefined): number => {
    const value =
      arg === undefined || arg.kind === Kind.NULL
        ? undefined
        : arg.kind === Kind.VARIABLE
          ? (variables[arg.name.value] ?? undefined)
          : arg.kind === Kind.INT
            ? Number(arg.value)
            : Number.NaN;
    if (value === undefined) return DEFAULT_FIRST;
    return typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= MAX_FIRST
      ? value
      : MAX_FIRST;
  };
  const aliases = { field: "", keys: 0 };
  /** A selection's fields by response key, through fragments (fragment cycles are refused by validation first). */
  const collect = (
    sets: SelectionSetNode[],
    into = new Map<string, FieldNode[]>(),
    seen = new Set<string>(),
  ) => {
    for (const set of sets) {
      for (const s of set.selections) {
        if (s.kind === Kind.FIELD) {
          const key = s.alias?.value ?? s.name.value;
          into.set(key, [...(into.get(key) ?? []), s]);
        } else if (s.kind === Kind.INLINE_FRAGMENT) collect([s.selectionSet], into, seen);
        else {
          const fragment = fragments.get(s.name.value);
          if (fragment && !seen.has(s.name.value))
            collect([fragment.selectionSet], into, new Set([...seen, s.name.value]));
        }
      }
    }
    return into;
  };
  /**
   * The cost and depth of answering `sets` `times` times (inside a page's nodes: once per proof); `page` is the
   * `first` of the page whose fields these are (locationProofs' selection).
   */
  const walk = (
    sets: SelectionSetNode[],
    level: number,
    times: number,
    page: number | undefined,
  ): { cost: number; deepest: number } => {
    const keysPerField = new Map<string, number>();
    let cost = 0;
    let deepest = level - 1;
    for (const nodes of collect(sets).values()) {
      const field = nodes[0]!.name.value;
      const keys = (keysPerField.get(field) ?? 0) + 1;
      keysPerField.set(field, keys);
      if (keys > aliases.keys) Object.assign(aliases, { field, keys });
      cost += times + (level === 1 && READS.has(field) ? DB_READ_COST : 0);
      const children = nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
      if (!children.length) {
        deepest = Math.max(deepest, level);
        continue;
      }
      // Validation lets one key carry one set of arguments, so the first node's `first` is the key's.
      const below = walk(
        children,
        level + 1,
        page !== undefined && field === "nodes" ? times * page : times,
        level === 1 && field === "locationProofs" ? firstOf(argument(nodes[0]!, "first")) : undefined,
      );
      cost += below.cost;
      deepest = Math.max(deepest, below.deepest);
    }
    return { cost, deepest };
  };
  const { cost, deepest } = walk([operation.selectionSet], 1, 1, undefined);
  return { depth: deepest, cost, aliases };
}

const argument = (field: FieldNode, name: string) =>
  field.arguments?.find((a) => a.name.value === name)?.value;

/** The limits the operation exceeds, as GraphQL errors naming each. */
export function limitErrors(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): GraphQLError[] {
  const { depth, cost, aliases } = measure(document, operation, variables);
  const errors: GraphQLError[] = [];
  const refuse = (limit: string, max: number, actual: number, message: string, extra = {}) =>
    errors.push(
      new GraphQLError(message, {
        nodes: operation,
        extensions: { code: "QueryTooComplex", limit, max, actual, ...extra },
      }),
    );
  if (depth > MAX_DEPTH)
    refuse("depth", MAX_DEPTH, depth, `Query depth ${depth} exceeds the depth limit of ${MAX_DEPTH}`);
  if (aliases.keys > MAX_ALIASES)
    refuse(
      "aliases",
      MAX_ALIASES,
      aliases.keys,
      `Field '${aliases.field}' is selected under ${aliases.keys} names in one selection; at most ${MAX_ALIASES} are allowed`,
      { field: aliases.field },
    );
  if (cost > MAX_COST)
    refuse(
      "cost",
      MAX_COST,
      cost,
      `Query cost ${cost} exceeds the cost limit of ${MAX_COST} (1 per field answered — a field of a page's nodes once per proof the page may hold — plus ${DB_READ_COST} per field that reads the database)`,
    );
  return errors;
}
