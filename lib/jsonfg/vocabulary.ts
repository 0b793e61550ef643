/**
 * The words of JSON-FG 1.0 (OGC Features and Geometries JSON, approved 2026; repository
 * opengeospatial/ogc-feat-geo-json). Its media type is GeoJSON's own, `application/geo+json`: a JSON-FG document is
 * told apart by its `conformsTo` member and by a `profile` link (in the Link header); the earlier drafts' media
 * types `application/vnd.ogc.fg+json` and `application/fg+json` are still accepted in Accept, as the standard allows.
 */

export const JSONFG_CORE = "http://www.opengis.net/spec/json-fg-1/1.0/conf/core";
/** The class of `profile=` on the GeoJSON resources (JSON-FG in Web APIs). */
export const JSONFG_API = "http://www.opengis.net/spec/json-fg-1/1.0/conf/api";

/** The GeoJSON profiles (JSON-FG, GeoJSON Profiles): the profile parameter's values name them. */
export const PROFILES = {
  rfc7946: "http://www.opengis.net/def/profile/OGC/0/rfc7946",
  jsonfg: "http://www.opengis.net/def/profile/OGC/0/jsonfg",
  "jsonfg-plus": "http://www.opengis.net/def/profile/OGC/0/jsonfg-plus",
} as const;
export type ProfileName = keyof typeof PROFILES;
export const PROFILE_NAMES = Object.keys(PROFILES) as ProfileName[];

/** The earlier drafts' media types, still recognised in Accept. */
export const LEGACY_MEDIA = ["application/vnd.ogc.fg+json", "application/fg+json"] as const;

/** What every feature of both collections is: one location proof (the shapes collection only draws it otherwise). */
export { FEATURE_TYPE } from "../proofs/json-sql.js";

/** The Link header value naming a profile (RFC 6906). */
export const profileLink = (name: ProfileName) => `<${PROFILES[name]}>; rel="profile"`;
