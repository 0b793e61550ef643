import { describe, expect, it } from "vitest";
import { LOCATION_SCHEMA, LOCATION_SCHEMA_UID } from "../../lib/chains/schema.js";
import { describeSchema, indexes, parseSchema, type SchemaPolicy } from "../../lib/sync/schemas.js";

const UID = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;

describe("recognising a location schema by its field names", () => {
  it("v0.1 by UID and by string; the protocol's variants by name; a near miss is not one", () => {
    expect(describeSchema(LOCATION_SCHEMA_UID, LOCATION_SCHEMA)).toMatchObject({
      location: true,
      protocolVersion: "0.1",
    });
    expect(describeSchema(UID(1), LOCATION_SCHEMA)).toMatchObject({ location: true, protocolVersion: "0.1" });
    for (const schema of [
      // the spec's EAS appendix
      "string srs, string location_type, string location, uint8 lp_version",
      // the Dart library and Astral's compute service, with an application's fields
      "string lp_version,string srs,string location_type,string location,uint256 event_timestamp,string memo",
      // the SDK's "v0.2-conformant" custom schemas, location as bytes
      "uint8 specVersion,string srs,string locationType,bytes location",
    ]) {
      expect(describeSchema(UID(2), schema), schema).toMatchObject({
        location: true,
        protocolVersion: "0.2",
      });
    }
    for (const schema of [
      "string location,string comment,uint256 rating", // no srs, no location type
      "string srs,string locationType,string place", // no location
      "bytes32 placeId,string note",
      "not an abi at all",
      "",
    ]) {
      expect(describeSchema(UID(3), schema), schema).toMatchObject({
        location: false,
        protocolVersion: null,
      });
    }
  });

  it("reads names Solidity reserves (a postal `address`), tuples and arrays", () => {
    expect(parseSchema("string address,string srs")?.params.map((p) => p.name)).toEqual(["address", "srs"]);
    expect(parseSchema("(string name,uint256 value)[] items, bool ok")?.params).toMatchObject([
      { name: "items", type: "tuple[]" },
      { name: "ok", type: "bool" },
    ]);
    expect(parseSchema("uint256,string x")?.params.map((p) => p.name)).toEqual(["", "x"]);
    expect(parseSchema("string x,,string y")).toBeUndefined();
  });
});

describe("the operator's policy", () => {
  const policy = (p: Partial<SchemaPolicy>): SchemaPolicy => ({
    mode: "discover",
    allow: new Set(),
    deny: new Set(),
    ...p,
  });
  it("discover indexes location schemas and v0.1; known only v0.1 and the allowed; deny wins", () => {
    expect(indexes(policy({}), UID(5), true)).toBe(true);
    expect(indexes(policy({}), UID(5), false)).toBe(false);
    expect(indexes(policy({ mode: "known" }), UID(5), true)).toBe(false);
    expect(indexes(policy({ mode: "known" }), LOCATION_SCHEMA_UID, true)).toBe(true);
    expect(indexes(policy({ mode: "known", allow: new Set([UID(5)]) }), UID(5), false)).toBe(true);
    expect(indexes(policy({ deny: new Set([LOCATION_SCHEMA_UID]) }), LOCATION_SCHEMA_UID, true)).toBe(false);
    expect(indexes(policy({ allow: new Set([UID(5)]), deny: new Set([UID(5)]) }), UID(5), true)).toBe(false);
  });
});
