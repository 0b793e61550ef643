import type { ExportColumn } from "./columns.js";

/**
 * A GeoParquet row group's values, gathered as the rows arrive and kept until the group is written: in typed arrays
 * and byte buffers, not as the parsed rows' own strings, numbers and objects. A group outlives many young-generation
 * collections while it is gathered, so whatever JavaScript objects it held would be promoted and collected again by
 * the old generation (the garbage collector was the largest item of a GeoParquet download's CPU). Held as bytes, a
 * parsed row dies young; the values the writer takes (lib/exports/geoparquet.ts) are made one column at a time
 * when the group is written, and die with that column's encoding.
 */
export interface ColumnStore {
  push(value: unknown): void;
  /**
   * The group's values as hyparquet-writer takes them for the column's leaf (geoparquet.ts, leafOf), written plain
   * or not; the store is empty after.
   */
  values(plain: boolean): unknown[];
  /**
   * Whether the group is written plain, never tried as a dictionary (which would only be built to be thrown away):
   * the column's values are distinct by their meaning, or (text) nearly all distinct in this group.
   */
  plain(): boolean;
  /** Whether the group's values are nearly all distinct (text only). */
  nearlyDistinct?(): boolean;
}

/** Numbers, integers (as bigint), instants (as their milliseconds) and booleans: a Float64Array and a null mask. */
class NumberStore implements ColumnStore {
  private readonly numbers: Float64Array;
  private readonly nulls: Uint8Array;
  private n = 0;
  constructor(
    size: number,
    private readonly type: ExportColumn["type"],
  ) {
    this.numbers = new Float64Array(size);
    this.nulls = new Uint8Array(size);
  }
  plain() {
    return false;
  }
  push(value: unknown) {
    const i = this.n++;
    if (value === null || value === undefined) {
      this.nulls[i] = 1;
      return;
    }
    this.nulls[i] = 0;
    this.numbers[i] =
      this.type === "timestamp"
        ? Date.parse(value as string)
        : this.type === "boolean"
          ? value
            ? 1
            : 0
          : (value as number);
  }
  values(): unknown[] {
    const out = new Array<unknown>(this.n);
    for (let i = 0; i < this.n; i++) {
      const x = this.numbers[i]!;
      out[i] = this.nulls[i]
        ? null
        : this.type === "integer"
          ? BigInt(x)
          : this.type === "boolean"
            ? x === 1
            : x;
    }
    this.n = 0;
    return out;
  }
}

/** The distinct values a text column's group is kept as before it is kept as bytes (TextStore). */
const FEW = 256;

/**
 * Text (UTF-8 leaves). While a group's values are few (chains, schemes, versions: at most FEW distinct), each row
 * keeps the number of its value, and the writer gets the very strings back, which it keys its dictionary by and
 * encodes once each. Past FEW distinct values (ids, addresses, free text), every value's bytes go into one buffer
 * with their offsets: written plain, the values are views of that buffer (the writer would otherwise encode each
 * into an array of its own); tried as a dictionary, they are decoded back to strings.
 */
