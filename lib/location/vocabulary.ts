/**
 * The Location Protocol's vocabulary of location types, and how the spellings writers actually use map onto it.
 * Plain data and string functions only: the read routes validate the `locationType` parameter against this list, and
 * must not load the decoders (h3-js) to do so.
 *
 * The protocol's list (location-protocol-spec, "Location Format Types") plus two the service needs to say what it
 * stored: `coordinate-decimal+lat-lon` (the `+lat-lon` modifier that list describes: the order is declared, so the
 * pair is decoded) and `geojson` (GeoJSON of another geometry type than Point, LineString or Polygon).
 */
export const LOCATION_TYPES = [
  "coordinate-decimal+lon-lat",
  "coordinate-decimal+lat-lon",
  "geojson-point",
  "geojson-line",
  "geojson-polygon",
  "geojson",
  "h3",
  "geohash",
  "wkt",
  "address",
  "scaledCoordinates",
] as const;

export type LocationType = (typeof LOCATION_TYPES)[number];

/**
 * Spellings seen in attestations and libraries, by normalised type. A spelling is compared after `key` below:
 * lowercase, without the registry's `lp.`/`community.` namespace and `.v<major>` suffix, runs of space, `_`, `.` and
 * `/` read as one `-`. Each entry says why it is unambiguous.
 */
const SPELLINGS: Record<LocationType, readonly string[]> = {
  // v0.1's DecimalDegrees<string> is longitude first ("lon, lat", as Astral's writers put it); the protocol's own name
  // and its dotted variant say the order outright.
  "coordinate-decimal+lon-lat": [
    "coordinate-decimal+lon-lat",
    "coordinate-decimal-lon-lat",
    "coordinates-decimal+lon-lat",
    "decimaldegrees<string>",
    "decimaldegrees",
    "decimal-degrees",
    "decimal-degrees<string>",
    "lon-lat",
    "lonlat",
    "lng-lat",
    "lnglat",
  ],
  "coordinate-decimal+lat-lon": [
    "coordinate-decimal+lat-lon",
    "coordinate-decimal-lat-lon",
    "coordinates-decimal+lat-lon",
    "lat-lon",
    "latlon",
    "lat-lng",
    "latlng",
  ],
  "geojson-point": ["geojson-point", "geojson+point"],
  "geojson-line": ["geojson-line", "geojson-linestring", "geojson+line", "geojson+linestring"],
  "geojson-polygon": ["geojson-polygon", "geojson+polygon"],
  geojson: ["geojson", "geo-json", "geojson<string>", "geojson-geometry", "geojson-feature"],
  h3: ["h3", "h3-index", "h3index", "h3-cell", "h3cell"],
  geohash: ["geohash", "geo-hash"],
  wkt: ["wkt", "wkt-point", "wkt-line", "wkt-linestring", "wkt-polygon", "wkt-multipolygon", "wkt-geometry"],
  address: ["address", "street-address", "postal-address", "mailing-address"],
  scaledCoordinates: ["scaledcoordinates", "scaled-coordinates"],
};

/** Spellings that name coordinates without their order: normalising them would mean guessing the axis order. */
const NO_ORDER = new Set([
  "coordinate-decimal",
  "coordinates-decimal",
  "coordinates",
  "coordinate",
  "decimal",
]);

const key = (raw: string): string =>
  raw
    .trim()
    .toLowerCase()
    .replace(/^(lp|community)\./, "")
    .replace(/\.v\d+$/, "")
    .replace(/[\s_./]+/g, "-");

const BY_SPELLING = new Map<string, LocationType>(
  Object.entries(SPELLINGS).flatMap(([type, spellings]) =>
    spellings.map((s) => [key(s), type as LocationType] as const),
  ),
);

/** What a declared location type normalises to, or null with the reason it cannot be normalised without guessing. */
export function normaliseLocationType(
  raw: string | null | undefined,
): { type: LocationType; problem?: undefined } | { type: null; problem: string } {
  const k = key(raw ?? "");
  if (k === "") return { type: null, problem: "no location type was given" };
  const type = BY_SPELLING.get(k);
  if (type) return { type };
  // Any other GeoJSON or WKT flavour (geojson-multipolygon, wkt-multipoint): the content says which geometry it is.
  if (/^geo-?json[-+<]/.test(k)) return { type: "geojson" };
  if (/^wkt[-+<]/.test(k)) return { type: "wkt" };
  if (NO_ORDER.has(k)) {
    return {
      type: null,
      problem: `location type ${JSON.stringify(raw)} does not say the axis order (lon-lat or lat-lon); not guessed`,
    };
  }
  return {
    type: null,
    problem: `location type ${JSON.stringify(raw)} is not one of the Location Protocol's types nor a known spelling`,
  };
}

/** The GeoJSON types each normalised GeoJSON location type holds; any other geometry is plain `geojson`. */
export const GEOJSON_TYPE_OF: Readonly<Record<string, LocationType>> = {
  Point: "geojson-point",
  LineString: "geojson-line",
  Polygon: "geojson-polygon",
};
