import { EXPORT_FORMATS, type ExportFormat } from "./formats.js";

type Link = { href: string; rel: string; type?: string; title?: string };

/**
 * The download links of a collection or of an items page: one `enclosure` link per format (RFC 4287's relation for
 * a related resource that may be large, which OGC API - Features Part 1 names for downloading a collection), typed
 * by its media type. `href` writes the URL of a format: on an items page it keeps the request's filters and drops
 * its paging (limit, offset, cursor), so the link is every match of the page's filter.
 */
export const downloadLinks = (href: (f: ExportFormat) => string): Link[] =>
  EXPORT_FORMATS.map((x) => ({
    href: href(x.f),
    rel: "enclosure",
    type: x.type.split(";")[0]!,
    title: `Every matching feature: ${x.title}`,
  }));
