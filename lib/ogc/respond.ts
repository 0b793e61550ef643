import { createHash, hash } from "node:crypto";
import { htmlResponse } from "../html/layout.js";
import type { Format } from "../http/format.js";
import { absoluteUrl } from "../http/links.js";
import { bytesResponse, JSON_TYPE, json, stringify } from "../http/respond.js";

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
  const body = stringify(doc);
  const bytes = Buffer.from(body, "utf8");
  return bytesResponse(bytes, {
    contentType: type ?? JSON_TYPE,
    headers: { etag: `W/"${stableHash(body, bytes, doc as Record<string, unknown>, volatile)}"` },
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
  bytes: Buffer,
  doc: Record<string, unknown>,
  keys: readonly string[],
): string {
  const value = keys.length === 1 ? doc[keys[0]!] : undefined;
  const member =
    value !== undefined && (typeof value !== "object" || value === null)
      ? `${JSON.stringify(keys[0])}:${stringify(value)}`
      : undefined;
  const at = member ? body.indexOf(member) : -1;
  const nested = body.slice(1).search(/[[{]/) + 1;
  if (!member || at <= 0 || !"{,".includes(body[at - 1]!) || (nested > 0 && at > nested)) {
    const stable = { ...doc };
    for (const k of keys) delete stable[k];
    return hash("sha1", stringify(stable), "base64url");
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
