/**
 * A map that holds at most `max` entries, for the values a process keeps for requests to come (rendered sort
 * shapes, GraphQL projections and documents, remembered counts). Their keys come from clients, so every such map
 * needs a bound; when a new key would pass it, the entry used least recently goes. A Map iterates in insertion
 * order, so an entry moved to the end when used keeps the least recently used one first.
 */
export class BoundedMap<K, V> {
  readonly #entries = new Map<K, V>();
  readonly #max: number;

  constructor(max: number) {
    if (!(Number.isInteger(max) && max > 0))
      throw new RangeError(`a BoundedMap holds at least 1 entry, not ${max}`);
    this.#max = max;
  }

  get size(): number {
    return this.#entries.size;
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }

  /** The value of `key`, which becomes the most recently used. */
  get(key: K): V | undefined {
    if (!this.#entries.has(key)) return undefined;
    const value = this.#entries.get(key) as V;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** Keeps `value` as the most recently used, and lets the least recently used entry go if there are too many. */
  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value as K);
  }

  /** The value of `key`, made by `make` and kept if it is not there yet. */
  getOrMake(key: K, make: () => V): V {
    if (this.#entries.has(key)) return this.get(key) as V;
    const value = make();
    this.set(key, value);
    return value;
  }
}