class TextStore implements ColumnStore {
  private bytes: Buffer;
  private readonly ends: Int32Array;
  private readonly nulls: Uint8Array;
  private n = 0;
  private at = 0;
  /** the few values' numbers by value, while the group's values are few; undefined once kept as bytes */
  private few: Map<string, number> | undefined;
  private words: string[] = [];
  private readonly ids: Int32Array;
  constructor(
    size: number,
    /** values distinct by their meaning (ids, hashes): kept as bytes from the first row */
    private readonly distinct: boolean,
  ) {
    this.bytes = Buffer.allocUnsafe(0);
    this.ends = new Int32Array(size);
    this.nulls = new Uint8Array(size);
    this.ids = new Int32Array(distinct ? 0 : size);
    this.reset(64 * 1024);
  }
  /**
   * Empty, for the next group: few values again (unless distinct by meaning), in the same buffer where it holds
   * `bytes`. The views handed to the writer are of that buffer, but a group is written whole, synchronously, before
   * the next row is pushed (geoparquet.ts), so nothing reads them once it is overwritten. A buffer kept across groups
   * spares the allocator a large buffer per column and group, freed soon after: the churn that let the server's
   * resident memory climb (docs/performance.md, Downloads).
   */
  private reset(bytes: number) {
    this.n = 0;
    this.at = 0;
    this.words = [];
    this.few = this.distinct ? undefined : new Map();
    if (this.distinct && this.bytes.length < bytes) this.bytes = Buffer.allocUnsafe(bytes);
  }
  plain() {
    return this.distinct || this.nearlyDistinct();
  }
  push(value: unknown) {
    const i = this.n++;
    if (value === null || value === undefined) {
      this.nulls[i] = 1;
      this.ends[i] = this.at;
      return;
    }
    this.nulls[i] = 0;
    const text = typeof value === "string" ? value : String(value);
    if (this.few) {
      let id = this.few.get(text);
      if (id === undefined && this.few.size < FEW) {
        id = this.words.length;
        this.few.set(text, id);
        this.words.push(text);
      }
      if (id !== undefined) {
        this.ids[i] = id;
        return;
      }
      this.spill(i);
    }
    this.write(i, text);
  }
  /** Keeps the group's first `n` values as bytes from now on: its values are not few. */
  private spill(n: number) {
    this.few = undefined;
    if (this.bytes.length < 64 * 1024) this.bytes = Buffer.allocUnsafe(64 * 1024);
    for (let i = 0; i < n; i++) {
      if (this.nulls[i]) this.ends[i] = this.at;
      else this.write(i, this.words[this.ids[i]!]!);
    }
    this.words = [];
  }
  private write(i: number, text: string) {
    // A UTF-16 unit is at most 3 bytes of UTF-8: room for the worst case, then the exact length written.
    const room = this.at + 3 * text.length;
    if (room > this.bytes.length) {
      const larger = Buffer.allocUnsafe(Math.max(room, 2 * this.bytes.length));
      this.bytes.copy(larger, 0, 0, this.at);
      this.bytes = larger;
    }
    this.at += this.bytes.write(text, this.at);
    this.ends[i] = this.at;
  }
  /**
   * Whether the group's values are nearly all distinct, judged on a sample as hyparquet-writer judges a dictionary
   * (which it keeps only when it halves the plain bytes): such a column is written plain from the start rather than
   * tried as a dictionary, refused, and encoded value by value (addresses and free text: provers, subjects, memos).
   */
  nearlyDistinct(): boolean {
    const size = Math.min(this.n, 1000);
    const seen = new Set<string | number | null>();
    for (let k = 0; k < size; k++) {
      const i = Math.floor((k * this.n) / size);
      seen.add(this.nulls[i] ? null : this.few ? this.ids[i]! : this.text(i));
    }
    return seen.size > 0.9 * size;
  }
  private text(i: number): string {
    return this.bytes.toString("utf8", i ? this.ends[i - 1]! : 0, this.ends[i]!);
  }
  values(plain: boolean): unknown[] {
    const out = new Array<unknown>(this.n);
    if (this.few) {
      const words: unknown[] = plain ? this.words.map((w) => Buffer.from(w)) : this.words;
      for (let i = 0; i < this.n; i++) out[i] = this.nulls[i] ? null : words[this.ids[i]!];
    } else {
      const bytes = this.bytes;
      for (let i = 0, start = 0; i < this.n; i++) {
        const end = this.ends[i]!;
        out[i] = this.nulls[i]
          ? null
          : plain
            ? bytes.subarray(start, end)
            : bytes.toString("utf8", start, end);
        start = end;
      }
    }
    this.reset(Math.max(64 * 1024, this.at));
    return out;
  }
}

/**
 * Arrays and objects (JSON leaves), kept as parsed: the writer writes each distinct object's JSON once per group, so
 * the empty list, the common value of the recipe and media columns, is one shared object rather than a new one
 * per row.
 */
