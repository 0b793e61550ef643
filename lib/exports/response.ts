import { badParameter } from "../http/errors.js";
import { linkWith } from "../http/links.js";
import { requestUrl } from "../http/request-url.js";
import { log } from "../log.js";
import { sum } from "../proofs/count.js";
import type { ProofFilter } from "../proofs/filter.js";
import type { RowJson } from "../proofs/json-sql.js";
import type { SortSpec } from "../proofs/sort.js";
import { type Batch, countsFirst, proofBatches } from "./batches.js";
import { batchBytes, batchSize, exportMaxRows, PARQUET_BATCH_BYTES } from "./budget.js";
import { exportColumns } from "./columns.js";
import { type ExportFormat, exportFormat } from "./formats.js";
import { tableRowSql } from "./table-sql.js";
import type { ExportWriter, WriterOptions } from "./writer.js";

/** What a list hands to a download: its filter and order, the row JSON of its features, and where it is served. */
export type ExportRequest = {
  format: ExportFormat;
  filter: ProofFilter;
  sort?: SortSpec[];
  json: RowJson;
  /** the collection's geometries are points only (the point collection, the native list) */
  points: boolean;
  /** the path the rest of a cut download is asked on (this list's own) */
  path: string;
  /** the file name offered (Content-Disposition), without extension */
  name: string;
  offset?: number;
  /** a download starts at the first match or at `offset`, never at a cursor (refused) */
  cursor?: string;
};

/**
 * The writer of a format, loaded only when a download asks for it: the Parquet and FlatGeobuf encoders never load
 * for a JSON page (cold start of the items functions).
 */
async function writerOf(format: ExportFormat, options: WriterOptions): Promise<ExportWriter> {
  switch (format) {
    case "csv":
      return (await import("./csv.js")).csvWriter(options);
    case "geojsonseq":
      return (await import("./geojson-seq.js")).geojsonSeqWriter();
    case "fgb":
      return tabular((await import("./flatgeobuf.js")).flatgeobufWriter(options), options);
    case "parquet": {
      // On the request's thread or its own; either way the rows it reads and its batch are set here, on the request's
      // thread (the encoder's renders no SQL).
      const thread = await import("./thread.js");
      const encoder = thread.encoderThreadWanted()
        ? thread.threadedParquetWriter(options)
        : (await import("./geoparquet.js")).geoparquetWriter(options);
      return tabular(Object.assign(encoder, { batchBytes: PARQUET_BATCH_BYTES }), options);
    }
  }
}

/** A tabular writer (FlatGeobuf, GeoParquet) reads the table row of its collection where it has one (tableRowSql). */
function tabular(writer: ExportWriter, options: WriterOptions): ExportWriter {
  const rowSql = tableRowSql(options.points);
  return rowSql ? Object.assign(writer, { rowSql }) : writer;
}

/**
 * A download of every match, streamed: the matches are counted before the response exists (countsFirst; for an
 * offset across parts, the first batch is read with its count), so a bad filter, a bad cursor or a database outage
 * is an ordinary error response (400, 503) before any byte, and the first bytes (the format's header) wait for the
 * count alone. Then each batch is read only when the body is pulled (backpressure: a slow client holds the next statement back), encoded and sent, and let go
 * of: memory holds a batch, whatever the size of the result. A client that goes away cancels the body, which stops
 * the batches after the statement in flight.
 *
 * The response holds exactly `X-Export-Rows` rows (the exact count of the matches from where it starts, capped by
 * `limit` and by the row budget of one invocation, exportMaxRows); a download cut at that budget says so with a
 * `Link: <…>; rel="next"` header for the rest (offset paging of the same request). An error after the first byte
 * errors the stream: the body is aborted (no final chunk), and each format shows it (docs/downloads.md).
 */
