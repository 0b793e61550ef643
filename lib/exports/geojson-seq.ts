import { listBytes } from "../http/respond.js";
import type { InlineWriter } from "./writer.js";

/**
 * GeoJSON Text Sequences (RFC 8142): each feature as PostgreSQL wrote it (the items' own GeoJSON), preceded by the
 * record separator (0x1E) and ended by a line feed. RFC 8142 §2.3: a record without its final line feed is
 * truncated, and a reader discards it — so a response cut in the middle of a feature never reads as a whole one.
 */
export function geojsonSeqWriter(): InlineWriter {
  return {
    // A quarter of the lists' batches: each feature's text is sent as it came, so the server's work per row is
    // small and a batch's rows, alive until the next statement ends, are what its collector copies and promotes;
    // the database's extra statements cost it less than that (docs/performance.md, Downloads).
    batchBytes: 1024 * 1024,
    start: () => [],
    // Each feature between a record separator and a line feed: the record separator before the first, a line feed
    // and the next record separator between two, a line feed after the last.
    write: (features) => (features.length ? [listBytes("\x1e", features, "\n", "\n\x1e")] : []),
    finish: () => [],
  };
}
