import { describe, expect, it } from "vitest";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import {
  jsonSchemaOf,
  OGC_PROPERTIES,
  ogcProperties,
  PROOF_PROPERTIES,
  type PropertyType,
  proofProperty,
  QUERYABLE_PROPERTIES,
  SORTABLE_PROPERTIES,
  serializeProof,
} from "../../lib/proofs/properties.js";

/**
 * The catalogue of proof properties (lib/proofs/properties.ts) is what the native record, the OGC properties,
 * queryables, sortby, CQL2 and the API documents are built from: it must say the truth about the values.
 */
const CHECK: Record<PropertyType, (v: unknown) => boolean> = {
  string: (v) => typeof v === "string",
  address: (v) => typeof v === "string" && /^0x[0-9a-f]{40}$/.test(v),
  hash: (v) => typeof v === "string" && /^0x[0-9a-f]{64}$/.test(v),
  integer: (v) => Number.isInteger(v),
  number: (v) => typeof v === "number" && Number.isFinite(v),
  boolean: (v) => typeof v === "boolean",
  timestamp: (v) => typeof v === "string" && new Date(v).toISOString() === v,
  decimal: (v) => typeof v === "string" && /^[0-9]+$/.test(v),
  strings: (v) => Array.isArray(v) && v.every((x) => typeof x === "string"),
  geometry: (v) => typeof v === "object" && v !== null && typeof (v as { type?: unknown }).type === "string",
  bbox: (v) => Array.isArray(v) && v.length === 4 && v.every((x) => typeof x === "number"),
  object: (v) => typeof v === "object" && v !== null && !Array.isArray(v),
};

const conforms = (name: string, value: unknown) => {
  const q = proofProperty(name)!;
  return value === null ? q.nullable : CHECK[q.type](value);
};

describe("the catalogue of proof properties", () => {
  it("is the native record, in order, and the OGC properties without geometry and bbox", () => {
    const [row] = sampleProofs({ count: 1, seed: 3 });
    const full = { ...row!, indexedAt: new Date(), revocationBlockNumber: null } as Parameters<
      typeof serializeProof
    >[0];
    expect(Object.keys(serializeProof(full))).toEqual(PROOF_PROPERTIES.map((q) => q.name));
    expect(Object.keys(ogcProperties(full))).toEqual(
      PROOF_PROPERTIES.map((q) => q.name).filter((n) => n !== "geometry" && n !== "bbox"),
    );
    expect(OGC_PROPERTIES.map((q) => q.name)).toEqual(Object.keys(ogcProperties(full)));
  });

  it("gives every sortable and queryable property a column, and names only its own entries", () => {
    for (const q of [...SORTABLE_PROPERTIES, ...QUERYABLE_PROPERTIES]) expect(q.column, q.name).toBeDefined();
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      expect(proofProperty(name)).toBeUndefined();
    }
  });

  it("has examples of the declared type, and types and nullability that real records keep to", () => {
    for (const q of PROOF_PROPERTIES) {
      expect(conforms(q.name, q.example), `${q.name} example`).toBe(true);
      expect(q.description.length, q.name).toBeGreaterThan(5);
    }
    // Sample proofs cover points, polygons, no coordinates, revoked; plus a record without an event time.
    const rows = sampleProofs({ count: 300, seed: 8 }).map((r, i) => ({
      ...r,
      indexedAt: new Date(),
      revocationBlockNumber: null,
      ...(i === 0 ? { eventTimestamp: null, eventTimestampRaw: "0" } : {}),
    })) as Parameters<typeof serializeProof>[0][];
    const seenNull = new Set<string>();
    for (const row of rows) {
      for (const [name, value] of Object.entries(serializeProof(row))) {
        expect(conforms(name, value), `${name} = ${JSON.stringify(value)}`).toBe(true);
        if (value === null) seenNull.add(name);
      }
    }
    expect([...seenNull]).toEqual(
      expect.arrayContaining(["event_timestamp", "geometry", "bbox", "longitude"]),
    );
  });

  it("writes JSON Schema for OpenAPI 3.0 (nullable) and 2020-12 (type lists)", () => {
    const time = proofProperty("event_timestamp")!;
    expect(jsonSchemaOf(time, "openapi-3.0")).toMatchObject({
      type: "string",
      format: "date-time",
      nullable: true,
    });
    expect(jsonSchemaOf(time, "2020-12")).toMatchObject({ type: ["string", "null"], format: "date-time" });
    const uid = proofProperty("uid")!;
    expect(jsonSchemaOf(uid, "2020-12")).toMatchObject({ type: "string", pattern: "^0x[0-9a-f]{64}$" });
    expect(jsonSchemaOf(uid, "openapi-3.0")).not.toHaveProperty("nullable");
    for (const q of PROOF_PROPERTIES) {
      const schema = jsonSchemaOf(q, "2020-12");
      expect(schema.description, q.name).toBe(q.description);
      expect(schema.example, q.name).toEqual(q.example);
    }
  });
});
