import { describe, expect, it } from "vitest";
import { exportColumns } from "../../lib/exports/columns.js";
import { threadedParquetWriter } from "../../lib/exports/thread.js";

// The encoder thread's own life (lib/exports/thread.ts): closed, it ends, and a call after that fails rather than
// waiting for an answer that will never come; an encoder that throws fails the call that made it throw.

describe("the GeoParquet encoder thread", () => {
  it("answers calls in order, and once closed refuses the next", async () => {
    const writer = threadedParquetWriter({ columns: exportColumns(false), points: true });
    const magic = Buffer.concat(await writer.start(0));
    expect(magic.subarray(0, 4).toString()).toBe("PAR1");
    writer.close!();
    await expect(writer.write([])).rejects.toThrow(/ended/);
  });

  it("a row it cannot parse fails that call with the encoder's reason", async () => {
    const writer = threadedParquetWriter({ columns: exportColumns(false), points: true });
    await writer.start(1);
    await expect(writer.write(["not json"])).rejects.toThrow(/GeoParquet encoder: .*JSON/);
    writer.close!();
  });
});
