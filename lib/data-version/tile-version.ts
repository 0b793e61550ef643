import * as v from "valibot";
import { requestDataVersion } from "./version.js";

/*
 * Version-keyed tile URLs (docs/deploy.md, "What the CDN keeps"). The TileJSON, the tilesets and the HTML map hand
 * out tile URLs that carry the data version they were made at (`v`). Such a URL names the tile as of that version or
 * later: a cache may keep its answer forever (IMMUTABLE), and a new version makes new URLs, so nothing needs purging.
 * The documents that hand the URLs out are short-lived (the shared lifetime of every unversioned answer), so a map
 * that re-reads its TileJSON sees the new version within one cron interval (lib/html/client/tile-map.ts).
 */

/** The tile's `v`: decimal digits, as the documents hand it out. */
export const TILE_VERSION_PARAMS = {
  v: v.optional(
    v.pipe(
      v.string(),
      v.regex(
        /^[1-9]\d{0,18}$/,
        "v (the data version a tile URL carries) must be the version the TileJSON or the tileset handed out: decimal digits",
      ),
    ),
  ),
};

/**
 * How often the HTML map re-reads its TileJSON: with the TileJSON's shared lifetime (15 s, then 15 s stale while a
 * cache revalidates: lib/http/route.ts) a new version reaches an open map within 60 s, one cron interval.
 */
export const MAP_REFRESH_SECONDS = 30;

export const IMMUTABLE_CACHE_CONTROL = "public, max-age=31536000, immutable";
export const IMMUTABLE_CDN_CACHE_CONTROL = "max-age=31536000";

/** The `v` a tile URL made now carries, or undefined outside a versioned request. */
export const tileVersion = (): string | undefined => requestDataVersion()?.version;

/**
 * The Cache-Control of a tile asked for at version `asked`: none of its own without one (the short shared lifetime);
 * forever when its data is that version or newer; never stored when the version is not yet the one this database
 * shows (a replica behind the one that made the URL, or a made-up number): that URL must later show that version.
 */
export function tileCacheControl(asked: string | undefined): string | undefined {
  const current = requestDataVersion()?.version;
  if (asked === undefined || current === undefined) return undefined;
  return BigInt(asked) <= BigInt(current) ? IMMUTABLE_CACHE_CONTROL : "no-store";
}
