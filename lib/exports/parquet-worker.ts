import { parentPort, workerData } from "node:worker_threads";
import { geoparquetWriter } from "./geoparquet.js";
import type { EncoderReply, EncoderRequest } from "./thread.js";
import type { WriterOptions } from "./writer.js";

/*
 * The GeoParquet writer on a thread of its own (lib/exports/thread.ts): each message is one call of the writer, in
 * order, and each reply its bytes in one buffer, handed over rather than copied.
 */
const writer = geoparquetWriter(workerData as WriterOptions);
const port = parentPort!;

port.on("message", (request: EncoderRequest) => {
  let reply: EncoderReply;
  try {
    const chunks =
      request.op === "start"
        ? writer.start(request.rows)
        : request.op === "write"
          ? writer.write(request.texts)
          : writer.finish();
    const bytes = own(chunks);
    reply = { bytes };
    return port.postMessage(reply, [bytes.buffer as ArrayBuffer]);
  } catch (error) {
    reply = { error: error instanceof Error ? error.message : String(error) };
    port.postMessage(reply);
  }
});

/** The chunks in one buffer of its own (a view of a shared pool or of a larger buffer cannot be handed over). */
function own(chunks: Uint8Array[]): Uint8Array {
  const one = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  if (
    one.byteOffset === 0 &&
    one.byteLength === one.buffer.byteLength &&
    !(one.buffer instanceof SharedArrayBuffer)
  )
    return one;
  return new Uint8Array(one);
}
