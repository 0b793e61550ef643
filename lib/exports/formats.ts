/**
 * The download formats: every matching proof in one streamed response (docs/downloads.md). The one catalogue of
 * them: `f` values, media types (Accept, the links' `type`, the OpenAPI documents), file extensions and titles.
 * This module holds no writer, so a route or a document can name the formats without loading an encoder.
 */
export type ExportFormat = "csv" | "geojsonseq" | "fgb" | "parquet";

export type ExportFormatInfo = {
  readonly f: ExportFormat;
  /** the media type answered and linked (its parameters included) */
  readonly type: string;
  /** the media types Accept may name it by (lowercase, without parameters) */
  readonly accepts: readonly string[];
  readonly extension: string;
  readonly title: string;
};

export const EXPORT_FORMATS: readonly ExportFormatInfo[] = [
  {
    f: "csv",
    // RFC 4180's type; `header=present` (RFC 4180 §3) says the first record names the columns.
    type: "text/csv; charset=utf-8; header=present",
    accepts: ["text/csv"],
    extension: "csv",
    title: "CSV (RFC 4180): WKT geometry, longitude and latitude columns",
  },
  {
    f: "geojsonseq",
    // RFC 8142's registered type.
    type: "application/geo+json-seq",
    accepts: ["application/geo+json-seq", "application/json-seq"],
    extension: "geojsons",
    title: "GeoJSON Text Sequence (RFC 8142)",
  },
  {
    f: "fgb",
    // Not registered with IANA; the type FlatGeobuf's own documentation, GDAL and ldproxy use.
    type: "application/flatgeobuf",
    accepts: ["application/flatgeobuf", "application/x-flatgeobuf"],
    extension: "fgb",
    title: "FlatGeobuf",
  },
  {
    f: "parquet",
    // Registered with IANA in 2024 for Apache Parquet; GeoParquet files carry it too.
    type: "application/vnd.apache.parquet",
    accepts: ["application/vnd.apache.parquet", "application/x-parquet"],
    extension: "parquet",
    title: "GeoParquet 1.1",
  },
];

export const EXPORT_F_VALUES = EXPORT_FORMATS.map((x) => x.f);

export const exportFormat = (f: ExportFormat): ExportFormatInfo => EXPORT_FORMATS.find((x) => x.f === f)!;

export const isExportFormat = (f: string | undefined): f is ExportFormat =>
  f !== undefined && (EXPORT_F_VALUES as readonly string[]).includes(f);
