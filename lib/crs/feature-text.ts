import type { CrsSystem } from "./systems.js";
import { envelope, type Geometry, geometryTo, positionTo } from "./transform.js";

/**
 * A feature as PostgreSQL wrote it (lib/proofs/json-sql.ts), its geometry in another system, without parsing the
 * rest of it: a page's features are texts the writer copies (docs/architecture.md, "JSON written by PostgreSQL"), and
 * only the geometry changes.
 *
 * The geometry runs from `"geometry":` to the next member (`,"bbox":`, `,"place":` or `,"properties":`). That is
 * safe: row_to_json writes the feature's own members without spaces, while a stored geometry (jsonb) is written
 * with a space after every `,` and `:`, and a string inside it writes its quotes escaped, so `,"` cannot occur
 * inside the geometry. A representative point is written by json-sql.ts itself, compactly, and read up to its `]}`;
 * a point (most of a page's features) is transformed without JSON.parse.
 */

const GEOMETRY = '"geometry":';
const BBOX = ',"bbox":';
const PLACE_NULL = ',"place":null';
const ENDS = [BBOX, ',"place":', ',"properties":'];

/** A point as json-sql.ts writes the representative point, and as jsonb writes a stored one. */
const POINTS = ['{"type":"Point","coordinates":[', '{"type": "Point", "coordinates": ['];

/**
 * Where the geometry's text is: a point's ends at its `]}`; any other geometry (jsonb's text, whose every comma is
 * followed by a space, and whose strings escape their quotes) ends at the first `,"` after it, checked to be one of
 * the members that can follow (else the first of those, searched for each).
 */
function geometrySpan(text: string): { start: number; end: number } | undefined {
  const at = text.indexOf(GEOMETRY);
  if (at < 0) return undefined;
  const start = at + GEOMETRY.length;
  if (POINTS.some((p) => text.startsWith(p, start))) {
    const close = text.indexOf("]}", start);
    if (close >= 0) return { start, end: close + 2 };
  }
  const next = text.indexOf(',"', start);
  if (next >= 0 && ENDS.some((m) => text.startsWith(m, next))) return { start, end: next };
  let end = -1;
  for (const marker of ENDS) {
    const i = text.indexOf(marker, start);
    if (i >= 0 && (end < 0 || i < end)) end = i;
  }
  return end < 0 ? undefined : { start, end };
}

/** The geometry text in `system`: JSON text, or null when it has no coordinates there. */
function geometryTextIn(geometry: string, system: CrsSystem): { text: string; value?: Geometry | null } {
  const prefix = POINTS.find((p) => geometry.startsWith(p));
  if (prefix && geometry.endsWith("]}")) {
    const numbers = geometry.slice(prefix.length, -2).split(",").map(Number);
    const to = positionTo(system)!;
    const p = to(numbers);
    if (numbers.length >= 2 && p.every(Number.isFinite))
      return { text: `{"type":"Point","coordinates":[${p.join(",")}]}` };
  }
  const value = geometryTo(JSON.parse(geometry), system);
  return { text: JSON.stringify(value), value };
}

/**
 * The feature with its `geometry` in `system`, and its `bbox` member (a shape's) the envelope of the transformed
 * geometry, in the system's axis order; a geometry without coordinates there (lib/crs/transform.ts) becomes null
 * and loses its bbox.
 */
export function featureTextIn(text: string, system: CrsSystem): string {
  const span = geometrySpan(text);
  if (!span || text.startsWith("null", span.start)) return text;
  const geometry = geometryTextIn(text.slice(span.start, span.end), system);
  let rest = text.slice(span.end);
  if (rest.startsWith(BBOX)) {
    const close = rest.indexOf("]", BBOX.length);
    const value = geometry.value === undefined ? JSON.parse(geometry.text) : geometry.value;
    const box = value ? envelope(value) : undefined;
    rest = `${box ? `${BBOX}${JSON.stringify(box)}` : ""}${rest.slice(close + 1)}`;
  }
  return `${text.slice(0, span.start)}${geometry.text}${rest}`;
}

/**
 * A JSON-FG feature (written with `"place":null` after its geometry and bbox) with `place` the geometry in
 * `system`; `geometry` stays CRS84, the fallback a plain GeoJSON reader uses.
 */
export function placeTextIn(text: string, system: CrsSystem): string {
  const span = geometrySpan(text);
  if (!span || text.startsWith("null", span.start)) return text;
  const place = text.indexOf(PLACE_NULL, span.end);
  if (place < 0) return text;
  const geometry = geometryTextIn(text.slice(span.start, span.end), system);
  const at = place + PLACE_NULL.length - "null".length;
  return `${text.slice(0, at)}${geometry.text}${text.slice(place + PLACE_NULL.length)}`;
}
