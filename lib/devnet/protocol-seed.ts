import type { Address, Hex } from "viem";
import { attest, DEVNET_ACCOUNTS, revoke } from "./eas.js";
import {
  DEVNET_SCHEMA_UIDS,
  DEVNET_SCHEMAS,
  type DevnetSchema,
  encodeRecord,
  registerSchemas,
} from "./schemas.js";

const CRS84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84";
/** The spec's examples' corners around Keystone, South Dakota (lon, lat), in its polygon's order. */
const KEYSTONE = [
  [-103.771556, 44.967243],
  [-103.771556, 44.977243],
  [-103.761556, 44.977243],
  [-103.761556, 44.967243],
];
const hexOf = (text: string): Hex => `0x${Buffer.from(text, "utf8").toString("hex")}`;

/** One record to attest: a label to find it by, its schema and its fields by name. */
export type ProtocolRecord = {
  label: string;
  schema: DevnetSchema;
  fields: Record<string, unknown>;
  revoke?: boolean;
};

/**
 * Location Protocol records as the ecosystem writes them: every location type of the protocol's list (the spec's own
 * examples), in the spec appendix's field order; the messy spellings and writer bugs seen in public code, in the Dart
 * order with an application's fields; locations sent as bytes (text, and bytes that are no text) with the SDK's
 * camelCase schema; and records of a schema that is not about locations, which must never be indexed.
 */
export function protocolRecords(now = Math.floor(Date.now() / 1000)): ProtocolRecord[] {
  const spec = (location_type: string, location: string): ProtocolRecord => ({
    label: location_type,
    schema: "appendix",
    fields: { srs: CRS84, location_type, location, lp_version: 1 },
  });
  let n = 0;
  const dart = (
    label: string,
    location_type: string,
    location: string,
    srs = CRS84,
    revoke = false,
  ): ProtocolRecord => ({
    label,
    schema: "dart",
    revoke,
    fields: {
      lp_version: "1.0.0",
      srs,
      location_type,
      location,
      event_timestamp: BigInt(now - 600 * ++n),
      memo: label,
      accuracy_m: 5 * n,
      reading: 10n ** 30n + BigInt(n),
      device: DEVNET_ACCOUNTS[1],
      tags: [`0x${n.toString(16).padStart(64, "0")}`],
      verified: n % 2 === 0,
    },
  });
  const sdk = (label: string, locationType: string, location: Hex): ProtocolRecord => ({
    label,
    schema: "sdk",
    fields: { specVersion: 2, srs: "EPSG:4326", locationType, location },
  });
  return [
    spec("coordinate-decimal+lon-lat", "[-103.771556, 44.967243]"),
    spec("geojson-point", JSON.stringify({ type: "Point", coordinates: KEYSTONE[0] })),
    spec("geojson-line", JSON.stringify({ type: "LineString", coordinates: [KEYSTONE[0], KEYSTONE[2]] })),
    spec("geojson-polygon", JSON.stringify({ type: "Polygon", coordinates: [[...KEYSTONE, KEYSTONE[0]]] })),
    spec("h3", "8928308280fffff"),
    spec("geohash", "9xyd"),
    spec("wkt", "POLYGON((-103.78 44.96, -103.76 44.96, -103.76 44.98, -103.78 44.98, -103.78 44.96))"),
    spec("address", "13000 SD-244, Keystone, SD 57751"),
    spec("scaledCoordinates", '{"x":-1037715560,"y":449672430,"scale":10000000}'),
    dart(
      "GeoJSON Feature",
      "GeoJSON",
      '{"type":"Feature","geometry":{"type":"Point","coordinates":[13.405,52.52]}}',
    ),
    dart("wkt-point", "wkt-point", "POINT(12.4964 41.9028)"),
    dart("h3-index", "h3-index", "8928308280fffff"),
    dart("decimalDegrees", "decimalDegrees", "151.2093, -33.8688"),
    dart("DecimalDegrees<string>", "DecimalDegrees<string>", "-74.006, 40.7128", "EPSG:4326", true),
    dart("coordinate-decimal.lon-lat", "coordinate-decimal.lon-lat", "2.3522, 48.8566"),
    dart("coordinate-decimal+lat-lon", "coordinate-decimal+lat-lon", "35.6895, 139.6917"),
    dart("lon/lon pair", "DecimalDegrees<string>", "-122.4194, -122.4194"),
    dart("no axis order", "coordinate-decimal", "52.52, 13.405"),
    dart("lat-lon under lon-lat", "coordinate-decimal+lon-lat", "37.7749, -122.4194"),
    sdk("bytes text", "coordinate-decimal+lon-lat", hexOf("-0.1276, 51.5072")),
    sdk("bytes GeoJSON", "geojson-point", hexOf('{"type":"Point","coordinates":[36.8219,-1.2921]}')),
    sdk("bytes not text", "geohash", "0xfffefd"),
    {
      label: "review 1",
      schema: "review",
      fields: { location: "Café de Flore, Paris", comment: "good", rating: 5n },
    },
    { label: "review 2", schema: "review", fields: { location: "52.52, 13.405", comment: "ok", rating: 3n } },
  ];
}

export type ProtocolSeed = {
  /** uid of each record, by label */
  uids: Record<string, Hex>;
  /** uids by schema name */
  bySchema: Record<DevnetSchema, Hex[]>;
  revoked: Hex[];
};

/**
 * Registers the devnet's other schemas (DEVNET_SCHEMAS; deployEas registered v0.1) and writes protocolRecords
 * through EAS, one multiAttest per schema, then revokes the ones marked.
 */
export async function seedLocationProtocol(
  rpcUrl: string,
  deployment: { eas: Address; schemaRegistry: Address },
  records: ProtocolRecord[] = protocolRecords(),
): Promise<ProtocolSeed> {
  await registerSchemas(rpcUrl, deployment.schemaRegistry, Object.values(DEVNET_SCHEMAS));
  const uids: Record<string, Hex> = {};
  const bySchema = Object.fromEntries(Object.keys(DEVNET_SCHEMAS).map((k) => [k, [] as Hex[]])) as Record<
    DevnetSchema,
    Hex[]
  >;
  const revoked: Hex[] = [];
  for (const name of Object.keys(DEVNET_SCHEMAS) as DevnetSchema[]) {
    const mine = records.filter((r) => r.schema === name);
    if (mine.length === 0) continue;
    const written = await attest(
      rpcUrl,
      deployment.eas,
      mine.map((r) => ({
        data: encodeRecord(DEVNET_SCHEMAS[name], r.fields),
        recipient: DEVNET_ACCOUNTS[1],
      })),
      { schemaUid: DEVNET_SCHEMA_UIDS[name] },
    );
    written.forEach((uid, i) => {
      uids[mine[i]!.label] = uid;
      bySchema[name].push(uid);
      if (mine[i]!.revoke) revoked.push(uid);
    });
    const toRevoke = written.filter((_, i) => mine[i]!.revoke);
    if (toRevoke.length)
      await revoke(rpcUrl, deployment.eas, toRevoke, { schemaUid: DEVNET_SCHEMA_UIDS[name] });
  }
  return { uids, bySchema, revoked };
}
