/**
 * The most rows one download response holds. A Vercel function runs at most its `maxDuration` (30 s here,
 * vercel.json); a download that would take longer is cut at this many rows, and its `Link: rel="next"` header names
 * the request for the rest (docs/downloads.md). `EXPORT_MAX_ROWS` overrides it (e.g. for a longer maxDuration, or
 * a self-hosted server with no limit).
 */
export const DEFAULT_EXPORT_MAX_ROWS = 1_000_000;

export function exportMaxRows(): number {
  const raw = process.env.EXPORT_MAX_ROWS;
  const n = raw === undefined || raw === "" ? Number.NaN : Number(raw);
  return Number.isSafeInteger(n) && n > 0 ? n : DEFAULT_EXPORT_MAX_ROWS;
}

/**
 * Rows in each batch: the first small (its statement is all that stands before the first byte), the second larger,
 * then `EXPORT_BATCH_ROWS` each (few statements, each a small part of the time; a test makes many small batches with
 * it). The response holds at most two batches at a time (one encoded, one read ahead), so this bounds its memory too.
 */
export function batchSize(n: number): number {
  const raw = Number(process.env.EXPORT_BATCH_ROWS);
  const later = Number.isSafeInteger(raw) && raw > 0 ? raw : 5000;
  if (n === 0) return Math.min(100, later);
  if (n === 1) return Math.min(1000, later);
  return later;
}

/**
 * The most text (the rows as PostgreSQL writes them) one batch reads: `EXPORT_BATCH_BYTES` where it is set, else the
 * writer's own preference (ExportWriter.batchBytes), else 4 MiB. Each batch is a statement, planned and started
 * anew, so small batches spend the database's time on statements rather than rows. A batch is held whole from its
 * statement to its encoding, two at a time (one read ahead); what that costs the server's memory is bounded by the
 * functions' young generation (FUNCTION_NODE_OPTIONS, scripts/build-output.ts), not by the batch alone.
 */
export function batchBytes(preferred?: number): number {
  const raw = Number(process.env.EXPORT_BATCH_BYTES);
  return Number.isSafeInteger(raw) && raw > 0 ? raw : (preferred ?? 4 * 1024 * 1024);
}

/**
 * GeoParquet's batch, half the others': a batch's rows are alive beside the row group being gathered and the one being
 * written, so its writer holds more than the others; smaller batches cost a statement each (docs/performance.md,
 * Downloads, for what each size cost).
 */
export const PARQUET_BATCH_BYTES = 2 * 1024 * 1024;
