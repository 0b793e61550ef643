import { TRUNCATED_SCHEMA } from "../bounds/limits.js";
import { CHAIN_NAMES } from "../chains/registry.js";
import type { Format } from "../http/format.js";
import { LOCATION_TYPES } from "../location/vocabulary.js";
import {
  jsonSchemaOf,
  OGC_PROPERTIES,
  type ProofProperty,
  SORTABLE_PROPERTIES,
} from "../proofs/properties.js";
import { queryablesHtml } from "./html/views.js";
import { hrefFor, ogcResponse } from "./respond.js";
import { type Collection, GEOMETRY_QUERYABLE, type Link, MEDIA, PATHS, REL } from "./vocabulary.js";

/**
 * OGC API - Features Part 5 (Schemas): the schema of a collection's features and its sortables, as JSON Schema
 * 2020-12, made from the property catalogue (lib/proofs/properties.ts), the list every writer reads, so the schema
 * describes exactly what a feature carries. A feature is described as Part 5 does it: its id, its geometry and its
 * properties side by side, with their roles (`x-ogc-role`): `id` (the uid), `primary-geometry`, `primary-instant`
 * (the event time). Values known in advance are enums: the chains the service indexes, the normalised location types.
 */

const ENUMS: Record<string, readonly string[]> = {
  chain: CHAIN_NAMES,
  location_type_normalized: LOCATION_TYPES,
};

/** A property's schema in the feature schema: its catalogue schema, its enum, and its role. */
function propertySchema(q: ProofProperty): Record<string, unknown> {
  const { example: _, ...schema } = jsonSchemaOf(q, "2020-12");
  const values = ENUMS[q.name];
  return {
    title: q.name,
    ...schema,
    ...(values ? { enum: q.nullable ? [...values, null] : [...values] } : {}),
    ...(q.name === "event_timestamp" ? { "x-ogc-role": "primary-instant" } : {}),
    readOnly: true,
  };
}

/** The geometry of a collection's features (a representative point, or any shape), CRS84 unless crs says otherwise. */
const geometrySchema = (collection: Collection) => ({
  title:
    collection.geometry === "point" ? "Representative point of the proof" : "Decoded geometry of the proof",
  format: collection.geometry === "point" ? "geometry-point" : "geometry-any",
  "x-ogc-role": "primary-geometry",
  readOnly: true,
});

/**
 * A JSON Schema document about a collection (its schema, queryables, sortables), linked to itself and to the
 * collection. `body` is the title, the description, what is required if anything, and the properties, in that order.
 */
export function collectionJsonSchema<B extends { title: string; description: string; properties: unknown }>(
  href: (path: string) => string,
  collection: Collection,
  self: string,
  selfTitle: string,
  body: B,
) {
  const links: Link[] = [
    { href: href(self), rel: REL.self, type: MEDIA.schema, title: selfTitle },
    {
      href: href(PATHS.collection(collection.id)),
      rel: REL.collection,
      type: MEDIA.json,
      title: "The collection",
    },
  ];
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: href(self),
    type: "object",
    ...body,
    additionalProperties: false,
    links,
  };
}

/**
 * The body of a collection's schema: everything but its links, which follow the request's origin. It is a function
 * of the catalogue and the collection alone, so it is made once per collection rather than on every request.
 */
const schemaBodies = new Map<string, ReturnType<typeof schemaBody>>();

function schemaBody(collection: Collection) {
  const properties: Record<string, unknown> = {
    uid: {
      title: "uid",
      description: "Attestation uid: the feature id",
      type: "string",
      pattern: "^0x[0-9a-f]{64}$",
      "x-ogc-role": "id",
      readOnly: true,
    },
    [GEOMETRY_QUERYABLE]: geometrySchema(collection),
  };
  for (const q of OGC_PROPERTIES) if (q.name !== "uid") properties[q.name] = propertySchema(q);
  properties.distance = {
    title: "distance",
    description: "Metres from near (a proximity query only: near and radius); absent otherwise",
    type: "number",
    minimum: 0,
    readOnly: true,
  };
  properties.truncated = { title: "truncated", ...TRUNCATED_SCHEMA, readOnly: true };
  return {
    title: `Schema of ${collection.id}`,
    description: `The features of ${collection.id}: the uid (the feature id), the geometry and every property, with their roles (OGC API - Features Part 5).`,
    required: [
      "uid",
      GEOMETRY_QUERYABLE,
      ...OGC_PROPERTIES.filter((q) => q.name !== "uid").map((q) => q.name),
    ],
    properties,
  };
}

/** GET /collections/{id}/schema */
export function schemaDocument(href: (path: string) => string, collection: Collection) {
  let body = schemaBodies.get(collection.id);
  if (!body) {
    body = schemaBody(collection);
    schemaBodies.set(collection.id, body);
  }
  return collectionJsonSchema(href, collection, PATHS.schema(collection.id), "This schema", body);
}

/** GET /collections/{id}/sortables: what sortby may name (lib/ogc/sortby.ts reads the same list). */
export function sortablesDocument(href: (path: string) => string, collection: Collection) {
  const properties: Record<string, unknown> = {};
  for (const q of SORTABLE_PROPERTIES) {
    const { example: _, description, ...schema } = jsonSchemaOf(q, "2020-12");
    properties[q.name] = { title: description, ...schema };
  }
  properties.distance = {
    title: "Metres from near: nearest first (sortby=distance alone, with near and radius)",
    type: "number",
  };
  return collectionJsonSchema(href, collection, PATHS.sortables(collection.id), "These sortables", {
    title: `Sortables of ${collection.id}`,
    description:
      "Properties usable in sortby ('-' for descending); ties are broken by uid, then the chain id.",
    properties,
  });
}

type Table = Parameters<typeof queryablesHtml>[0];

const documentResource =
  (
    build: (href: (path: string) => string, collection: Collection) => unknown,
    title: "Schema" | "Sortables",
  ) =>
  (request: Request, format: Format, collection: Collection) =>
    ogcResponse(
      format,
      build(hrefFor(request), collection),
      (doc) => queryablesHtml(doc as Table, hrefFor(request), collection, title),
      MEDIA.schema,
    );

export const schemaResource = documentResource(schemaDocument, "Schema");

export const sortablesResource = documentResource(sortablesDocument, "Sortables");
