import { ByteWriter } from "hyparquet-writer";
import { describe, expect, it } from "vitest";
import { packageAppendBytes, useLeanAppendBytes } from "../../lib/exports/byte-writer.js";

/** Writes the same mix of values through a fresh ByteWriter, appending byte arrays with `append`. */
function written(append: (this: ByteWriter, value: Uint8Array) => void, seed: number) {
  const writer = new ByteWriter(16);
  let x = seed;
  const next = () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x;
  };
  for (let i = 0; i < 2000; i++) {
    const size = next() % (i % 50 === 0 ? 5000 : 70);
    const value = Uint8Array.from({ length: size }, () => next() % 256);
    writer.appendUint32(value.length);
    // a view into a larger buffer, as the download's stores hand out (not at offset 0)
    const padded = new Uint8Array(size + 3);
    padded.set(value, 3);
    append.call(writer, padded.subarray(3));
    if (i % 97 === 0) writer.appendVarInt(i);
  }
  return { bytes: Buffer.from(writer.getBytes()), offset: writer.offset, index: writer.index };
}

describe("hyparquet-writer's ByteWriter with one view of its buffer (lib/exports/byte-writer.ts)", () => {
  it("writes exactly the bytes, offset and index of the package's own appendBytes, across its buffer's growth", () => {
    useLeanAppendBytes();
    const lean = ByteWriter.prototype.appendBytes;
    expect(lean).not.toBe(packageAppendBytes);
    for (const seed of [1, 7, 2026]) {
      const ours = written(lean, seed);
      const theirs = written(packageAppendBytes as never, seed);
      expect(ours.offset).toBeGreaterThan(50_000);
      expect(ours).toEqual(theirs);
    }
  });

  it("keeps writing into the buffer after a flush empties it (index back to 0, offset kept)", () => {
    useLeanAppendBytes();
    const writer = new ByteWriter(8);
    writer.appendBytes(Uint8Array.of(1, 2, 3));
    writer.index = 0;
    writer.appendBytes(Uint8Array.of(9, 8));
    expect([...writer.getBytes()]).toEqual([9, 8]);
    expect(writer.offset).toBe(5);
  });
});
