import type { Format } from "../http/format.js";
import { conformanceHtml } from "./html/views.js";
import { hrefFor, ogcResponse } from "./respond.js";

/**
 * The conformance classes this service implements fully, and no others (never an invented URI). Part 3
 * (Filtering) and CQL2 classes are declared only where every requirement holds on both collections (lib/ogc/cql2/,
 * tested against an independent evaluator, the standard's examples and its schema): both encodings, basic CQL2,
 * advanced comparison, case- and accent-insensitive comparison, temporal and array functions, property-property,
 * arithmetic, and the spatial functions (basic, plus, and all of them: exact on every geometry of both collections
 * through PostGIS, lib/ogc/cql2/spatial.ts), each also checked against the standard's test annex
 * (tests/ogc/cql2-annex.test.ts). Not declared: `functions` (no custom functions are served). Queryables as query
 * parameters: every queryable with a simple value is a parameter of both collections' items and tiles
 * (lib/params/queryable-params.ts).
 *
 * OGC API - Features - Part 2 (lib/crs/): `crs` on items and single items, `bbox-crs`, Content-Crs, each collection's
 * `crs` list and `storageCrs`. Part 5 (lib/ogc/schema.ts): the schema of each collection's features with the roles
 * id, primary-geometry and primary-instant, and the sortables. JSON-FG 1.0 core (lib/jsonfg/): items and single
 * items with f=jsonfg. Not declared: JSON-FG's "JSON-FG in Web APIs" (it depends on Part 5's profile parameter
 * class, which is not implemented, although `profile=` is taken), Part 5's returnables and receivables.
 *
 * OGC API - Tiles - Part 1 (lib/tiles/): tiles with a URL template (core), tileset metadata and the tilesets list of
 * a collection (tileset, tilesets-list, geodata-tilesets), Mapbox Vector Tiles (mvt), and their OpenAPI paths with
 * the operationId suffixes the standard gives (oas30). Not declared: the datetime class (it also asks for
 * `subset=datetime(…)`, which is not served; `datetime=` is), dataset tilesets, collections selection, map and
 * coverage tiles, and any other encoding.
 */
export const CONFORMANCE_CLASSES = [
  "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
  "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
  "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/html",
  "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30",
  "http://www.opengis.net/spec/ogcapi-features-2/1.0/conf/crs",
  "http://www.opengis.net/spec/ogcapi-features-5/1.0/conf/schemas",
  "http://www.opengis.net/spec/ogcapi-features-5/1.0/conf/core-roles-features",
  "http://www.opengis.net/spec/ogcapi-features-5/1.0/conf/sortables",
  "http://www.opengis.net/spec/json-fg-1/1.0/conf/core",
  "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables",
  "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables-query-parameters",
  "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/filter",
  "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/features-filter",
  "http://www.opengis.net/spec/cql2/1.0/conf/cql2-text",
  "http://www.opengis.net/spec/cql2/1.0/conf/basic-cql2",
  "http://www.opengis.net/spec/cql2/1.0/conf/advanced-comparison-operators",
  "http://www.opengis.net/spec/cql2/1.0/conf/cql2-json",
  "http://www.opengis.net/spec/cql2/1.0/conf/case-insensitive-comparison",
  "http://www.opengis.net/spec/cql2/1.0/conf/accent-insensitive-comparison",
  "http://www.opengis.net/spec/cql2/1.0/conf/temporal-functions",
  "http://www.opengis.net/spec/cql2/1.0/conf/array-functions",
  "http://www.opengis.net/spec/cql2/1.0/conf/property-property",
  "http://www.opengis.net/spec/cql2/1.0/conf/arithmetic",
  "http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions",
  "http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions-plus",
  "http://www.opengis.net/spec/cql2/1.0/conf/spatial-functions",
  "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/core",
  "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/tileset",
  "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/tilesets-list",
  "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/geodata-tilesets",
  "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/mvt",
  "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/oas30",
] as const;

export const conformanceDocument = () => ({ conformsTo: [...CONFORMANCE_CLASSES] });

export const conformanceResource = (request: Request, format: Format) =>
  ogcResponse(format, conformanceDocument(), (doc) => conformanceHtml(doc, hrefFor(request)));
