/**
 * Where a node of the tree came from: "character N" of the text, or a JSON pointer into the JSON. Kept beside the
 * tree (not in it) so that the text and the JSON of one filter parse to equal trees, and the compiler can still say
 * where a type mismatch or an unknown property is.
 */
const PLACES = new WeakMap<object, string>();

export function placed<T extends object>(node: T, where: string): T {
  PLACES.set(node, where);
  return node;
}

export const placeOf = (node: unknown): string | undefined =>
  node && typeof node === "object" ? PLACES.get(node) : undefined;

/** A filter that cannot be read or evaluated, with where in the filter the problem is. */
export class CqlError extends Error {
  constructor(
    readonly reason: string,
    readonly where?: string,
  ) {
    super(where ? `${reason} (at ${where})` : reason);
  }
}
