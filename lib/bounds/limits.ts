/**
 * The bounds of a list response (docs/security.md, "Bounded responses"): what one record of a page, and one page,
 * may weigh. Free of the data layer, so the documents that state them load nothing else.
 *
 * Why: the attested values (the location, the memo, the media, the application's fields …) are whatever the attester
 * wrote, and anyone may register a location schema. Without a bound a few large values on the first page would carry
 * the page past the platform's response limit (Vercel's 4.5 MB), and every page read would ship them through the
 * database driver and the function's memory. A list therefore carries each value up to a limit (a longer one is cut,
 * and the record says so: `truncated`), and a page ends early, with its `next` link, before its records pass
 * PAGE_BYTES. The record by uid carries every value whole; so do the downloads (lib/exports/), which stream.
 */

/** A free-text value (the location, the memo, …) in a list: its first this many characters. */
export const TEXT_CHARS = 4096;
/** A structured value (an array of the media, the recipe, the application's fields) in a list: whole up to this many bytes of JSON, else null. */
export const JSON_BYTES = 16 * 1024;
/** A stored geometry in a list: whole up to this many bytes of GeoJSON, else null. */
export const GEOMETRY_BYTES = 256 * 1024;
/**
 * The most bytes of records one page carries (the records' JSON; the links and counts around them are a few
 * hundred bytes more): a page ends before the record that would pass it, and its next link goes on from there. A
 * page always carries its first record, which the limits above keep far below it.
 */
export const PAGE_BYTES = 4 * 1024 * 1024;

/** The attested text values a list cuts to TEXT_CHARS, by the catalogue's names (lib/proofs/properties.ts). */
export const TEXT_FIELDS = [
  "location",
  "memo",
  "srs",
  "location_type",
  "lp_version",
  "decode_error",
  "decode_warning",
] as const;
/** The structured values a list carries only up to JSON_BYTES. */
export const JSON_FIELDS = [
  "recipe_type",
  "recipe_payload",
  "media_type",
  "media_data",
  "application_fields",
] as const;
/** The stored geometry, carried only up to GEOMETRY_BYTES. */
export const GEOMETRY_FIELDS = ["geometry"] as const;

/** The marker a list writes in a record it cut (`truncated`), as JSON Schema (the API documents describe it so). */
export const TRUNCATED_SCHEMA = {
  type: "object",
  description:
    "Only in a list, on a record whose values were cut to the list's bounds (docs/security.md): which values, and the path of the whole record (GET, relative to the service's origin). Absent when nothing was cut.",
  required: ["fields", "href"],
  properties: {
    fields: { type: "array", items: { type: "string" }, minItems: 1 },
    href: { type: "string" },
  },
} as const;
