import type { Geometry, Position } from "./geometry.js";

/**
 * A small Well-Known Text reader (OGC 06-103r4): POINT, LINESTRING, POLYGON, their MULTI forms and
 * GEOMETRYCOLLECTION, with optional Z/M/ZM and an EWKT `SRID=n;` prefix. x is longitude, y latitude.
 * Returns undefined for anything malformed or EMPTY; range checks are the caller's (validGeometry).
 */
export function parseWkt(text: string): { geometry: Geometry; srid?: number } | undefined {
  let s = text.trim();
  let srid: number | undefined;
  const prefix = /^SRID=(\d+);/i.exec(s);
  if (prefix) {
    srid = Number(prefix[1]);
    s = s.slice(prefix[0].length);
  }
  const tokens = s.match(/[A-Za-z]+|[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[(),]|\S/g) ?? [];
  let i = 0;
  const peek = () => tokens[i];
  const next = () => tokens[i++];
  const expect = (t: string) => {
    if (next() !== t) throw new Error(`expected ${t}`);
  };

  function coord(dims: string): Position {
    const nums: number[] = [];
    while (peek() !== undefined && /^[+-]?[\d.]/.test(peek()!)) nums.push(Number(next()));
    if (nums.length < 2 || nums.length > 4) throw new Error("bad coordinate");
    // M is a measure, not a height: drop it when tagged M (or the 4th number of ZM); keep Z. Untagged 3 or 4
    // numbers are read as x y z [m], as PostGIS does: the height stays.
    if (dims === "M") return nums.slice(0, 2);
    return nums.slice(0, 3);
  }
  function list<T>(item: () => T): T[] {
    expect("(");
    const out = [item()];
    while (peek() === ",") {
      next();
      out.push(item());
    }
    expect(")");
    return out;
  }
  function geometry(): Geometry {
    // POINTZ / LINESTRINGM (no space) are seen in the wild as well as POINT Z.
    const m =
      /^(POINT|LINESTRING|POLYGON|MULTIPOINT|MULTILINESTRING|MULTIPOLYGON|GEOMETRYCOLLECTION)(ZM|Z|M)?$/.exec(
        next()?.toUpperCase() ?? "",
      );
    if (!m) throw new Error("unknown WKT type");
    const type = m[1];
    let dims = m[2] ?? "";
    if (/^(Z|M|ZM)$/i.test(peek() ?? "")) dims = next()!.toUpperCase();
    if (peek()?.toUpperCase() === "EMPTY") throw new Error("empty geometry");
    const c = () => coord(dims);
    const ring = () => list(c);
    switch (type) {
      case "POINT":
        return { type: "Point", coordinates: list(c)[0]! };
      case "LINESTRING":
        return { type: "LineString", coordinates: ring() };
      case "POLYGON":
        return { type: "Polygon", coordinates: list(ring) };
      case "MULTIPOINT":
        // Both MULTIPOINT((1 2),(3 4)) and MULTIPOINT(1 2, 3 4) are in use.
        return { type: "MultiPoint", coordinates: list(() => (peek() === "(" ? list(c)[0]! : c())) };
      case "MULTILINESTRING":
        return { type: "MultiLineString", coordinates: list(ring) };
      case "MULTIPOLYGON":
        return { type: "MultiPolygon", coordinates: list(() => list(ring)) };
      case "GEOMETRYCOLLECTION":
        return { type: "GeometryCollection", geometries: list(geometry) };
      default:
        throw new Error(`unknown WKT type ${type}`);
    }
  }
  try {
    const g = geometry();
    if (i !== tokens.length) return undefined;
    return srid === undefined ? { geometry: g } : { geometry: g, srid };
  } catch {
    return undefined;
  }
}
