import * as v from "valibot";

/** The two encodings every OGC resource has here (Part 1 "geojson"/"json" and "html" conformance classes). */
export type Format = "json" | "html";

/** `f` query parameter: an explicit choice that wins over the Accept header. */
export const formatParam = v.picklist(["json", "html"], "f must be json or html");

/** The single-feature and metadata resources take only `f`. */
export const FORMAT_ONLY = { f: v.optional(formatParam) };

/**
 * `f` wins; otherwise Accept decides: HTML only when the client asks for text/html before any JSON type (browsers
 * do; GDAL, QGIS, curl and fetch() do not), so a client that accepts both with `*` still gets JSON.
 */
export function negotiateFormat(request: Request, f: Format | undefined): Format {
  if (f) return f;
  const accept = (request.headers.get("accept") ?? "").toLowerCase();
  const html = accept.indexOf("text/html");
  if (html < 0) return "json";
  const jsonAt = [accept.indexOf("json")].filter((i) => i >= 0);
  return jsonAt.length === 0 || html < jsonAt[0]! ? "html" : "json";
}
