import { EXPORT_F_VALUES, EXPORT_FORMATS } from "./formats.js";

/**
 * What the API documents say of the downloads (both OpenAPI documents: lib/ogc/openapi.ts, lib/v0/openapi.ts):
 * each format's media type in the list's 200 response, and the 406 an Accept that names nothing served gets.
 * The GeoJSON Text Sequence is declared without a schema: it is a sequence of JSON texts, not one.
 */
export const downloadContent = (): Record<string, Record<string, unknown>> =>
  Object.fromEntries(
    EXPORT_FORMATS.map((x) => [
      x.type.split(";")[0]!,
      x.f === "geojsonseq" ? {} : { schema: { type: "string", format: "binary" } },
    ]),
  );

export const DOWNLOAD_DESCRIPTION = `With f=${EXPORT_F_VALUES.join("|")} (or their media type in Accept): every matching feature in one streamed download (no paging links; limit caps the whole download; X-Export-Rows says how many rows it holds, and a download cut at the row budget of one invocation names the rest in its Link rel="next" header).`;

/** The headers of a download (docs/downloads.md). */
const DOWNLOAD_HEADERS: Record<string, { description: string; schema: unknown }> = {
  "X-Export-Rows": {
    description:
      "Downloads only: the exact number of rows (features) the download holds; a file with fewer was cut short",
    schema: { type: "string", pattern: "^[0-9]+$" },
  },
  "X-Number-Matched": {
    description:
      "Downloads only: the number of features matching the filter (all of them, before limit, offset and the row budget)",
    schema: { type: "string", pattern: "^[0-9]+$" },
  },
  Link: {
    description:
      'Downloads only, when cut at the row budget of one invocation: <url>; rel="next" names the request for the rest',
    schema: { type: "string" },
  },
};

/** Adds the download media types, headers and the 406 to a GET operation's document (its 200 holds `content`). */
export function withDownloads<T extends Record<string, unknown>>(pathItem: T, exception: unknown): T {
  const get = pathItem.get as {
    responses: Record<
      string,
      { description: string; content?: Record<string, unknown>; headers?: Record<string, unknown> }
    >;
  };
  const ok = get.responses["200"]!;
  // A download has no validator (it is read once, never cached): a page's required ETag is a page's only, stated
  // here inline (a $ref would carry the page's `required`).
  const headers = Object.fromEntries(
    Object.entries(ok.headers ?? {}).map(([name, h]) => [
      name,
      name.toLowerCase() === "etag"
        ? {
            description:
              "A validator of the body, to send back in If-None-Match (pages only: a download has none)",
            required: false,
            schema: { type: "string" },
          }
        : h,
    ]),
  );
  get.responses["200"] = {
    ...ok,
    description: `${ok.description}. ${DOWNLOAD_DESCRIPTION}`,
    content: { ...ok.content, ...downloadContent() },
    headers: { ...headers, ...DOWNLOAD_HEADERS },
  };
  get.responses["406"] = exception as { description: string };
  return pathItem;
}
