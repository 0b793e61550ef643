import { getTableColumns } from "drizzle-orm";
import { type Db, MAX_STATEMENT_PARAMETERS } from "../../db/client.js";
import { locationProofs, type NewLocationProofRow } from "../../db/schema.js";
import { LOCATION_SCHEMA_UID } from "../chains/schema.js";
import { DEVNET_SCHEMA_UIDS, DEVNET_SCHEMAS, encodeRecord } from "../devnet/schemas.js";
import { locationColumns } from "../location/columns.js";
import { decodeLocation } from "../location/decode.js";
import { DAY_MS } from "../proofs/timestamps.js";
import { decodedColumns } from "../sync/decode-attestation.js";
import { parseSchema } from "../sync/schemas.js";

/**
 * Synthetic but realistic location proofs for `npm run db:seed`, tests and benchmarks: points around real cities
 * (a few on the antimeridian and at 0,0), some polygons, some proofs without valid coordinates, some revoked; most of
 * the v0.1 schema, every tenth a Location Protocol record with an application's fields.
 * Deterministic for a given seed, so tests can reason about them.
 */

const CITIES: [string, number, number][] = [
  ["San Francisco", -122.4194, 37.7749],
  ["New York", -74.006, 40.7128],
  ["London", -0.1276, 51.5072],
  ["Berlin", 13.405, 52.52],
  ["Lagos", 3.3792, 6.5244],
  ["Nairobi", 36.8219, -1.2921],
  ["Tokyo", 139.6917, 35.6895],
  ["Sydney", 151.2093, -33.8688],
  ["Sao Paulo", -46.6333, -23.5505],
  ["Fiji", 179.9, -17.8],
  ["Samoa", -179.9, -13.8],
  ["Null Island", 0, 0],
];

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hex = (rand: () => number, bytes: number) =>
  `0x${Array.from({ length: bytes }, () =>
    Math.floor(rand() * 256)
      .toString(16)
      .padStart(2, "0"),
  ).join("")}`;

const round = (x: number) => Math.round(x * 1e6) / 1e6;

export type SampleOptions = {
  count: number;
  seed?: number;
  chains?: { name: string; chainId: number }[];
  /** event times are spread over this many days before `now` */
  days?: number;
  now?: Date;
};

