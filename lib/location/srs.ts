/**
 * Coordinate reference systems we read as longitude/latitude degrees on WGS 84. EPSG:4326 formally orders latitude
 * first, but location-proof writers use it for lon/lat (GeoJSON order), as location-encodings.md prescribes.
 * An empty or missing srs means the schema's default (WGS 84 lon/lat): most writers leave it blank for GeoJSON.
 */
const LON_LAT = new Set([
  "",
  "epsg:4326",
  "epsg::4326",
  "wgs84",
  "wgs 84",
  "wgs-84",
  "crs84",
  "ogc:crs84",
  "urn:ogc:def:crs:ogc:1.3:crs84",
  "urn:ogc:def:crs:ogc::crs84",
  "urn:ogc:def:crs:epsg::4326",
  "http://www.opengis.net/def/crs/ogc/1.3/crs84",
  "https://www.opengis.net/def/crs/ogc/1.3/crs84",
  "http://www.opengis.net/def/crs/epsg/0/4326",
  "https://www.opengis.net/def/crs/epsg/0/4326",
]);

export function isLonLatSrs(srs: string | null | undefined): boolean {
  return LON_LAT.has((srs ?? "").trim().toLowerCase());
}
