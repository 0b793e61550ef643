import * as v from "valibot";
import { ApiError } from "./errors.js";

/** POST bodies of this service are small JSON objects (sync options); anything near this size is a mistake. */
export const MAX_JSON_BODY_BYTES = 16 * 1024;

const tooLarge = (max: number) =>
  new ApiError(413, "PayloadTooLarge", `Request body exceeds ${max} bytes`, { parameter: "body" });
const badBody = (message: string) => new ApiError(400, "InvalidRequestBody", message, { parameter: "body" });

/**
 * Reads a request's JSON body with a byte cap, for the POST endpoints (e.g. `POST /api/sync`):
 * - larger than `maxBytes` (by Content-Length, or counted while streaming when the length is absent or lies)
 *   → 413 PayloadTooLarge, without reading the rest;
 * - not valid UTF-8 JSON → 400 InvalidRequestBody;
 * - empty → `undefined`, or a 400 when `required`;
 * - with `schema`, the value is validated and a failure is a 400 naming the field (`body.<field>`).
 */
export async function readJsonBody<S extends v.GenericSchema = v.GenericSchema<unknown>>(
  request: Request,
  options: { maxBytes?: number; required?: boolean; schema?: S } = {},
): Promise<v.InferOutput<S> | undefined> {
  const max = options.maxBytes ?? MAX_JSON_BODY_BYTES;
  const declared = request.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > max) throw tooLarge(max);
  const bytes = await readCapped(request, max);
  const text = bytes.length === 0 ? "" : decodeUtf8(bytes);
  if (text.trim() === "") {
    if (options.required) throw badBody("A JSON request body is required");
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badBody("The request body is not valid JSON");
  }
  if (!options.schema) return value as v.InferOutput<S>;
  const result = v.safeParse(options.schema, value);
  if (result.success) return result.output;
  const issue = result.issues[0];
  const path = issue.path?.map((p) => String(p.key)).join(".");
  const parameter = path ? `body.${path}` : "body";
  throw new ApiError(400, "InvalidRequestBody", `${parameter}: ${issue.message}`, { parameter });
}

/** A request's text body (UTF-8) under the same byte cap as readJsonBody (413 beyond it, the rest unread). */
export async function readTextBody(request: Request, maxBytes: number): Promise<string> {
  const declared = request.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > maxBytes)
    throw tooLarge(maxBytes);
  const bytes = await readCapped(request, maxBytes);
  return bytes.length === 0 ? "" : decodeUtf8(bytes);
}

async function readCapped(request: Request, max: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > max) {
        await reader.cancel().catch(() => {});
        throw tooLarge(max);
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw badBody("The request body is not valid UTF-8");
  }
}

const EMPTY_BODY = v.custom<Record<string, never>>(
  (x) => typeof x === "object" && x !== null && !Array.isArray(x) && Object.keys(x).length === 0,
  "this endpoint takes its options in the query string (e.g. ?chain=devnet): send no body, or {}",
);

/**
 * The restricted POST endpoints (sync, revocations, worker, cron) take their options in the query string, never in
 * the body. A body is still read, under the same cap, and must be empty or `{}`: a client that sends
 * `{"chain":"base"}` expecting it to count gets a 400 saying where options go, instead of a sync of every chain.
 */
export async function readNoBody(request: Request): Promise<void> {
  await readJsonBody(request, { schema: EMPTY_BODY });
}
