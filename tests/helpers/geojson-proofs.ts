import type { NewLocationProofRow } from "../../db/schema.js";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import { locationColumns } from "../../lib/location/columns.js";
import { decodeLocation } from "../../lib/location/decode.js";

/**
 * A proof named `name` (its memo, and a uid spelled from it) located at `geometry` as GeoJSON and decoded as the
 * indexer decodes it; a null geometry is a proof located nowhere that can be read. Its other fields are a sample's,
 * seeded by the name, so the same name is the same proof in every test file.
 */
export function geojsonProof(
  name: string,
  geometry: unknown | null,
  extra: Partial<NewLocationProofRow> = {},
): NewLocationProofRow {
  const [base] = sampleProofs({ count: 1, seed: name.length * 7919 + name.charCodeAt(0) });
  const location = geometry === null ? "nowhere" : JSON.stringify(geometry);
  const decoded =
    geometry === null
      ? { geometry: null, longitude: null, latitude: null, bbox: null }
      : decodeLocation({ locationType: "geojson", location, srs: "EPSG:4326" });
  return {
    ...base!,
    uid: `0x${Buffer.from(name.padEnd(32, ".")).toString("hex").slice(0, 64)}`,
    chain: "base",
    chainId: 8453,
    revoked: false,
    revocationTime: null,
    memo: name,
    locationType: "geojson",
    location,
    srs: "EPSG:4326",
    ...locationColumns(decoded),
    ...extra,
  };
}
