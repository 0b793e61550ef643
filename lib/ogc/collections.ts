import { sql } from "drizzle-orm";
import { type Db, getDb, queryRows } from "../../db/client.js";
import { absoluteUrl } from "../http/links.js";
import type { Format } from "./format.js";
import { alternates, COLLECTION_ID, CRS84, GREGORIAN, type Link, MEDIA, PATHS, REL } from "./vocabulary.js";

export type Extent = {
  spatial: { bbox: [number, number, number, number][]; crs: string };
  temporal: { interval: [string | null, string | null][]; trs: string };
};

/**
 * The extent computed from the data (never a static box): min/max of the stored bounds, each one an index lookup
 * on its btree (db/schema.ts), and the first/last event time from the order index. An empty collection has the
 * whole world and an open interval.
 */
export async function computeExtent(db: Db): Promise<Extent> {
  const [row] = await queryRows<Record<string, unknown>>(
    db,
    sql`select
      (select min(min_lon) from location_proofs) as min_lon,
      (select min(min_lat) from location_proofs) as min_lat,
      (select max(max_lon) from location_proofs) as max_lon,
      (select max(max_lat) from location_proofs) as max_lat,
      (select min(event_timestamp) from location_proofs) as first_event,
      (select max(event_timestamp) from location_proofs) as last_event`,
  );
  const num = (x: unknown) => (x === null || x === undefined ? undefined : Number(x));
  const when = (x: unknown) => (x === null || x === undefined ? null : new Date(x as string).toISOString());
  const b = [num(row?.min_lon), num(row?.min_lat), num(row?.max_lon), num(row?.max_lat)];
  const bbox: [number, number, number, number] = b.every((x) => x !== undefined)
    ? (b as [number, number, number, number])
    : [-180, -90, 180, 90];
  return {
    spatial: { bbox: [bbox], crs: CRS84 },
    temporal: { interval: [[when(row?.first_event), when(row?.last_event)]], trs: GREGORIAN },
  };
}

const DESCRIPTION =
  "Location proofs: EAS attestations of the location-proof schema, indexed from EVM chains. One feature per " +
  "attestation (id = attestation uid), revoked ones included (property revoked).";

function collectionDocument(request: Request, extent: Extent, format: Format, self: boolean) {
  const href = (path: string, params: Record<string, string> = {}) => absoluteUrl(request, path, params);
  const { selfType, otherType, otherF } = alternates(format, MEDIA.json);
  const links: Link[] = [
    ...(self
      ? [
          {
            href: href(PATHS.collection, format === "html" ? { f: "html" } : {}),
            rel: REL.self,
            type: selfType,
            title: "This collection",
          },
          {
            href: href(PATHS.collection, { f: otherF }),
            rel: REL.alternate,
            type: otherType,
            title: "This collection",
          },
        ]
      : [{ href: href(PATHS.collection), rel: REL.self, type: MEDIA.json, title: "The collection" }]),
    { href: href(PATHS.items), rel: REL.items, type: MEDIA.geojson, title: "Features (GeoJSON)" },
    {
      href: href(PATHS.items, { f: "html" }),
      rel: REL.items,
      type: MEDIA.html,
      title: "Features (HTML map)",
    },
    { href: href(PATHS.queryables), rel: REL.queryables, type: MEDIA.schema, title: "Queryables" },
  ];
  return {
    id: COLLECTION_ID,
    title: "Location proofs",
    description: DESCRIPTION,
    itemType: "feature",
    crs: [CRS84],
    storageCrs: CRS84,
    extent,
    links,
  };
}

/** GET /collections/location-proofs */
export async function getCollection(request: Request, format: Format) {
  return collectionDocument(request, await computeExtent(await getDb()), format, true);
}

/** GET /collections: the one collection, with the same metadata as its own page. */
export async function getCollections(request: Request, format: Format) {
  const extent = await computeExtent(await getDb());
  const { selfType, otherType, otherF } = alternates(format, MEDIA.json);
  const href = (params: Record<string, string> = {}) => absoluteUrl(request, PATHS.collections, params);
  return {
    links: [
      {
        href: href(format === "html" ? { f: "html" } : {}),
        rel: REL.self,
        type: selfType,
        title: "The collections",
      },
      { href: href({ f: otherF }), rel: REL.alternate, type: otherType, title: "The collections" },
    ] satisfies Link[],
    collections: [collectionDocument(request, extent, format, false)],
  };
}
