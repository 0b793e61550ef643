/**
 * The coordinate reference systems served (OGC API - Features Part 2, CRS by reference). Storage stays CRS84: every
 * other system is an output transform at the edge of the writers and an input transform in the bbox and filter
 * parsers (lib/crs/transform.ts).
 *
 * The PROJ strings are those of the npm package `proj4-list` (its entries, byte for byte:
 * tests/crs/definitions.test.ts compares them), copied here so that a function bundles eight definitions instead of
 * the package's whole list. Why that package: its strings carry the datum shifts PROJ itself uses when no grid file is
 * installed; `epsg-index` writes Amersfoort's rotations in microradians where PROJ reads arc-seconds (170 m off in the
 * Netherlands) and British National Grid with a grid file proj4js cannot load; `@esri/proj-codes` has WKT without
 * TOWGS84 (Esri keeps transformations apart).
 *
 * `axes` is the order EPSG gives the coordinate system's axes, which Part 2 asks coordinates to follow: latitude
 * first for EPSG:4326, northing first for EPSG:3035. `accuracy` is that of the datum shift (EPSG's figure for the
 * transformation PROJ applies without grids); null where there is none.
 */

export type Axes = "east-north" | "north-east";

export type CrsSystem = {
  /** the URI Part 2 names it by */
  readonly uri: string;
  /** EPSG:nnnn, or OGC:CRS84 */
  readonly code: string;
  readonly title: string;
  readonly proj4: string;
  readonly axes: Axes;
  /** degrees or metres: how many decimals a coordinate keeps */
  readonly unit: "degree" | "metre";
  /** metres; null: no datum shift (the same datum as WGS 84, or one PROJ treats as equal) */
  readonly accuracy: number | null;
  /** the datum shift, in words */
  readonly datumShift: string;
  /** [west, south, east, north] in degrees: EPSG's area of use */
  readonly areaOfUse: readonly [number, number, number, number];
};

export const CRS84_URI = "http://www.opengis.net/def/crs/OGC/1.3/CRS84";
const epsg = (code: number) => `http://www.opengis.net/def/crs/EPSG/0/${code}`;

const WGS84 = "+proj=longlat +datum=WGS84 +no_defs ";
const ETRS89 =
  "none: ETRS89 is taken as WGS 84, as PROJ does (EPSG:1149, ETRS89 to WGS 84 (1), accuracy 1 m)";

