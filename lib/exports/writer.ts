import type { RowJson } from "../proofs/json-sql.js";
import type { ExportColumn } from "./columns.js";

/**
 * A download's encoder: bytes before the rows (given the exact number of rows the response will hold), bytes for
 * each batch of rows (each row the feature's JSON text as PostgreSQL wrote it), and bytes after the last row. It
 * holds no more than a batch: what it returns is sent and let go of.
 */
export interface ExportWriter {
  /**
   * The text PostgreSQL writes for each row, when the writer takes its rows as something else than the list's own
   * feature JSON (e.g. CSV records written by the database): `write` then gets these texts.
   */
  rowSql?: RowJson;
  /** the row text per database batch this writer keeps its memory with (lib/exports/budget.ts, batchBytes) */
  batchBytes?: number;
  start(rows: number): Uint8Array[];
  write(features: readonly string[]): Uint8Array[];
  finish(): Uint8Array[];
}

/** What every writer is made from: the columns, and whether the collection's geometries are points only. */
export type WriterOptions = { columns: ExportColumn[]; points: boolean };
