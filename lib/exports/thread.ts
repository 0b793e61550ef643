import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { ExportWriter, WriterOptions } from "./writer.js";

/** A call of the writer on the encoder thread (lib/exports/parquet-worker.ts). */
export type EncoderRequest =
  | { op: "start"; rows: number }
  | { op: "write"; texts: readonly string[] }
  | { op: "finish" };
/** Its answer: the bytes the call wrote, or why it failed. */
export type EncoderReply = { bytes: Uint8Array } | { error: string };

/**
 * The built encoder's file, which the build writes beside every output file holding this module: parquet-worker.ts
 * bundled, named as its entry in .mjs (scripts/build-output.ts, WORKERS).
 */
export const PARQUET_WORKER_FILE = "parquet-worker.mjs";

/**
 * Whether a GeoParquet download encodes on a thread of its own: only when `EXPORT_ENCODER_THREAD=1` and the process
 * has more than one CPU (on one, the thread would only take turns with the request's). Off by default: the thread
 * makes the download faster where a second CPU is free, but holds a second heap and starts before the first byte
 * (docs/downloads.md, docs/performance.md).
 */
export function encoderThreadWanted(): boolean {
  return process.env.EXPORT_ENCODER_THREAD === "1" && availableParallelism() > 1;
}

/**
 * The GeoParquet writer on a worker thread: the request's thread reads the next batch from the database while the
 * worker parses and encodes the last one, so a download's encoding no longer waits for the database, nor the database
 * for the encoding (docs/downloads.md). The calls are the writer's own, answered in order; the texts are copied to the
 * thread and the bytes handed back. `close` ends the thread (after the last call, or when the download stops).
 */
export function threadedParquetWriter(options: WriterOptions): ExportWriter<Promise<Uint8Array[]>> {
  const worker = startWorker(options);
  const waiting: { resolve(bytes: Uint8Array[]): void; reject(error: Error): void }[] = [];
  let failure: Error | undefined;
  const fail = (error: Error) => {
    failure ??= error;
    for (const w of waiting.splice(0)) w.reject(failure);
  };
  worker.on("message", (reply: EncoderReply) => {
    const w = waiting.shift();
    if (!w) return;
    if ("error" in reply) w.reject(new Error(`GeoParquet encoder: ${reply.error}`));
    else w.resolve(reply.bytes.length ? [reply.bytes] : []);
  });
  worker.on("error", (error) => fail(error));
  worker.on("exit", (code) => fail(new Error(`GeoParquet encoder thread ended (exit code ${code})`)));
  const call = (request: EncoderRequest): Promise<Uint8Array[]> =>
    new Promise((resolve, reject) => {
      if (failure) return reject(failure);
      waiting.push({ resolve, reject });
      worker.postMessage(request);
    });
  return {
    start: (rows) => call({ op: "start", rows }),
    write: (texts) => call({ op: "write", texts }),
    finish: () => call({ op: "finish" }),
    close: () => {
      failure ??= new Error("the download ended");
      void worker.terminate();
    },
  };
}

/**
 * The encoder's thread. Built, its code is the bundle the build wrote beside the output file holding this module;
 * from source (the dev server, the tests), the TypeScript beside this file, loaded through tsx, which the thread
 * registers first (a thread of a process started without tsx has no loader for it).
 */
function startWorker(options: WriterOptions): Worker {
  const url = import.meta.url;
  const settings = {
    workerData: options,
    // A heap of its own, bounded as the functions' (FUNCTION_NODE_OPTIONS): its young generation no larger than the
    // request thread's, its old generation far above the row group and batch it holds (an encoder that would need
    // more ends, and the download with it, rather than the function).
    resourceLimits: { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 128 },
  };
  if (!url.endsWith(".ts")) return new Worker(new URL(`./${PARQUET_WORKER_FILE}`, url), settings);
  // tsx's ES module API, as its package's exports name it (require.resolve would find the CommonJS one).
  const manifest = createRequire(url).resolve("tsx/package.json");
  const api = (
    JSON.parse(readFileSync(manifest, "utf8")) as { exports: Record<string, { import: { default: string } }> }
  ).exports["./esm/api"]!.import.default;
  const tsx = pathToFileURL(join(dirname(manifest), api)).href;
  const entry = new URL("./parquet-worker.ts", url).href;
  const boot = `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { ...settings, eval: true });
}
