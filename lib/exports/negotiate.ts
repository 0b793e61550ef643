import * as v from "valibot";
import { ApiError } from "../http/errors.js";
import { acceptRanges } from "../http/format.js";
import { EXPORT_F_VALUES, EXPORT_FORMATS, type ExportFormat, isExportFormat } from "./formats.js";

/**
 * `f` on the lists that download (the OGC items, the native list): json or html (a page), or one of the download
 * formats (the whole result, streamed).
 */
export const listFormatParam = v.picklist(
  ["json", "html", ...EXPORT_F_VALUES],
  `f must be one of json, html, ${EXPORT_F_VALUES.join(", ")}`,
);

/** A media range a page (JSON, GeoJSON, HTML) answers: every JSON type, text/html and the wildcards. */
const servesPage = (type: string) =>
  type.includes("json") ||
  type === "text/html" ||
  type === "*/*" ||
  type === "application/*" ||
  type === "text/*";

/**
 * Which download a request asks for, if any: `f` wins (a page format there means no download); otherwise Accept,
 * where a download's media type must rank above every page type (higher q, or the same q and listed first), so that a
 * client that lists GeoJSON first still gets its page. An Accept that names no type the list can answer at all
 * (no JSON, HTML, download type nor wildcard) is a 406, before anything is read.
 */
export function exportFormatOf(request: Request, f: string | undefined): ExportFormat | undefined {
  if (f !== undefined) return isExportFormat(f) ? f : undefined;
  const accept = request.headers.get("accept");
  if (!accept) return undefined;
  const ranges = acceptRanges(accept);
  const formatOf = (type: string) => EXPORT_FORMATS.find((x) => x.accepts.includes(type))?.f;
  const best = ranges
    .filter((r) => formatOf(r.type) !== undefined || servesPage(r.type))
    .sort((a, b) => b.q - a.q || a.at - b.at)[0];
  if (!best) {
    if (ranges.length === 0) return undefined;
    throw new ApiError(
      406,
      "NotAcceptable",
      `None of the media types in Accept is served here. Served: application/geo+json, application/json, text/html, ${EXPORT_FORMATS.map((x) => x.accepts[0]).join(", ")} (or f=${EXPORT_F_VALUES.join("|")}).`,
      { parameter: "Accept" },
    );
  }
  return formatOf(best.type);
}
