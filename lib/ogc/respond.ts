import { createHash, hash } from "node:crypto";
import { htmlResponse } from "../html/layout.js";
import type { Format } from "../http/format.js";
import { absoluteUrl } from "../http/links.js";
import { bytesResponse, JSON_TYPE, json, listBytes, stringify } from "../http/respond.js";

/**
 * One OGC resource in the negotiated encoding: the JSON document, or its HTML view rendered from it.
 * `volatile` names top-level members that change on every response (the items `timeStamp`): the JSON ETag is then
 * a weak validator of the document without them, so an unchanged page still answers If-None-Match with 304.
 */
export function ogcResponse<T>(
  format: Format,
  doc: T,
  html: (doc: T) => string,
  contentType?: string,
  volatile: readonly (keyof T & string)[] = [],
): Response {
  if (format === "html") return htmlResponse(html(doc));
  const type = contentType ? `${contentType}; charset=utf-8` : undefined;
  if (volatile.length === 0) return json(doc, type ? { contentType: type } : {});
  const record = doc as Record<string, unknown>;
  return weakResponse(stringify(doc), record, volatile, type, () => {
    const stable = { ...record };
    for (const k of volatile) delete stable[k];
    return stringify(stable);
  });
}

/**
 * A page whose features are JSON texts already (written by PostgreSQL, lib/proofs/json-sql.ts): `doc` is the
 * envelope with an empty `features`, which the texts fill (its members before `features` are scalars, so the first
 * `"features":[]` is the envelope's); the same body and the same weak ETag as ogcResponse gives for the whole
 * document. Only the small envelope is serialised; the features go from text to bytes one by one, into the body
 * (listBytes).
 */
export function featuresResponse<T extends { features: unknown[] }>(
  doc: T,
  featureTexts: string[],
  contentType: string,
  volatile: readonly (keyof T & string)[],
): Response {
  const split = (envelope: string): [string, string] => {
    const at = envelope.indexOf(EMPTY_FEATURES);
    if (doc.features.length !== 0 || at < 0)
      throw new Error("featuresResponse: an envelope with empty features");
    const cut = at + EMPTY_FEATURES.length - 1;
    return [envelope.slice(0, cut), envelope.slice(cut)];
  };
  const [head, tail] = split(stringify(doc));
  const stable = { ...(doc as Record<string, unknown>) };
  for (const k of volatile) delete stable[k];
  const [stableHead, stableTail] = split(stringify(stable));
  const bytes = listBytes(head, featureTexts, tail);
  const features = bytes.subarray(Buffer.byteLength(head), bytes.length - Buffer.byteLength(tail));
  const weak = createHash("sha1").update(stableHead).update(features).update(stableTail).digest("base64url");
  return bytesResponse(bytes, {
    contentType: `${contentType}; charset=utf-8`,
    headers: { etag: `W/"${weak}"` },
  });
}

const EMPTY_FEATURES = '"features":[]';

/** `body` with a weak ETag over it without the `volatile` members; `stable()` writes that text when needed. */
function weakResponse(
  body: string,
  doc: Record<string, unknown>,
  volatile: readonly string[],
  contentType: string | undefined,
  stable: () => string,
): Response {
  const bytes = Buffer.from(body, "utf8");
  return bytesResponse(bytes, {
    contentType: contentType ?? JSON_TYPE,
    headers: { etag: `W/"${stableHash(body, bytes, doc, volatile, stable)}"` },
  });
}

/**
 * The hash of `doc`'s JSON without its `keys` (what stringify gives for the document without them), from the bytes
 * already encoded: the member is skipped in the hash, so the page is neither serialised nor encoded a second time
 * (each was a sixth of a 1,000-feature page's CPU). This only where the member is provably the top-level one: one
 * volatile key, among the leading scalar members (the items' `timeStamp` follows `type`), i.e. before the first
 * nested object or array; otherwise the document is serialised again without them.
 */
function stableHash(
  body: string,
  bytes: Buffer<ArrayBuffer>,
  doc: Record<string, unknown>,
  keys: readonly string[],
  stable: () => string,
): string {
  const value = keys.length === 1 ? doc[keys[0]!] : undefined;
  const member =
    value !== undefined && (typeof value !== "object" || value === null)
      ? `${JSON.stringify(keys[0])}:${stringify(value)}`
      : undefined;
  const at = member ? body.indexOf(member) : -1;
  const nested = body.slice(1).search(/[[{]/) + 1;
  if (!member || at <= 0 || !"{,".includes(body[at - 1]!) || (nested > 0 && at > nested)) {
    return hash("sha1", stable(), "base64url");
  }
  // A member is preceded by "{" (the first) or "," (any other); the comma that separates it goes with it.
  const [from, to] =
    body[at - 1] === ","
      ? [at - 1, at + member.length]
      : [at, at + member.length + (body[at + member.length] === "," ? 1 : 0)];
  const byteFrom = Buffer.byteLength(body.slice(0, from));
  const byteTo = byteFrom + Buffer.byteLength(body.slice(from, to));
  return createHash("sha1")
    .update(bytes.subarray(0, byteFrom))
    .update(bytes.subarray(byteTo))
    .digest("base64url");
}

/** Absolute links for the HTML views. */
export const hrefFor = (request: Request) => (path: string) => absoluteUrl(request, path);
