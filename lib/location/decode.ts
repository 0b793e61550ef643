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
import { GEOJSON_TYPE_OF, type LocationType, normaliseLocationType } from "./vocabulary.js";
import { parseWkt } from "./wkt.js";

export type DecodedLocation = {
  /** GeoJSON geometry (longitude first); null when the location has no valid geographic data. */
  geometry: Geometry | null;
  longitude: number | null;
  latitude: number | null;
  bbox: Bbox | null;
  /**
   * The location type in the Location Protocol's vocabulary (lib/location/vocabulary.ts): the declared one
   * normalised, or for GeoJSON the geometry it holds; null when it cannot be told without guessing.
   */
  type: LocationType | null;
  /**
   * Why there are no coordinates, or what was not taken as written (a declared type the content contradicts); for
   * the record's decode_warning. Undefined when the location decoded as declared, and for an address (which has no
   * coordinates by definition).
   */
  problem?: string;
};

const NONE = (type: LocationType | null, problem: string | undefined): DecodedLocation => ({
  geometry: null,
  longitude: null,
  latitude: null,
  bbox: null,
  type,
  ...(problem === undefined ? {} : { problem }),
});

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Decodes a location by its normalised type (docs/location-protocol.md, "Normalisation"). The order of a coordinate
 * pair comes from the declared type only, never from the values; a value out of range makes the location invalid
 * rather than being swapped, and a pair whose two values are equal (a longitude written twice, a known writer bug)
 * is not taken for a point. Zero is a valid coordinate. Anything we cannot read gives nulls and says why (the raw
 * strings are kept by the caller), never an exception.
 */
export function decodeLocation(input: {
  locationType: string | null | undefined;
  location: string | null | undefined;
  srs?: string | null | undefined;
}): DecodedLocation {
  const normalised = normaliseLocationType(input.locationType);
  const type = normalised.type;
  const location = (input.location ?? "").trim();
  if (type === "address") return NONE(type, location ? undefined : "empty location");
  if (!type) return NONE(null, normalised.problem);
  if (!location) return NONE(type, "empty location");
  if (!isLonLatSrs(input.srs)) return NONE(type, `unsupported srs ${JSON.stringify(input.srs)}`);
  switch (type) {
    case "coordinate-decimal+lon-lat":
    case "coordinate-decimal+lat-lon":
      return coordinatePair(type, location);
    case "geojson":
    case "geojson-point":
    case "geojson-line":
    case "geojson-polygon":
      return geojson(type, location);
    case "wkt": {
      const parsed = parseWkt(location);
      if (!parsed) return NONE(type, "not well-known text");
      if (parsed.srid !== undefined && parsed.srid !== 4326)
        return NONE(type, `unsupported SRID ${parsed.srid}`);
      return fromGeometry(type, parsed.geometry);
    }
    case "geohash": {
      const b = geohashBounds(location);
      if (!b) return NONE(type, "not a geohash");
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
        type,
      };
    }
    case "h3": {
      // The cell's boundary is the geometry, its centre the point (lib/location/h3.ts).
      const cell = h3Cell(location);
      return cell ? { ...cell, type } : NONE(type, "not an H3 cell index");
    }
    case "scaledCoordinates":
      return scaledCoordinates(location);
  }
}

function coordinatePair(
  type: "coordinate-decimal+lon-lat" | "coordinate-decimal+lat-lon",
  location: string,
): DecodedLocation {
  const pair = parsePair(location);
  if (!pair) return NONE(type, "not a coordinate pair");
  const [a, b, ...rest] = pair as [number, number, ...number[]];
  if (a === b && a !== 0) {
    return NONE(
      type,
      `both values are ${a}: a coordinate written twice (e.g. the longitude) cannot be told from a point on the diagonal; not guessed`,
    );
  }
  const latLon = type === "coordinate-decimal+lat-lon";
  const [lon, lat] = latLon ? [b, a] : [a, b];
  if (Math.abs(lat) > 90 && Math.abs(lon) <= 90 && Math.abs(lat) <= 180) {
    return NONE(
      type,
      `latitude ${lat} is out of range for ${type}: the pair may be in the other axis order, which is not guessed`,
    );
  }
  return fromGeometry(type, { type: "Point", coordinates: [lon, lat, ...rest] });
}

/** GeoJSON: the geometry it holds decides the normalised type; a declared one it contradicts is warned about. */
function geojson(declared: LocationType, location: string): DecodedLocation {
  const candidate = geojsonGeometry(location);
  const found = validGeometry(candidate);
  if (!found) return NONE(declared, "invalid GeoJSON geometry or coordinates out of range");
  const type = GEOJSON_TYPE_OF[found.type] ?? "geojson";
  const decoded = fromGeometry(type, found);
  if (declared !== "geojson" && declared !== type) {
    return { ...decoded, problem: `declared ${declared} but the location is a GeoJSON ${found.type}` };
  }
  return decoded;
}

/**
 * scaledCoordinates ({"x", "y", "scale"}: integers, scale > 0, as the protocol's JSON Schema defines them): the point
 * (x / scale, y / scale), x the longitude as everywhere in the protocol.
 */
function scaledCoordinates(location: string): DecodedLocation {
  let value: unknown;
  try {
    value = JSON.parse(location);
  } catch {
    value = undefined;
  }
  const v = value as { x?: unknown; y?: unknown; scale?: unknown } | null;
  const ints = v && [v.x, v.y, v.scale].every((n) => typeof n === "number" && Number.isSafeInteger(n));
  if (!v || !ints || (v.scale as number) <= 0) {
    return NONE(
      "scaledCoordinates",
      'not a scaledCoordinates object {"x", "y", "scale"} of integers, scale > 0',
    );
  }
  const scale = v.scale as number;
  return fromGeometry("scaledCoordinates", {
    type: "Point",
    coordinates: [(v.x as number) / scale, (v.y as number) / scale],
  });
}

function fromGeometry(type: LocationType, candidate: unknown): DecodedLocation {
  const geometry = validGeometry(candidate);
  if (!geometry) return NONE(type, "invalid geometry or coordinates out of range");
  const bbox = bboxOf(geometry);
  const [longitude, latitude] = representativePoint(geometry, bbox);
  return { geometry, longitude, latitude, bbox, type };
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
