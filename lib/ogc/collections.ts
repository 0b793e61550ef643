import { sql } from "drizzle-orm";
import { type Db, getDb, queryRows } from "../../db/client.js";
import { locationProofs as p } from "../../db/schema.js";
import { CRS_URIS } from "../crs/systems.js";
import { downloadLinks } from "../exports/links.js";
import type { Format } from "../http/format.js";
import { absoluteUrl } from "../http/links.js";
import { mapLinks } from "../maps/links.js";
import {
  alternates,
  COLLECTIONS,
  type Collection,
  CRS84,
  GREGORIAN,
  type Link,
  MEDIA,
  PATHS,
  REL,
  TILED_COLLECTIONS,
} from "./vocabulary.js";

const isTiled = (id: string) => (TILED_COLLECTIONS as readonly string[]).includes(id);

export type Extent = {
  spatial: { bbox: [number, number, number, number][]; crs: string };
  temporal: { interval: [string | null, string | null][]; trs: string };
};

/**
 * The extent computed from the data (never a static box): min/max of the stored bounds, each one an index lookup
 * on its btree (db/schema.ts), and the first/last event time from the order index. Bounds crossing the antimeridian
 * (west > east) reach ±180 on both sides, so when any exists the longitudes span [-180, 180] (their partial index
 * answers whether one does). An empty collection has the whole world and an open interval.
 */
export async function computeExtent(db: Db): Promise<Extent> {
  const [row] = await queryRows<Record<string, unknown>>(
    db,
    sql`select
      (select min(min_lon) from location_proofs) as min_lon,
      (select min(min_lat) from location_proofs) as min_lat,
      (select max(max_lon) from location_proofs) as max_lon,
      (select max(max_lat) from location_proofs) as max_lat,
      exists (select 1 from ${p} where ${p.minLon} > ${p.maxLon}) as crossing,
      (select min(event_timestamp) from location_proofs) as first_event,
      (select max(event_timestamp) from location_proofs) as last_event`,
  );
  const num = (x: unknown) => (x === null || x === undefined ? undefined : Number(x));
  const when = (x: unknown) => (x === null || x === undefined ? null : new Date(x as string).toISOString());
  const b = [num(row?.min_lon), num(row?.min_lat), num(row?.max_lon), num(row?.max_lat)];
  if (row?.crossing === true || row?.crossing === "t") [b[0], b[2]] = [-180, 180];
  const bbox: [number, number, number, number] = b.every((x) => x !== undefined)
    ? (b as [number, number, number, number])
    : [-180, -90, 180, 90];
  return {
    spatial: { bbox: [bbox], crs: CRS84 },
    temporal: { interval: [[when(row?.first_event), when(row?.last_event)]], trs: GREGORIAN },
  };
}

function collectionDocument(
  request: Request,
  collection: Collection,
  extent: Extent,
  format: Format,
  self: boolean,
) {
  const path = PATHS.collection(collection.id);
  const items = PATHS.items(collection.id);
  const href = (path: string, params: Record<string, string> = {}) => absoluteUrl(request, path, params);
  const { selfType, otherType, otherF } = alternates(format, MEDIA.json);
  const links: Link[] = [
    ...(self
      ? [
          {
            href: href(path, format === "html" ? { f: "html" } : {}),
            rel: REL.self,
            type: selfType,
            title: "This collection",
          },
          {
            href: href(path, { f: otherF }),
            rel: REL.alternate,
            type: otherType,
            title: "This collection",
          },
        ]
      : [{ href: href(path), rel: REL.self, type: MEDIA.json, title: "The collection" }]),
    { href: href(items), rel: REL.items, type: MEDIA.geojson, title: "Features (GeoJSON)" },
    {
      href: href(items, { f: "html" }),
      rel: REL.items,
      type: MEDIA.html,
      title: "Features (HTML map)",
    },
    // The whole collection as a download, one link per format (lib/exports/).
    ...downloadLinks((f) => href(items, { f })),
    {
      href: href(PATHS.queryables(collection.id)),
      rel: REL.queryables,
      type: MEDIA.schema,
      title: "Queryables",
    },
    {
      href: href(PATHS.schema(collection.id)),
      rel: REL.schema,
      type: MEDIA.schema,
      title: "Schema of the features",
    },
    {
      href: href(PATHS.sortables(collection.id)),
      rel: REL.sortables,
      type: MEDIA.schema,
      title: "Sortables",
    },
    ...(isTiled(collection.id)
      ? [
          {
            href: href(PATHS.tilesets(collection.id)),
            rel: REL.tilesetsVector,
            type: MEDIA.json,
            title: "Vector tiles",
          },
          ...mapLinks(request, collection.id),
        ]
      : []),
  ];
  return {
    id: collection.id,
    title: collection.title,
    description: collection.description,
    itemType: "feature",
    crs: CRS_URIS,
    storageCrs: CRS84,
    extent,
    links,
  };
}

/** GET /collections/{id} */
export async function getCollection(request: Request, format: Format, collection: Collection) {
  return collectionDocument(request, collection, await computeExtent(await getDb()), format, true);
}

/** GET /collections: both collections, each with the same metadata as its own page. */
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
    collections: Object.values(COLLECTIONS).map((c) => collectionDocument(request, c, extent, format, false)),
  };
}
