import { badParameter } from "../http/errors.js";
import { checkBbox, readParam } from "../params/grammar.js";
import type { Bbox } from "../proofs/filter.js";
import { CRS_SYSTEMS, CRS_URIS, type CrsSystem, crsByName } from "./systems.js";
import { bboxToCrs84 } from "./transform.js";

/**
 * The parameters that name a coordinate reference system (`crs`, `bbox-crs`, `filter-crs`) and the bbox they
 * qualify. An unknown or unsupported system is a 400 that lists the supported ones.
 */

const SUPPORTED = `one of ${CRS_SYSTEMS.map((s) => s.uri).join(", ")} (or the safe CURIEs ${CRS_SYSTEMS.map((s) => `[${s.code}]`).join(", ")})`;

export const crsParam = (name: string) =>
  readParam(
    (value) =>
      crsByName(value) ?? `${name} is not a supported coordinate reference system: it must be ${SUPPORTED}`,
  );

/** The OpenAPI schema of a crs parameter: its URIs. */
export const CRS_PARAM_SCHEMA = { type: "string", format: "uri", enum: CRS_URIS };

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * `bbox` as numbers only (4, or 6 with heights): what they mean depends on `bbox-crs`, so the ranges are checked by
 * bboxInCrs84 once that is known.
 */
export const bboxNumbersParam = readParam((value) => {
  const parts = value.split(",").map((s) => s.trim());
  if (!(parts.length === 4 || parts.length === 6) || !parts.every((s) => NUMBER.test(s)))
    return "bbox must be 4 or 6 comma-separated numbers: minLng,minLat,maxLng,maxLat in CRS84, or the lower and upper corners in the axis order of bbox-crs";
  return parts.map(Number);
});

/**
 * A bbox's numbers as the CRS84 box the filter tests: as they are in CRS84 (the bbox rules of every list, checkBbox),
 * else the box that encloses them once transformed from `system` (lib/crs/transform.ts, bboxToCrs84).
 */
export function bboxInCrs84(numbers: readonly number[], system: CrsSystem | undefined): Bbox {
  if (!system || system.code === "OGC:CRS84") {
    const box = checkBbox(numbers, "bbox");
    if (typeof box === "string") throw badParameter("bbox", box);
    return box;
  }
  const [a0, b0, a1, b1] =
    numbers.length === 6
      ? [numbers[0]!, numbers[1]!, numbers[3]!, numbers[4]!]
      : [numbers[0]!, numbers[1]!, numbers[2]!, numbers[3]!];
  if (system.unit === "metre" && (a0 > a1 || b0 > b1)) {
    throw badParameter(
      "bbox",
      `bbox in ${system.code}: each lower corner coordinate must not exceed the upper one`,
    );
  }
  try {
    const [minLon, minLat, maxLon, maxLat] = bboxToCrs84([a0, b0, a1, b1], system);
    const box = checkBbox([minLon, minLat, maxLon, maxLat], "bbox");
    if (typeof box === "string") throw badParameter("bbox", `${box} (once transformed from ${system.code})`);
    return box;
  } catch (error) {
    if (error instanceof RangeError) throw badParameter("bbox", `bbox: ${error.message}`);
    throw error;
  }
}