export async function exportResponse(request: Request, x: ExportRequest): Promise<Response> {
  const info = exportFormat(x.format);
  const limit = downloadLimit(request);
  const budget = exportMaxRows();
  const start = x.offset ?? 0;
  // A cursor's place in the list is a hint: the exact number of rows a download holds could not be announced.
  if (x.cursor !== undefined) {
    throw badParameter(
      "cursor",
      "a download starts at the first match, or at offset (its rel=next link's); cursor pages the JSON and HTML lists",
    );
  }
  const writer = await writerOf(x.format, {
    columns: exportColumns(x.filter.near !== undefined),
    points: x.points,
  });
  const batchRequest = {
    ...(x.sort ? { sort: x.sort } : {}),
    json: writer.rowSql ?? x.json,
    bytes: batchBytes(writer.batchBytes),
    limit: Math.min(limit ?? Number.POSITIVE_INFINITY, budget),
    ...(x.offset ? { offset: x.offset } : {}),
  };
  // The count first, when it can be taken alone: the response and its first bytes (the format's header) then wait
  // for it only, and the first batch is read as they go out.
  const counts = await countsFirst(x.filter, batchRequest);
  const batches = proofBatches(x.filter, { ...batchRequest, ...(counts ? { counts } : {}) }, batchSize);
  const first = counts ? undefined : await batches.next();
  // While a batch is encoded and sent, the database already reads the next (one batch ahead, never more): the
  // statement and the encoding overlap instead of taking turns, and memory holds at most two batches.
  let ahead: Promise<IteratorResult<Batch>> | undefined;
  const readAhead = () => {
    ahead = batches.next();
    // Its error, if any, is the body's when the batch is pulled (not an unhandled rejection meanwhile).
    ahead.catch(() => {});
  };
  const nextBatch = () => {
    const pending = ahead ?? batches.next();
    ahead = undefined;
    return pending;
  };
  const firstBatch: Batch | undefined = first && !first.done ? first.value : undefined;
  const total = counts ? sum(counts) : (firstBatch?.total ?? 0);
  const wanted = Math.min(Math.max(0, total - start), limit ?? Number.POSITIVE_INFINITY);
  const cut = wanted > budget;
  const rows = Math.min(wanted, budget);

  const headers: Record<string, string> = {
    "content-type": info.type,
    "content-disposition": `attachment; filename="${x.name}.${info.extension}"`,
    // A download is read once, straight through; caches would hold a whole result for one client.
    "cache-control": "no-store",
    "x-number-matched": String(total),
  };
  headers["x-export-rows"] = String(rows);
  if (cut) {
    const next = linkWith(
      request,
      x.path,
      { offset: start + budget, ...(limit !== undefined ? { limit: limit - budget } : {}) },
      ["cursor"],
    );
    headers.link = `<${next}>; rel="next"; type="${info.type.split(";")[0]}"`;
  }

  let sent = 0;
  const started = performance.now();
  // Set once the download has ended one way or another: a statement that was in flight when the client went away
  // finds it set, and neither sends nor logs anything more.
  let ended = false;
  const done = (outcome: string, error?: unknown) => {
    if (ended) return;
    ended = true;
    log(outcome === "complete" ? "info" : "warn", "export", {
      path: requestUrl(request).pathname,
      format: x.format,
      rows: sent,
      expected: rows,
      outcome,
      ms: Math.round(performance.now() - started),
      ...(error ? { error: String(error) } : {}),
    });
  };
  /** The rows of a batch this response still holds, encoded. */
  const encode = async (batch: Batch): Promise<Uint8Array> => {
    const texts = batch.rows.slice(0, Math.max(0, rows - sent)).map((row) => row.json);
    // The batch's rows are let go of here, whatever still refers to its array (proofBatches; the driver's own arrays
    // are emptied as they are read, lib/proofs/rows.ts).
    batch.release();
    sent += texts.length;
    return joined(await writer.write(texts));
  };
  let finished = rows === 0 || first?.done === true || (firstBatch?.rows.length ?? 0) >= rows;
  let pending: Uint8Array | undefined;
  try {
    pending = joined([...(await writer.start(rows)), ...(firstBatch ? [await encode(firstBatch)] : [])]);
  } catch (error) {
    writer.close?.();
    await batches.return(undefined);
    throw error;
  }
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          if (pending) {
            const bytes = pending;
            pending = undefined;
            // The second batch is read while the first goes out (not before: the first byte waits for nothing).
            if (!finished) readAhead();
            if (bytes.length) return controller.enqueue(bytes);
          }
          if (!finished && sent < rows) {
            const next = await nextBatch();
            if (ended) return;
            if (!next.done) {
              if (sent + next.value.rows.length < rows) readAhead();
              else finished = true;
              const bytes = await encode(next.value);
              if (ended) return;
              return controller.enqueue(bytes);
            }
            finished = true;
          }
          await batches.return(undefined);
          // Fewer rows than announced: the matches changed while the download ran. The file must not read as whole.
          if (sent < rows) throw new Error(`the result changed during the download: ${sent} of ${rows} rows`);
          const tail = joined(await writer.finish());
          writer.close?.();
          if (ended) return;
          if (tail.length) controller.enqueue(tail);
          controller.close();
          done("complete");
        } catch (error) {
          writer.close?.();
          if (ended) return;
          done("failed", error);
          controller.error(error);
        }
      },
      async cancel(reason) {
        done("cancelled", reason);
        writer.close?.();
        await batches.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { status: 200, headers });
}

/** One buffer of a batch's chunks (one socket write, not one per feature). */
function joined(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  return Buffer.concat(chunks);
}

/**
 * A download's `limit`, as the request wrote it: a cap on the rows of the whole download, not a page size, so the
 * OGC items' clamp to their page maximum does not apply to it (the list's own validator has already checked it).
 */
function downloadLimit(request: Request): number | undefined {
  const raw = requestUrl(request).searchParams.get("limit");
  if (raw === null) return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) && n > 0 ? n : Number.MAX_SAFE_INTEGER;
}