export function sampleProofs(options: SampleOptions): NewLocationProofRow[] {
  const rand = mulberry32(options.seed ?? 1);
  const chains = options.chains ?? [
    { name: "sepolia", chainId: 11155111 },
    { name: "base", chainId: 8453 },
    { name: "arbitrum", chainId: 42161 },
    { name: "celo", chainId: 42220 },
  ];
  const provers = Array.from({ length: 25 }, () => hex(rand, 20));
  const now = (options.now ?? new Date()).getTime();
  const span = (options.days ?? 90) * DAY_MS;
  const rows: NewLocationProofRow[] = [];
  for (let i = 0; i < options.count; i++) {
    const chain = chains[Math.floor(rand() * chains.length)]!;
    const [, cx, cy] = CITIES[Math.floor(rand() * CITIES.length)]!;
    const lon = round(Math.max(-180, Math.min(180, cx + (rand() - 0.5) * 0.2)));
    const lat = round(Math.max(-90, Math.min(90, cy + (rand() - 0.5) * 0.2)));
    // Whole seconds, as on chain; some share a second so ordering ties are exercised.
    const eventMs = Math.floor((now - rand() * span) / 1000) * 1000;
    // The location columns come from the indexer's own decoder, so sample rows are exactly what indexing the same
    // attestation would store.
    const kind = rand();
    const srs = "EPSG:4326";
    let locationType: string;
    let location: string;
    if (kind < 0.8) {
      locationType = "DecimalDegrees<string>";
      location = `${lon}, ${lat}`;
    } else if (kind < 0.9) {
      const d = 0.01;
      const [x0, x1] = [Math.max(-180, lon - d), Math.min(180, lon + d)];
      const ring = [
        [x0, lat - d],
        [x1, lat - d],
        [x1, lat + d],
        [x0, lat + d],
        [x0, lat - d],
      ];
      locationType = "geojson-polygon";
      location = JSON.stringify({ type: "Polygon", coordinates: [ring] });
    } else {
      locationType = "address";
      location = "221B Baker Street, London";
    }
    const geo = {
      locationType,
      location,
      srs,
      ...locationColumns(decodeLocation({ locationType, location, srs })),
    };
    const revoked = rand() < 0.05;
    const eventSeconds = BigInt(eventMs / 1000);
    rows.push({
      chainId: chain.chainId,
      chain: chain.name,
      uid: hex(rand, 32),
      schemaUid: LOCATION_SCHEMA_UID,
      prover: provers[Math.floor(rand() * provers.length)]!,
      subject: hex(rand, 20),
      attestationTime: new Date(eventMs + 5000),
      expirationTime: null,
      revocable: true,
      refUid: null,
      revoked,
      revocationTime: revoked ? new Date(eventMs + 60_000) : null,
      blockNumber: 1_000_000 + i,
      blockHash: hex(rand, 32),
      txHash: hex(rand, 32),
      logIndex: 0,
      data: "0x",
      decodeError: null,
      eventTimestamp: new Date(eventMs),
      eventTimestampRaw: String(eventMs / 1000),
      recipeType: [],
      recipePayload: [],
      mediaType: [],
      mediaData: [],
      memo: `sample proof ${i}`,
      protocolVersion: "0.1",
      lpVersion: null,
      applicationFields: null,
      ...geo,
      // Every tenth proof is a Location Protocol record with an application's fields, its type spelled as writers do.
      ...(i % 10 === 7 ? protocolRecord(i, geo, eventSeconds) : {}),
    });
  }
  return rows;
}

const SPELLINGS: Record<string, readonly string[]> = {
  "DecimalDegrees<string>": ["coordinate-decimal+lon-lat", "coordinate-decimal.lon-lat", "decimalDegrees"],
  "geojson-polygon": ["geojson-polygon", "GeoJSON", "lp.geojson-polygon.v1"],
  address: ["address"],
};

/**
 * The columns of the same location attested with the devnet's `dart` schema (lp_version 1.0.0, an event time, a
 * memo and application fields), as the indexer decodes them from the encoded record.
 */
function protocolRecord(
  i: number,
  geo: { locationType: string; location: string },
  eventSeconds: bigint,
): Partial<NewLocationProofRow> {
  const schema = DEVNET_SCHEMAS.dart;
  const spellings = SPELLINGS[geo.locationType]!;
  const data = encodeRecord(schema, {
    lp_version: "1.0.0",
    srs: "http://www.opengis.net/def/crs/OGC/1.3/CRS84",
    location_type: spellings[Math.floor(i / 10) % spellings.length],
    location: geo.location,
    event_timestamp: eventSeconds,
    memo: `sample proof ${i}`,
    accuracy_m: 5 + (i % 45),
    reading: BigInt(i) * 10n ** 18n,
    verified: i % 3 !== 0,
  });
  return {
    schemaUid: DEVNET_SCHEMA_UIDS.dart,
    data,
    ...decodedColumns({ params: parseSchema(schema)!.params, protocolVersion: "0.2" }, data),
  };
}

/** Inserts rows in chunks whose statements stay within every driver's bind parameters (MAX_STATEMENT_PARAMETERS). */
export async function insertProofs(db: Db, rows: NewLocationProofRow[], chunk = 1000): Promise<void> {
  const columns = Object.keys(getTableColumns(locationProofs)).length;
  chunk = Math.max(1, Math.min(chunk, Math.floor(MAX_STATEMENT_PARAMETERS / columns)));
  for (let i = 0; i < rows.length; i += chunk) {
    await db
      .insert(locationProofs)
      .values(rows.slice(i, i + chunk))
      .onConflictDoNothing();
  }
}
