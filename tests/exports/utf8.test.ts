import { describe, expect, it } from "vitest";
import { utf8Texts } from "../../lib/exports/utf8.js";

/** lib/exports/utf8.ts against TextEncoder over the joined text, for ASCII, Latin-1, BMP and astral texts. */
describe("utf8Texts", () => {
  const encoder = new TextEncoder();
  const texts = ["", "plain", "Zürich", "東京都", "emoji 🗺️ map", '{"a":"\\u0000"}', "x".repeat(70_000)];

  it("writes each text as UTF-8, in order, between its separators", () => {
    expect(Buffer.from(utf8Texts(texts, 0x1e, 0x0a))).toEqual(
      Buffer.from(encoder.encode(texts.map((t) => `\x1e${t}\n`).join(""))),
    );
    expect(Buffer.from(utf8Texts(texts))).toEqual(Buffer.from(encoder.encode(texts.join(""))));
    expect(Buffer.from(utf8Texts(texts, undefined, 0x0a))).toEqual(
      Buffer.from(encoder.encode(texts.map((t) => `${t}\n`).join(""))),
    );
  });

  it("is exactly as long as its bytes, and empty for no texts", () => {
    expect(utf8Texts([]).length).toBe(0);
    expect(utf8Texts(["é"], 0x1e, 0x0a).length).toBe(4);
  });

  it("encodes a lone surrogate as U+FFFD, as TextEncoder does", () => {
    const lone = "a\ud800b";
    expect(Buffer.from(utf8Texts([lone]))).toEqual(Buffer.from(encoder.encode(lone)));
  });
});