export const CRS_SYSTEMS: readonly CrsSystem[] = [
  {
    uri: CRS84_URI,
    code: "OGC:CRS84",
    title: "WGS 84 longitude/latitude (GeoJSON's order; the storage CRS)",
    proj4: WGS84,
    axes: "east-north",
    unit: "degree",
    accuracy: null,
    datumShift: "none",
    areaOfUse: [-180, -90, 180, 90],
  },
  {
    uri: epsg(4326),
    code: "EPSG:4326",
    title: "WGS 84 latitude/longitude (EPSG's axis order: latitude first)",
    proj4: WGS84,
    axes: "north-east",
    unit: "degree",
    accuracy: null,
    datumShift: "none",
    areaOfUse: [-180, -90, 180, 90],
  },
  {
    uri: epsg(3857),
    code: "EPSG:3857",
    title: "WGS 84 / Pseudo-Mercator (web maps)",
    proj4:
      "+proj=merc +a=6378137 +b=6378137 +lat_ts=0.0 +lon_0=0.0 +x_0=0.0 +y_0=0 +k=1.0 +units=m +nadgrids=@null +wktext  +no_defs",
    axes: "east-north",
    unit: "metre",
    accuracy: null,
    datumShift: "none",
    areaOfUse: [-180, -85.06, 180, 85.06],
  },
  {
    uri: epsg(27700),
    code: "EPSG:27700",
    title: "OSGB36 / British National Grid",
    proj4:
      "+proj=tmerc +lat_0=49 +lon_0=-2 +k=0.9996012717 +x_0=400000 +y_0=-100000 +datum=OSGB36 +units=m +no_defs ",
    axes: "east-north",
    unit: "metre",
    accuracy: 2,
    datumShift: "Helmert, EPSG:1314 (OSGB36 to WGS 84 (6)), accuracy 2 m; OSTN15 (a grid) is not used",
    areaOfUse: [-9.01, 49.75, 2.01, 61.01],
  },
  {
    uri: epsg(28992),
    code: "EPSG:28992",
    title: "Amersfoort / RD New (Netherlands)",
    proj4:
      "+proj=sterea +lat_0=52.15616055555555 +lon_0=5.38763888888889 +k=0.9999079 +x_0=155000 +y_0=463000 +ellps=bessel +towgs84=565.4171,50.3319,465.5524,-0.398957,0.343988,-1.87740,4.0725 +units=m +no_defs ",
    axes: "east-north",
    unit: "metre",
    accuracy: 1,
    datumShift:
      "Helmert, EPSG:4833 (Amersfoort to WGS 84 (4)), accuracy 1 m; RDNAPTRANS (a grid) is not used",
    areaOfUse: [3.2, 50.75, 7.22, 53.7],
  },
  {
    uri: epsg(2056),
    code: "EPSG:2056",
    title: "CH1903+ / LV95 (Switzerland)",
    proj4:
      "+proj=somerc +lat_0=46.95240555555556 +lon_0=7.439583333333333 +k_0=1 +x_0=2600000 +y_0=1200000 +ellps=bessel +towgs84=674.374,15.056,405.346,0,0,0,0 +units=m +no_defs ",
    axes: "east-north",
    unit: "metre",
    accuracy: 1,
    datumShift:
      "geocentric translation, EPSG:1676 (CH1903+ to WGS 84 (1)), accuracy 1 m; CHENYX06 (a grid) is not used",
    areaOfUse: [5.96, 45.82, 10.49, 47.81],
  },
  {
    uri: epsg(25832),
    code: "EPSG:25832",
    title: "ETRS89 / UTM zone 32N",
    proj4: "+proj=utm +zone=32 +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs ",
    axes: "east-north",
    unit: "metre",
    accuracy: null,
    datumShift: ETRS89,
    areaOfUse: [6, 38.76, 12.01, 84.33],
  },
  {
    uri: epsg(25833),
    code: "EPSG:25833",
    title: "ETRS89 / UTM zone 33N",
    proj4: "+proj=utm +zone=33 +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs ",
    axes: "east-north",
    unit: "metre",
    accuracy: null,
    datumShift: ETRS89,
    areaOfUse: [12, 46.4, 18.01, 84.42],
  },
  {
    uri: epsg(3035),
    code: "EPSG:3035",
    title: "ETRS89-extended / LAEA Europe (northing first, as EPSG orders its axes)",
    proj4:
      "+proj=laea +lat_0=52 +lon_0=10 +x_0=4321000 +y_0=3210000 +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs ",
    axes: "north-east",
    unit: "metre",
    accuracy: null,
    datumShift: ETRS89,
    areaOfUse: [-35.58, 24.6, 44.83, 84.73],
  },
];

export const CRS_URIS = CRS_SYSTEMS.map((s) => s.uri);
const BY_URI = new Map(CRS_SYSTEMS.map((s) => [s.uri, s]));
const BY_CODE = new Map(CRS_SYSTEMS.map((s) => [s.code.toUpperCase(), s]));

/**
 * The system a `crs`, `bbox-crs` or `filter-crs` value names: its URI (also in angle brackets, as Part 2's examples
 * write it), the http URI with https, or a safe CURIE such as `[EPSG:27700]` / `[OGC:CRS84]`. Undefined when none.
 */
export function crsByName(value: string): CrsSystem | undefined {
  const s = value.trim();
  const bare = s.startsWith("<") && s.endsWith(">") ? s.slice(1, -1) : s;
  const uri = bare.replace(/^https:\/\//, "http://");
  const byUri = BY_URI.get(uri) ?? BY_URI.get(uri.replace("/OGC/0/CRS84", "/OGC/1.3/CRS84"));
  if (byUri) return byUri;
  const curie = bare.startsWith("[") && bare.endsWith("]") ? bare.slice(1, -1) : undefined;
  return curie === undefined ? undefined : BY_CODE.get(curie.toUpperCase());
}

export const CRS84_SYSTEM = BY_URI.get(CRS84_URI)!;
