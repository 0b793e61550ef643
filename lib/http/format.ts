import * as v from "valibot";
import { requestUrl } from "./request-url.js";

/**
 * The two encodings of the resources a person may open in a browser: every OGC resource (Part 1 "geojson"/"json"
 * and "html" conformance classes), the root and the native list. JSON is the default; HTML only when asked for.
 */
export type Format = "json" | "html";

/** `f` query parameter: an explicit choice that wins over the Accept header. */
export const formatParam = v.picklist(["json", "html"], "f must be json or html");

/** The single-feature and metadata resources take only `f`. */
export const FORMAT_ONLY = {
  f: v.optional(
    v.pipe(
      formatParam,
      v.description("json, or html (a page for people); without it, the Accept header decides."),
    ),
  ),
};

/** An Accept header's media ranges, lower case, with their weight and place; those of weight 0 left out. */
export function acceptRanges(accept: string): { type: string; q: number; at: number }[] {
  return accept
    .toLowerCase()
    .split(",")
    .map((range, at) => {
      const [type = "", ...params] = range.split(";").map((s) => s.trim());
      const q = params.find((p) => p.startsWith("q="));
      const weight = q === undefined ? 1 : Number(q.slice(2));
      return { type, q: Number.isFinite(weight) ? weight : 0, at };
    })
    .filter((r) => r.type !== "" && r.q > 0);
}

/**
 * `f` wins; otherwise Accept decides: HTML only when the client prefers text/html to every JSON type (higher q, or
 * the same q and listed first). Browsers do; GDAL, QGIS, curl and fetch() do not, and wildcards never
 * count, so a client that accepts both with a wildcard still gets JSON. A range with q=0 is refused, never chosen.
 */
export function negotiateFormat(request: Request, f: string | undefined): Format {
  // (Any other `f` is a download format, which the lists that take one decide before: lib/exports/negotiate.ts.)
  if (f === "json" || f === "html") return f;
  const ranges = acceptRanges(request.headers.get("accept") ?? "");
  const best = (match: (type: string) => boolean) =>
    ranges.filter((r) => match(r.type)).sort((a, b) => b.q - a.q || a.at - b.at)[0];
  const html = best((type) => type === "text/html");
  const json = best((type) => type.includes("json"));
  if (!html) return "json";
  return !json || html.q > json.q || (html.q === json.q && html.at < json.at) ? "html" : "json";
}

/**
 * The format an error page should take when the route's own parsing failed (it may have failed on `f` itself):
 * `f=html` or `f=json` as sent, else Accept as above. Used by route() for HTML error pages.
 */
export function requestedFormat(request: Request): Format {
  const f = requestUrl(request).searchParams.get("f");
  return negotiateFormat(request, f === "html" || f === "json" ? f : undefined);
}
