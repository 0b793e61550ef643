import { ByteWriter } from "hyparquet-writer";

/** hyparquet-writer's ByteWriter, as far as appendBytes uses it (the package's own fields). */
type Bytes = {
  buffer: ArrayBuffer;
  index: number;
  offset: number;
  ensure(size: number): void;
  appendBytes(value: Uint8Array): void;
  /** a view of the whole of `buffer`, made again only when `ensure` has replaced the buffer */
  whole?: Uint8Array;
};

/**
 * hyparquet-writer's `ByteWriter.appendBytes`, without a new view per call. The package (pinned in package.json)
 * writes every byte-array value (ids, hashes, WKB: several per row) by making a Uint8Array over its buffer for that
 * one value and copying into it: an object per value that only the young-generation collector takes away, and the
 * largest single source of a GeoParquet download's garbage in the writer. This keeps one view of the buffer and
 * copies at the index instead. Same bytes, same fields moved (`index`, `offset`), same growth (`ensure`), so every
 * writer the package makes (its pages, dictionaries and the file's own) writes what it wrote before;
 * tests/exports/byte-writer.test.ts checks it against the package's own method.
 */
function appendBytes(this: Bytes, value: Uint8Array): void {
  this.ensure(value.length);
  let whole = this.whole;
  if (whole === undefined || whole.buffer !== this.buffer) {
    whole = new Uint8Array(this.buffer);
    this.whole = whole;
  }
  whole.set(value, this.index);
  this.offset += value.length;
  this.index += value.length;
}

/** The package's own method, kept for the test that compares the two. */
export const packageAppendBytes = (ByteWriter.prototype as unknown as Bytes).appendBytes;

/** Puts appendBytes in place of the package's, once; the GeoParquet writer calls it when it loads. */
export function useLeanAppendBytes(): void {
  const proto = ByteWriter.prototype as unknown as Bytes;
  if (typeof proto.ensure === "function") proto.appendBytes = appendBytes;
}
