import type { Format } from "../http/format.js";
import { absoluteUrl } from "../http/links.js";
import { mapLinks } from "../maps/links.js";
import { SERVICE_NAME } from "../version.js";
import { landingHtml } from "./html/views.js";
import { ogcResponse } from "./respond.js";
import { alternates, type Link, MEDIA, PATHS, REL, TILED_COLLECTIONS } from "./vocabulary.js";

/** GET /api/ogc: title, description and the links a client starts from (Part 1, 7.2). */
export function landingDocument(request: Request, format: Format) {
  const href = (path: string, params: Record<string, string> = {}) => absoluteUrl(request, path, params);
  const { selfType, otherType, otherF } = alternates(format, MEDIA.json);
  const links: Link[] = [
    {
      href: href(PATHS.landing, format === "html" ? { f: "html" } : {}),
      rel: REL.self,
      type: selfType,
      title: "This document",
    },
    { href: href(PATHS.landing, { f: otherF }), rel: REL.alternate, type: otherType, title: "This document" },
    {
      href: href(PATHS.api),
      rel: REL.serviceDesc,
      type: MEDIA.openapi,
      title: "The API definition (OpenAPI 3.0)",
    },
    {
      href: href(PATHS.api, { f: "html" }),
      rel: REL.serviceDoc,
      type: MEDIA.html,
      title: "The API documentation",
    },
    { href: href(PATHS.conformance), rel: REL.conformance, type: MEDIA.json, title: "Conformance classes" },
    { href: href(PATHS.collections), rel: REL.data, type: MEDIA.json, title: "The collections" },
    {
      href: href(PATHS.tileMatrixSets),
      rel: REL.tilingSchemes,
      type: MEDIA.json,
      title: "The tile matrix sets of the vector tiles",
    },
    ...TILED_COLLECTIONS.flatMap((id) => mapLinks(request, id)),
  ];
  return {
    title: `${SERVICE_NAME}: OGC API - Features and Tiles`,
    description:
      "Location proofs (EAS attestations indexed from EVM chains) as GeoJSON features, with CQL2 filtering, as vector tiles, and on an HTML map.",
    links,
  };
}

export const landingResource = (request: Request, format: Format) =>
  ogcResponse(format, landingDocument(request, format), landingHtml);
