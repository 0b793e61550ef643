import { describe, expect, it } from "vitest";
import type { LocationProofRow } from "../../db/schema.js";
import { stringify } from "../../lib/http/respond.js";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import { serializeProof } from "../../lib/proofs/properties.js";

describe("stringify", () => {
  it("writes proof documents exactly as JSON.stringify does (no replacer needed: rows hold no bigint)", () => {
    const rows = sampleProofs({ count: 50, seed: 3 }) as LocationProofRow[];
    const doc = { data: rows.map(serializeProof), pagination: { total: 50, next: null } };
    expect(stringify(doc)).toBe(JSON.stringify(doc));
  });

  it("writes a bigint anywhere in a document as its exact decimal string", () => {
    const doc = { head: 2n ** 70n, nested: [{ block: 12n }, null, "x"], n: 1 };
    expect(JSON.parse(stringify(doc))).toEqual({
      head: "1180591620717411303424",
      nested: [{ block: "12" }, null, "x"],
      n: 1,
    });
  });

  it("still refuses a circular document (a bug, not a client's error)", () => {
    const doc: Record<string, unknown> = {};
    doc.self = doc;
    expect(() => stringify(doc)).toThrow(TypeError);
  });
});