class JsonStore implements ColumnStore {
  private items: unknown[] = [];
  constructor(private readonly distinct: boolean) {}
  plain() {
    return this.distinct;
  }
  push(value: unknown) {
    this.items.push(value === undefined ? null : Array.isArray(value) && value.length === 0 ? EMPTY : value);
  }
  values(): unknown[] {
    const out = this.items;
    this.items = [];
    return out;
  }
}

const EMPTY: readonly unknown[] = Object.freeze([]);

/**
 * The store of a column's values in a row group of at most `size` rows; `distinct`: the column's values are distinct
 * by their meaning (ids, hashes).
 */
export function columnStore(column: ExportColumn, size: number, distinct: boolean): ColumnStore {
  switch (column.type) {
    case "integer":
    case "number":
    case "boolean":
    case "timestamp":
      return new NumberStore(size, column.type);
    case "strings":
    case "geometry":
    case "bbox":
    case "object":
      return new JsonStore(distinct);
    default:
      return new TextStore(size, distinct);
  }
}

/** The bytes of a point's WKB. */
const POINT_WKB_BYTES = 21;

/**
 * The geometry column and its bbox covering: a point's WKB (ISO, little-endian: byte order 1, type 1, x, y, as
 * hyparquet-writer's geojsonToWkb writes it) and its bounds written into the group's buffers as it arrives; any
 * other geometry's WKB as made. The covering's rows ({xmin, ymin, xmax, ymax}, or null without geometry) are made
 * when the group is written.
 */
export class GeometryStore {
  private wkb: Buffer;
  private shapes: (Uint8Array | null)[] = [];
  private readonly bounds: Float64Array;
  /** 0: no geometry, 1: a point (in wkb), 2: another geometry (in shapes) */
  private readonly kinds: Uint8Array;
  n = 0;
  constructor(size: number) {
    this.wkb = Buffer.allocUnsafe(size * POINT_WKB_BYTES);
    this.bounds = new Float64Array(4 * size);
    this.kinds = new Uint8Array(size);
  }
  point(x: number, y: number) {
    const i = this.n++;
    const at = i * POINT_WKB_BYTES;
    this.wkb[at] = 1;
    this.wkb.writeUInt32LE(1, at + 1);
    this.wkb.writeDoubleLE(x, at + 5);
    this.wkb.writeDoubleLE(y, at + 13);
    this.bounds.set([x, y, x, y], 4 * i);
    this.kinds[i] = 1;
  }
  shape(wkb: Uint8Array, box: [number, number, number, number] | null) {
    const i = this.n++;
    this.shapes[i] = wkb;
    if (box) this.bounds.set(box, 4 * i);
    this.kinds[i] = box ? 2 : 3;
  }
  none() {
    this.kinds[this.n++] = 0;
  }
  /** The geometry column's values: WKB, or null. */
  geometries(): (Uint8Array | null)[] {
    const out = new Array<Uint8Array | null>(this.n);
    for (let i = 0; i < this.n; i++) {
      const kind = this.kinds[i];
      out[i] =
        kind === 1
          ? this.wkb.subarray(i * POINT_WKB_BYTES, (i + 1) * POINT_WKB_BYTES)
          : kind === 0
            ? null
            : (this.shapes[i] ?? null);
    }
    return out;
  }
  /**
   * Ready for the next group, once this one's columns are written: its WKB views are of the same buffer, which the
   * next group overwrites only after this one is written whole (TextStore.reset).
   */
  reset() {
    this.shapes = [];
    this.n = 0;
  }
  /** The bbox covering's values, a struct per row, or null without geometry (or without bounds). */
  boxes(): (Bounds | null)[] {
    const out = new Array<Bounds | null>(this.n);
    const b = this.bounds;
    for (let i = 0; i < this.n; i++) {
      const kind = this.kinds[i];
      out[i] =
        kind === 1 || kind === 2
          ? { xmin: b[4 * i]!, ymin: b[4 * i + 1]!, xmax: b[4 * i + 2]!, ymax: b[4 * i + 3]! }
          : null;
    }
    return out;
  }
}

export type Bounds = { xmin: number; ymin: number; xmax: number; ymax: number };
