/**
 * Where the nodes of a tree came from: a character of the text (its 0-based offset) or a JSON pointer into the JSON.
 * Kept beside the tree (not in it) so that the text and the JSON of one filter parse to equal trees, and the
 * compiler can still say where a type mismatch or an unknown property is. One map per parse, found by the tree's
 * root: a filter has thousands of nodes, and a map of its own takes them far faster than one weak map of all.
 */
export type Places = Map<object, number | string>;

const TREES = new WeakMap<object, Places>();

/** The tree `root`, whose nodes' places are `places`. */
export function withPlaces<T extends object>(root: T, places: Places): T {
  TREES.set(root, places);
  return root;
}

/** The places of the tree whose root is `root` (none for a tree not parsed from a filter). */
export const placesOf = (root: object): Places | undefined => TREES.get(root);

/** A place as the error says it: "character N" (1-based), or the JSON pointer. */
export const describePlace = (place: number | string | undefined): string | undefined =>
  typeof place === "number" ? `character ${place + 1}` : place;

/** A filter that cannot be read or evaluated, with where in the filter the problem is. */
export class CqlError extends Error {
  constructor(
    readonly reason: string,
    readonly where?: string,
  ) {
    super(where ? `${reason} (at ${where})` : reason);
  }
}
