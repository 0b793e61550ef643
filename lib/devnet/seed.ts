import type { Address, Hex } from "viem";
import { attest, DEVNET_ACCOUNTS, revoke } from "./eas.js";
import { encodeLocationProof, type LocationProofInput } from "./location-data.js";

/**
 * A realistic mix of location proofs, as seen on the public chains: every encoding, zero coordinates, lat-lon pairs,
 * polygons, WKT, geohash, H3 cells, proofs without valid coordinates, undecodable data (EAS accepts any bytes), some revoked.
 */
function seedProofInputs(
  now = Math.floor(Date.now() / 1000),
): { input: LocationProofInput | Hex; revoke?: boolean }[] {
  const t = (minutesAgo: number) => BigInt(now - minutesAgo * 60);
  const square = (lon: number, lat: number, d = 0.01) =>
    JSON.stringify({
      type: "Polygon",
      coordinates: [
        [
          [lon - d, lat - d],
          [lon + d, lat - d],
          [lon + d, lat + d],
          [lon - d, lat + d],
          [lon - d, lat - d],
        ],
      ],
    });
  const p = (
    locationType: string,
    location: string,
    minutesAgo: number,
    memo: string,
    srs = "EPSG:4326",
  ) => ({
    eventTimestamp: t(minutesAgo),
    srs,
    locationType,
    location,
    memo,
    recipeType: ["gps"],
    recipePayload: ["0x01" as Hex],
    mediaType: minutesAgo % 3 === 0 ? ["image/jpeg"] : [],
    mediaData:
      minutesAgo % 3 === 0 ? ["ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi"] : [],
  });
  const proof = (...args: Parameters<typeof p>) => ({ input: p(...args) });
  // The longer locations by name, so that each proof of the list stays one line.
  const DD = "DecimalDegrees<string>";
  const saoPaulo =
    '{"type":"Feature","properties":{"name":"Sao Paulo"},"geometry":{"type":"Point","coordinates":[-46.6333,-23.5505]}}';
  const madridWalk = '{"type":"LineString","coordinates":[[-3.7038,40.4168],[-3.69,40.42],[-3.68,40.43]]}';
  const fijiSamoa = '{"type":"MultiPoint","coordinates":[[179.9,-17.8],[-179.9,-13.8]]}';
  const amsterdam = "POLYGON((4.88 52.36, 4.92 52.36, 4.92 52.38, 4.88 52.38, 4.88 52.36))";
  const crs84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84";
  return [
    proof(DD, "-122.4194, 37.7749", 5, "San Francisco"),
    proof(DD, "[-74.006, 40.7128]", 15, "New York, bracketed"),
    proof("coordinate-decimal+lon-lat", "-0.1276, 51.5072", 25, "London"),
    proof("coordinate-decimal+lon-lat", "[13.405, 52.52]", 35, "Berlin, JSON array"),
    proof("coordinate-decimal+lat-lon", "35.6895, 139.6917", 45, "Tokyo, latitude first"),
    {
      ...proof("coordinate-decimal+lat-lon", "-33.8688, 151.2093", 55, "Sydney, latitude first"),
      revoke: true,
    },
    proof(DD, "0, 0", 65, "Null Island (zero is valid)"),
    proof("coordinate-decimal+lon-lat", "3.3792, 0", 75, "Lagos meridian, latitude zero"),
    proof("geojson-point", '{"type":"Point","coordinates":[36.8219,-1.2921]}', 85, "Nairobi, GeoJSON"),
    proof("geojson", saoPaulo, 95, "Sao Paulo, GeoJSON Feature"),
    proof("geojson-polygon", square(2.3522, 48.8566), 105, "Paris, polygon"),
    proof("geojson-line", madridWalk, 115, "Madrid walk"),
    proof("geojson", fijiSamoa, 125, "Fiji and Samoa (antimeridian)"),
    proof("wkt", "POINT(12.4964 41.9028)", 135, "Rome, WKT"),
    proof("wkt", amsterdam, 145, "Amsterdam, WKT"),
    { ...proof("geohash", "9q8yyk8yt", 155, "San Francisco, geohash"), revoke: true },
    proof("geohash", "u4pruydqqvj", 165, "Copenhagen, geohash"),
    proof(DD, "-122.4194, 37.7749", 175, "CRS84 spelled out", crs84),
    proof(DD, "151.2093, -33.8688", 185, "WGS84 spelled", "WGS84"),
    proof("address", "221B Baker Street, London", 195, "Free-text address: no coordinates"),
    proof(DD, "37.7749, -122.4194", 205, "Latitude first under a lon-lat type: invalid"),
    proof(DD, "200, 100", 215, "Out of range: invalid"),
    proof("geojson-point", "{not json", 225, "Broken GeoJSON: invalid"),
    proof(DD, "-122.4194, 37.7749", 235, "Web Mercator srs: not interpretable", "EPSG:3857"),
    proof("h3", "8928308280fffff", 245, "San Francisco, H3 cell (resolution 9)"),
    proof("h3", "837eb5fffffffff", 247, "H3 cell across the antimeridian (resolution 3)"),
    proof("h3", "8928308280ffff", 249, "Not an H3 cell (14 digits): invalid"),
    { input: { ...p(DD, "10.0, 20.0", 0, "No event timestamp"), eventTimestamp: 0n } },
    { input: "0xdeadbeef" },
    { input: "0x" },
  ];
}

export type SeedResult = { uids: Hex[]; revoked: Hex[] };

/** Writes the seed set to a devnet through EAS (two attesters), then revokes the ones marked. */
export async function seedDevnet(rpcUrl: string, eas: Address): Promise<SeedResult> {
  const inputs = seedProofInputs();
  const items = inputs.map(({ input }) => ({
    data: typeof input === "string" ? input : encodeLocationProof(input),
    recipient: DEVNET_ACCOUNTS[1],
  }));
  const half = Math.ceil(items.length / 2);
  const uids = [
    ...(await attest(rpcUrl, eas, items.slice(0, half), { from: DEVNET_ACCOUNTS[0] })),
    ...(await attest(rpcUrl, eas, items.slice(half), { from: DEVNET_ACCOUNTS[1] })),
  ];
  const revokedByFirst = uids.filter((_, i) => inputs[i]?.revoke && i < half);
  const revokedBySecond = uids.filter((_, i) => inputs[i]?.revoke && i >= half);
  if (revokedByFirst.length) await revoke(rpcUrl, eas, revokedByFirst, { from: DEVNET_ACCOUNTS[0] });
  if (revokedBySecond.length) await revoke(rpcUrl, eas, revokedBySecond, { from: DEVNET_ACCOUNTS[1] });
  return { uids, revoked: [...revokedByFirst, ...revokedBySecond] };
}
