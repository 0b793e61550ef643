import type { CrsSystem } from "./systems.js";
import { envelope, geometryTo } from "./transform.js";

/**
 * A feature as PostgreSQL wrote it (lib/proofs/json-sql.ts), its geometry in another system, without parsing the
 * rest of it: a page's features are texts the writer copies (docs/architecture.md, "JSON written by PostgreSQL"), and
 * only the geometry changes.
 *
 * The geometry runs from `"geometry":` to the first of `,"bbox":`, `,"place":` or `,"properties":` after it. That
 * is safe: row_to_json writes the feature's own members without spaces, while a stored geometry (jsonb) is written
 * with a space after every `,` and `:`, and a string inside it writes its quotes escaped, so none of those three can
 * occur inside the geometry. A representative point is written by json-sql.ts itself, without any of them.
 */

const GEOMETRY = '"geometry":';
const ENDS = [',"bbox":', ',"place":', ',"properties":'];
const PLACE_NULL = ',"place":null';

function geometrySpan(text: string): { start: number; end: number } | undefined {
  const at = text.indexOf(GEOMETRY);
  if (at < 0) return undefined;
  const start = at + GEOMETRY.length;
  let end = -1;
  for (const marker of ENDS) {
    const i = text.indexOf(marker, start);
    if (i >= 0 && (end < 0 || i < end)) end = i;
  }
  return end < 0 ? undefined : { start, end };
}

/**
 * The feature with its `geometry` in `system`, and its `bbox` member (a shape's) the envelope of the transformed
 * geometry, in the system's axis order; a geometry without coordinates there (lib/crs/transform.ts) becomes null
 * and loses its bbox.
 */
export function featureTextIn(text: string, system: CrsSystem): string {
  const span = geometrySpan(text);
  if (!span || text.startsWith("null", span.start)) return text;
  const geometry = geometryTo(JSON.parse(text.slice(span.start, span.end)), system);
  let rest = text.slice(span.end);
  if (rest.startsWith(ENDS[0]!)) {
    const close = rest.indexOf("]", ENDS[0]!.length);
    const box = geometry ? envelope(geometry) : undefined;
    rest = `${box ? `${ENDS[0]}${JSON.stringify(box)}` : ""}${rest.slice(close + 1)}`;
  }
  return `${text.slice(0, span.start)}${JSON.stringify(geometry)}${rest}`;
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
  const geometry = geometryTo(JSON.parse(text.slice(span.start, span.end)), system);
  const at = place + PLACE_NULL.length - "null".length;
  return `${text.slice(0, at)}${JSON.stringify(geometry)}${text.slice(place + PLACE_NULL.length)}`;
}
