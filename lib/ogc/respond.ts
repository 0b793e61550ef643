import { htmlResponse } from "../html/layout.js";
import type { Format } from "../http/format.js";
import { absoluteUrl } from "../http/links.js";
import { etagOf, JSON_TYPE, json, stringify, textResponse } from "../http/respond.js";

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
  return textResponse(body, {
    contentType: type ?? JSON_TYPE,
    headers: { etag: `W/${etagOf(withoutMembers(body, doc as Record<string, unknown>, volatile))}` },
  });
}

/**
 * The JSON of `doc` without its `keys`, cut out of `body` (= stringify(doc)): the same text stringify gives for the
 * document without them, without serialising a page of features a second time (a third of a 1,000-feature page's
 * CPU). A member is cut only where it is provably the top-level one: before the first nested object or array, i.e.
 * among the leading scalar members (the items' `timeStamp` follows `type`). Anywhere else the document is
 * serialised again without it.
 */
function withoutMembers(body: string, doc: Record<string, unknown>, keys: readonly string[]): string {
  let text = body;
  for (const key of keys) {
    if (!(key in doc) || doc[key] === undefined) continue;
    const member = `${JSON.stringify(key)}:${stringify(doc[key])}`;
    const at = text.indexOf(member);
    const nested = text.slice(1).search(/[[{]/) + 1;
    const scalar = typeof doc[key] !== "object" || doc[key] === null;
    const opens = text[at - 1] === "," || text[at - 1] === "{";
    if (at <= 0 || !opens || !scalar || (nested > 0 && at > nested)) {
      const stable = { ...doc };
      for (const k of keys) delete stable[k];
      return stringify(stable);
    }
    // A member is preceded by "{" (first) or "," (any other), and followed by "," unless it is the last.
    text =
      text[at - 1] === ","
        ? text.slice(0, at - 1) + text.slice(at + member.length)
        : text.slice(0, at) + text.slice(at + member.length + (text[at + member.length] === "," ? 1 : 0));
  }
  return text;
}

/** Absolute links for the HTML views. */
export const hrefFor = (request: Request) => (path: string) => absoluteUrl(request, path);
