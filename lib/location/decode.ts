import { geohashBounds } from "./geohash.js";
import {
  type Bbox,
  bboxOf,
  type Geometry,
  isPosition,
  representativePoint,
  validGeometry,
} from "./geometry.js";
import { h3Cell } from "./h3.js";
import { isLonLatSrs } from "./srs.js";
import { parseWkt } from "./wkt.js";

export type DecodedLocation = {
  /** GeoJSON geometry (longitude first); null when the location has no valid geographic data. */
  geometry: Geometry | null;
  longitude: number | null;
  latitude: number | null;
  bbox: Bbox | null;
  /** Why there are no coordinates (for logs and tests); undefined when decoding succeeded. */
  problem?: string;
};

const NONE = (problem: string): DecodedLocation => ({
  geometry: null,
  longitude: null,
  latitude: null,
  bbox: null,
  problem,
});

/** Type names whose coordinate pair is longitude first (the older name and the current one). */
const LON_LAT_TYPES = new Set(["decimaldegrees<string>", "decimaldegrees", "coordinate-decimal+lon-lat"]);
const LAT_LON_TYPES = new Set(["coordinate-decimal+lat-lon"]);

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Decodes a location-proof location (see shared/reference/location-encodings.md). The order of a coordinate pair
 * comes from the declared type only, never from the values; a value out of range makes the location invalid
 * rather than being swapped. Zero is a valid coordinate. Anything we cannot read gives nulls (the raw strings are
 * kept by the caller), never an exception.
 */
export function decodeLocation(input: {
  locationType: string | null | undefined;
  location: string | null | undefined;
  srs?: string | null | undefined;
}): DecodedLocation {
  const type = (input.locationType ?? "").trim().toLowerCase();
  const location = (input.location ?? "").trim();
  if (!location) return NONE("empty location");
  if (!isLonLatSrs(input.srs)) return NONE(`unsupported srs ${JSON.stringify(input.srs)}`);
  if (LON_LAT_TYPES.has(type) || LAT_LON_TYPES.has(type)) {
    const pair = parsePair(location);
    if (!pair) return NONE("not a coordinate pair");
    const [a, b, ...rest] = pair;
    const position = LAT_LON_TYPES.has(type) ? [b!, a!, ...rest] : pair;
    return fromGeometry({ type: "Point", coordinates: position });
  }
  if (type === "geojson" || type.startsWith("geojson-") || type.startsWith("geojson/")) {
    return fromGeometry(geojsonGeometry(location));
  }
  if (type === "wkt") {
    const parsed = parseWkt(location);
    if (!parsed) return NONE("not well-known text");
    if (parsed.srid !== undefined && parsed.srid !== 4326) return NONE(`unsupported SRID ${parsed.srid}`);
    return fromGeometry(parsed.geometry);
  }
  if (type === "geohash") {
    const b = geohashBounds(location);
    if (!b) return NONE("not a geohash");
    const [x0, y0, x1, y1] = b;
    // The cell is the geometry; its centre (always inside) is the point.
    const ring = [
      [x0, y0],
      [x1, y0],
      [x1, y1],
      [x0, y1],
      [x0, y0],
    ];
    return {
      geometry: { type: "Polygon", coordinates: [ring] },
      longitude: (x0 + x1) / 2,
      latitude: (y0 + y1) / 2,
      bbox: b,
    };
  }
  if (type === "h3") {
    // The cell's boundary is the geometry, its centre the point (lib/location/h3.ts).
    return h3Cell(location) ?? NONE("not an H3 cell index");
  }
  return NONE(`location type ${JSON.stringify(input.locationType ?? "")} carries no coordinates we can read`);
}

function fromGeometry(candidate: unknown): DecodedLocation {
  const geometry = validGeometry(candidate);
  if (!geometry) return NONE("invalid geometry or coordinates out of range");
  const bbox = bboxOf(geometry);
  const [longitude, latitude] = representativePoint(geometry, bbox);
  return { geometry, longitude, latitude, bbox };
}

/** "lon, lat", "lon lat", "[lon, lat]", "(lon, lat)", a JSON array, optionally with a third value (height). */
function parsePair(text: string): number[] | undefined {
  let s = text.trim();
  if (/^\[.*\]$/.test(s) || /^\(.*\)$/.test(s)) s = s.slice(1, -1).trim();
  const parts = s.split(/\s*,\s*|\s+/).filter((p) => p !== "");
  if (parts.length < 2 || parts.length > 3 || !parts.every((p) => NUMBER.test(p))) return undefined;
  return parts.map(Number);
}

/** A GeoJSON geometry, a Feature wrapping one, a FeatureCollection, or a bare position array. */
function geojsonGeometry(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (isPosition(value)) return { type: "Point", coordinates: value };
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as { type?: unknown; geometry?: unknown; features?: unknown };
  if (v.type === "Feature") return v.geometry;
  if (v.type === "FeatureCollection" && Array.isArray(v.features)) {
    const geometries = v.features.map((f) => (f as { geometry?: unknown } | null)?.geometry);
    return geometries.length === 1 ? geometries[0] : { type: "GeometryCollection", geometries };
  }
  return value;
}
