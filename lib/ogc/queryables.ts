import type { AnyColumn } from "drizzle-orm";
import { locationProofs as p } from "../../db/schema.js";
import type { Format } from "./format.js";
import { queryablesHtml } from "./html/views.js";
import { hrefFor, ogcResponse } from "./respond.js";
import type { Link } from "./vocabulary.js";
import { CRS84, MEDIA, PATHS, REL } from "./vocabulary.js";

export type QueryableType = "string" | "address" | "integer" | "number" | "boolean" | "timestamp";

export type Queryable = {
  column: AnyColumn;
  type: QueryableType;
  title: string;
};

/**
 * The properties a CQL2 filter may name, and the column each one is. One list feeds the filter compiler, the
 * /queryables document and the OpenAPI document, so what is advertised is exactly what works. Addresses and uids
 * are stored lowercase; string literals compared with them are lowercased first.
 */
export const QUERYABLES: Record<string, Queryable> = {
  uid: { column: p.uid, type: "address", title: "Attestation uid (the feature id)" },
  chain: { column: p.chain, type: "string", title: "Blockchain network name" },
  chain_id: { column: p.chainId, type: "integer", title: "EVM chain id" },
  prover: { column: p.prover, type: "address", title: "Address of the proof creator (attester)" },
  subject: { column: p.subject, type: "address", title: "Address the proof is about (recipient)" },
  event_timestamp: { column: p.eventTimestamp, type: "timestamp", title: "When the located event happened" },
  attestation_time: { column: p.attestationTime, type: "timestamp", title: "When the attestation was made" },
  location_type: { column: p.locationType, type: "string", title: "Encoding of the location" },
  srs: { column: p.srs, type: "string", title: "Spatial reference system of the location" },
  revoked: { column: p.revoked, type: "boolean", title: "Whether the attestation has been revoked" },
  block_number: { column: p.blockNumber, type: "integer", title: "Block of the attestation" },
  longitude: { column: p.longitude, type: "number", title: "Longitude of the representative point" },
  latitude: { column: p.latitude, type: "number", title: "Latitude of the representative point" },
  memo: { column: p.memo, type: "string", title: "Free-text memo" },
};

/** The one spatial queryable: the feature geometry. */
export const GEOMETRY_QUERYABLE = "geometry";

const JSON_SCHEMA_TYPE: Record<QueryableType, Record<string, unknown>> = {
  string: { type: "string" },
  address: { type: "string", pattern: "^0x[0-9a-f]+$" },
  integer: { type: "integer" },
  number: { type: "number" },
  boolean: { type: "boolean" },
  timestamp: { type: "string", format: "date-time" },
};

/** GET /collections/location-proofs/queryables: a JSON Schema (2020-12) of what `filter` may name (Part 3). */
export function queryablesDocument(href: (path: string) => string) {
  const properties: Record<string, unknown> = {
    [GEOMETRY_QUERYABLE]: {
      title: "Location of the proof (CRS84)",
      format: "geometry-any",
      "x-ogc-role": "primary-geometry",
    },
  };
  for (const [name, q] of Object.entries(QUERYABLES)) {
    properties[name] = { title: q.title, ...JSON_SCHEMA_TYPE[q.type] };
  }
  properties.event_timestamp = { ...(properties.event_timestamp as object), "x-ogc-role": "primary-instant" };
  const links: Link[] = [
    { href: href(PATHS.queryables), rel: REL.self, type: MEDIA.schema, title: "These queryables" },
    { href: href(PATHS.collection), rel: REL.collection, type: MEDIA.json, title: "The collection" },
  ];
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: href(PATHS.queryables),
    type: "object",
    title: "Queryables of location-proofs",
    description: `Properties usable in a CQL2 filter (filter-lang=cql2-text). Geometries are in ${CRS84}.`,
    properties,
    additionalProperties: false,
    links,
  };
}

export const queryablesResource = (request: Request, format: Format) =>
  ogcResponse(
    format,
    queryablesDocument(hrefFor(request)),
    (doc) => queryablesHtml(doc as Parameters<typeof queryablesHtml>[0], hrefFor(request)),
    MEDIA.schema,
  );
