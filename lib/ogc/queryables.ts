import type { Format } from "../http/format.js";
import { QUERYABLE_PROPERTIES, valueSchema } from "../proofs/properties.js";
import { queryablesHtml } from "./html/views.js";
import { hrefFor, ogcResponse } from "./respond.js";
import { collectionJsonSchema } from "./schema.js";
import type { Collection } from "./vocabulary.js";
import { CRS84, GEOMETRY_QUERYABLE, MEDIA, PATHS } from "./vocabulary.js";

/**
 * GET /collections/{id}/queryables: a JSON Schema (2020-12) of what `filter` may name (Part 3), from the queryable
 * properties of the catalogue (lib/proofs/properties.ts), the list the CQL2 compiler reads too, so what is
 * advertised is exactly what works. Both collections have the same queryables; `geometry` is each one's geometry.
 */
export function queryablesDocument(href: (path: string) => string, collection: Collection) {
  const properties: Record<string, unknown> = {
    [GEOMETRY_QUERYABLE]: {
      title:
        collection.geometry === "point"
          ? "Representative point of the proof (CRS84)"
          : "Decoded geometry of the proof (CRS84)",
      format: collection.geometry === "point" ? "geometry-point" : "geometry-any",
      "x-ogc-role": "primary-geometry",
    },
  };
  for (const q of QUERYABLE_PROPERTIES) {
    properties[q.name] = {
      title: q.description,
      ...valueSchema(q),
      ...(q.name === "event_timestamp" ? { "x-ogc-role": "primary-instant" } : {}),
    };
  }
  return collectionJsonSchema(href, collection, PATHS.queryables(collection.id), "These queryables", {
    title: `Queryables of ${collection.id}`,
    description: `Properties usable in a CQL2 filter (filter-lang=cql2-text or cql2-json). Geometries are in ${CRS84}.`,
    properties,
  });
}

export const queryablesResource = (request: Request, format: Format, collection: Collection) =>
  ogcResponse(
    format,
    queryablesDocument(hrefFor(request), collection),
    (doc) => queryablesHtml(doc as Parameters<typeof queryablesHtml>[0], hrefFor(request), collection),
    MEDIA.schema,
  );
