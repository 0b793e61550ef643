import { describe, expect, it } from "vitest";
import { geojsonSeqWriter } from "../../lib/exports/geojson-seq.js";
import { listBytes } from "../../lib/http/respond.js";

/**
 * listBytes (lib/http/respond.ts), which writes the JSON lists and the downloads' text formats, against TextEncoder
 * over the joined text, for ASCII, Latin-1, BMP and astral texts.
 */
describe("listBytes", () => {
  const encoder = new TextEncoder();
  const texts = ["", "plain", "Zürich", "東京都", "emoji 🗺️ map", '{"a":"\\u0000"}', "x".repeat(70_000)];
  const seq = (list: string[]) => Buffer.concat(geojsonSeqWriter().write(list));

  it("writes each text as UTF-8, in order, between its separators", () => {
    expect(seq(texts)).toEqual(Buffer.from(encoder.encode(texts.map((t) => `\x1e${t}\n`).join(""))));
    expect(Buffer.from(listBytes("", texts, "", ""))).toEqual(Buffer.from(encoder.encode(texts.join(""))));
    expect(Buffer.from(listBytes("", texts, "\n", "\n"))).toEqual(
      Buffer.from(encoder.encode(texts.map((t) => `${t}\n`).join(""))),
    );
    expect(Buffer.from(listBytes("[", texts, "]"))).toEqual(
      Buffer.from(encoder.encode(`[${texts.join(",")}]`)),
    );
  });

  it("is exactly as long as its bytes, and empty for no texts", () => {
    expect(listBytes("", [], "", "").length).toBe(0);
    expect(seq([]).length).toBe(0);
    expect(seq(["é"]).length).toBe(4);
  });

  it("encodes a lone surrogate as U+FFFD, as TextEncoder does", () => {
    const lone = "a\ud800b";
    expect(Buffer.from(listBytes("", [lone], "", ""))).toEqual(Buffer.from(encoder.encode(lone)));
  });
});
