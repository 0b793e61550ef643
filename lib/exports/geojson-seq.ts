import { utf8Texts } from "./utf8.js";
import type { ExportWriter } from "./writer.js";

/**
 * GeoJSON Text Sequences (RFC 8142): each feature as PostgreSQL wrote it (the items' own GeoJSON), preceded by the
 * record separator (0x1E) and ended by a line feed. RFC 8142 §2.3: a record without its final line feed is
 * truncated, and a reader discards it — so a response cut in the middle of a feature never reads as a whole one.
 */
export function geojsonSeqWriter(): ExportWriter {
  return {
    start: () => [],
    write: (features) => [utf8Texts(features, 0x1e, 0x0a)],
    finish: () => [],
  };
}
