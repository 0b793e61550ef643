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
 * Rows in the first batch (an early first byte), and in every later one (few statements, each a small part of the
 * time). `EXPORT_BATCH_ROWS` sets the later ones (a test makes many small batches with it).
 */
export function batchSize(n: number): number {
  if (n === 0) return 500;
  const raw = Number(process.env.EXPORT_BATCH_ROWS);
  return Number.isSafeInteger(raw) && raw > 0 ? raw : 5000;
}
