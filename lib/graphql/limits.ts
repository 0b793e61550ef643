import {
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from "graphql/index.mjs";
import { DEFAULT_FIRST, MAX_FIRST } from "./filter-input.js";

/**
 * Limits on what one GraphQL request may ask, checked before anything runs, each refused with an error naming it
 * (extensions: code QueryTooComplex, `limit`, `max`, `actual`):
 *
 * - depth: fields nested in fields. This schema's own queries are at most 3 deep; the limit is what the standard
 *   introspection query needs (GraphiQL and client generators send it), and it stops introspection queries that
 *   follow the schema's cycles (a type's fields' types' fields …) into an answer that grows with every level.
 * - cost: what the request makes the database do, so that one request cannot be a thousand: each field that reads
 *   the database (aliases included) costs DB_READ_COST, and a page costs one more per proof it may hold (`first`).
 *   The limit admits the largest native page and a few reads beside it.
 * - tokens: the document's size in tokens, checked by the parser (parse's maxTokens) before the rest.
 */
export const MAX_DEPTH = 15;
export const DB_READ_COST = 10;
export const MAX_COST = MAX_FIRST + 10 * DB_READ_COST;
export const MAX_TOKENS = 5000;

/** The root fields that read the database, and the cost of each beyond DB_READ_COST (a page: its `first`). */
const READS: Record<string, (first: number | undefined) => number> = {
  locationProof: () => 0,
  locationProofs: (first) => first ?? DEFAULT_FIRST,
  locationProofsCount: () => 0,
  locationProofsStats: () => 0,
};

type Measure = { depth: number; cost: number };

/**
 * The operation's depth and cost. `variables` are the coerced ones (a page's `first` may be a variable); a `first`
 * that is no valid size counts as the largest (its own check refuses it later).
 */
export function measure(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): Measure {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const firstOf = (value: unknown): number =>
    typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= MAX_FIRST
      ? value
      : MAX_FIRST;
  let cost = 0;
  // Fragment cycles are refused by validation, which runs first; `seen` only guards the walk itself.
  const walk = (set: SelectionSetNode, level: number, root: boolean, seen: Set<string>): number => {
    let deepest = level - 1;
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) {
        const name = s.name.value;
        if (root && Object.hasOwn(READS, name)) {
          const arg = s.arguments?.find((a) => a.name.value === "first")?.value;
          const first =
            arg === undefined
              ? undefined
              : arg.kind === Kind.VARIABLE
                ? variables[arg.name.value] === undefined || variables[arg.name.value] === null
                  ? undefined
                  : firstOf(variables[arg.name.value])
                : arg.kind === Kind.INT
                  ? firstOf(Number(arg.value))
                  : arg.kind === Kind.NULL
                    ? undefined
                    : MAX_FIRST;
          cost += DB_READ_COST + READS[name]!(first);
        }
        deepest = Math.max(deepest, s.selectionSet ? walk(s.selectionSet, level + 1, false, seen) : level);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        deepest = Math.max(deepest, walk(s.selectionSet, level, root, seen));
      } else {
        const fragment = fragments.get(s.name.value);
        if (fragment && !seen.has(s.name.value)) {
          deepest = Math.max(
            deepest,
            walk(fragment.selectionSet, level, root, new Set([...seen, s.name.value])),
          );
        }
      }
    }
    return deepest;
  };
  const depth = walk(operation.selectionSet, 1, true, new Set());
  return { depth, cost };
}

/** The limits the operation exceeds, as GraphQL errors naming each. */
export function limitErrors(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): GraphQLError[] {
  const { depth, cost } = measure(document, operation, variables);
  const errors: GraphQLError[] = [];
  const refuse = (limit: string, max: number, actual: number, message: string) =>
    errors.push(
      new GraphQLError(message, {
        nodes: operation,
        extensions: { code: "QueryTooComplex", limit, max, actual },
      }),
    );
  if (depth > MAX_DEPTH)
    refuse("depth", MAX_DEPTH, depth, `Query depth ${depth} exceeds the depth limit of ${MAX_DEPTH}`);
  if (cost > MAX_COST)
    refuse(
      "cost",
      MAX_COST,
      cost,
      `Query cost ${cost} exceeds the cost limit of ${MAX_COST} (${DB_READ_COST} per field that reads the database, plus 1 per proof a page may hold)`,
    );
  return errors;
}
