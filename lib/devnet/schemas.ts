import {
  type AbiParameter,
  type Address,
  encodeAbiParameters,
  encodePacked,
  type Hex,
  keccak256,
  zeroAddress,
  zeroHash,
} from "viem";
import { LOCATION_SCHEMA } from "../chains/schema.js";
import { parseSchema } from "../sync/schemas.js";
import { devnetClients, easArtifact, receiptOf } from "./eas.js";

/**
 * The schemas the devnet registers: the v0.1 schema; the Location Protocol's base fields in both orders the
 * ecosystem uses (the spec's EAS appendix; the Dart library's and Astral's compute service's, with an application's
 * fields); the SDK's camelCase "v0.2-conformant" custom schema, sending `location` as bytes; and one schema that is
 * not about locations (it has a `location` text, but no srs and no location type), which must never be indexed.
 */
export const DEVNET_SCHEMAS = {
  v01: LOCATION_SCHEMA,
  appendix: "string srs, string location_type, string location, uint8 lp_version",
  dart: "string lp_version,string srs,string location_type,string location,uint256 event_timestamp,string memo,uint16 accuracy_m,uint256 reading,address device,bytes32[] tags,bool verified",
  sdk: "uint8 specVersion,string srs,string locationType,bytes location",
  review: "string location,string comment,uint256 rating",
} as const;

export type DevnetSchema = keyof typeof DEVNET_SCHEMAS;

/** An EAS schema UID: keccak256(abi.encodePacked(schema, resolver, revocable)); the devnet's are revocable, no resolver. */
export const schemaUid = (schema: string, resolver: Address = zeroAddress, revocable = true): Hex =>
  keccak256(encodePacked(["string", "address", "bool"], [schema, resolver, revocable]));

export const DEVNET_SCHEMA_UIDS = Object.fromEntries(
  Object.entries(DEVNET_SCHEMAS).map(([name, schema]) => [name, schemaUid(schema)]),
) as Record<DevnetSchema, Hex>;

/** Registers schemas (revocable, no resolver) that the registry does not hold yet; returns their UIDs. */
export async function registerSchemas(
  rpcUrl: string,
  registry: Address,
  schemas: readonly string[],
): Promise<Hex[]> {
  const clients = devnetClients(rpcUrl);
  const abi = easArtifact("SchemaRegistry").abi;
  for (const schema of schemas) {
    const existing = (await clients.publicClient.readContract({
      address: registry,
      abi,
      functionName: "getSchema",
      args: [schemaUid(schema)],
    })) as { uid: Hex };
    if (existing.uid !== zeroHash) continue;
    await receiptOf(
      clients,
      await clients.walletClient.writeContract({
        address: registry,
        abi,
        functionName: "register",
        args: [schema, zeroAddress, true],
        chain: null,
      }),
    );
  }
  return schemas.map((s) => schemaUid(s));
}

const EMPTY: Record<string, unknown> = { string: "", bytes: "0x", bool: false, address: zeroAddress };

/** A zero value of an ABI type, for the fields a record leaves out. */
function zeroOf(p: AbiParameter): unknown {
  if (p.type.endsWith("]")) return [];
  if (p.type === "tuple") return (p as { components: readonly AbiParameter[] }).components.map(zeroOf);
  if (p.type in EMPTY) return EMPTY[p.type];
  if (/^bytes\d+$/.test(p.type)) return `0x${"00".repeat(Number(p.type.slice(5)))}`;
  return /^uint(8|16|24|32|40|48)$|^int(8|16|24|32|40|48)$/.test(p.type) ? 0 : 0n;
}

/** ABI-encodes a record of a schema string by field name (what any EAS client sends); left-out fields are zero. */
export function encodeRecord(schema: string, values: Record<string, unknown>): Hex {
  const parsed = parseSchema(schema);
  if (!parsed) throw new Error(`not an ABI schema: ${schema}`);
  return encodeAbiParameters(
    parsed.params,
    parsed.params.map((p) => (p.name && p.name in values ? values[p.name] : zeroOf(p))),
  );
}
