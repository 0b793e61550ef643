import proj4 from "proj4";
import { describe, expect, it } from "vitest";
import { CRS_SYSTEMS, type CrsSystem } from "../../lib/crs/systems.js";
import { positionFrom, positionTo } from "../../lib/crs/transform.js";
import { cs2cs } from "./cs2cs.js";

/*
 * The outside truth for lib/crs: PROJ's own command line, cs2cs (Debian's proj-bin; .ci/run installs it). PROJ runs
 * with a data directory that holds only its database (proj.db), so no grid file is found and it does what the
 * service does: the datum shifts without grids. Its axis order is the authority's, as the service's is, so the
 * comparison checks the axis order too.
 *
 * - Where no datum shift applies (CRS84/EPSG:4326, Web Mercator, the ETRS89 grids: ETRS89 is taken as WGS 84 by PROJ
 *   and the service alike), points on every continent and at the edges of each grid's area of use agree within 1 mm.
 * - Where one applies (British, Dutch and Swiss grids), the projection itself is checked at the edges of the area of
 *   use (from the grid's own geographic CRS, where no shift is involved) within 2 mm: proj4js rounds the Airy
 *   ellipsoid's minor axis to the millimetre (6356256.910 m, PROJ 6356256.909 from the inverse flattening), which
 *   shows as 1.05 mm at the British grid's far corner, and its oblique Mercator (Swiss) is 1.2 mm off at its corner;
 *   and WGS 84 positions across the country within the accuracy the systems table documents (EPSG's, for the
 *   transformation PROJ picks there).
 */

/** Longitude, latitude: a city on each continent. */
const CONTINENTS: [number, number][] = [
  [-0.1276, 51.5072], // London
  [13.405, 52.52], // Berlin
  [-74.006, 40.7128], // New York
  [-58.3816, -34.6037], // Buenos Aires
  [31.2357, 30.0444], // Cairo
  [18.4241, -33.9249], // Cape Town
  [139.6917, 35.6895], // Tokyo
  [77.209, 28.6139], // Delhi
  [151.2093, -33.8688], // Sydney
  [174.7633, -41.2865], // Wellington
  [166.6667, -77.85], // McMurdo, Antarctica
  [-149.9003, 61.2181], // Anchorage
];

/** The corners and edge midpoints of a system's area of use, a hair inside. */
function edges(s: CrsSystem): [number, number][] {
  const [w, south, e, n] = s.areaOfUse;
  const i = 1e-6;
  const [x0, y0, x1, y1] = [w + i, south + i, e - i, n - i];
  const mx = (x0 + x1) / 2;
  const my = (y0 + y1) / 2;
  return [
    [x0, y0],
    [x1, y0],
    [x0, y1],
    [x1, y1],
    [mx, y0],
    [mx, y1],
    [x0, my],
    [x1, my],
  ];
}

const epsgOf = (s: CrsSystem) => (s.code === "OGC:CRS84" ? "OGC:CRS84" : s.code);
/** Distance between two positions in a system's units: metres, or degrees turned into metres (1° ≈ 111 km). */
const apart = (a: number[], b: number[], s: CrsSystem) =>
  Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!) * (s.unit === "degree" ? 111_320 : 1);
const lonLatToEpsg4326 = (points: [number, number][]) => points.map(([lon, lat]) => [lat, lon]);

/** Continental points that lie where a system's projection is meant to be used (UTM zones and national grids aside). */
const worldwide = new Set(["OGC:CRS84", "EPSG:4326", "EPSG:3857", "EPSG:3035"]);

describe("transforms agree with PROJ (cs2cs, no grids)", () => {
  for (const s of CRS_SYSTEMS) {
    const shifted = s.accuracy !== null;
    const points = [
      ...edges(s),
      ...(worldwide.has(s.code)
        ? CONTINENTS.filter(([, lat]) => s.code !== "EPSG:3857" || Math.abs(lat) < 85)
        : []),
      ...CONTINENTS.filter(
        ([lon, lat]) =>
          lon >= s.areaOfUse[0] && lon <= s.areaOfUse[2] && lat >= s.areaOfUse[1] && lat <= s.areaOfUse[3],
      ),
    ];

    if (!shifted) {
      it(`${s.code}: WGS 84 positions within 1 mm of PROJ, on every continent and at the area's edges`, () => {
        const truth = cs2cs("EPSG:4326", epsgOf(s), lonLatToEpsg4326(points));
        const to = positionTo(s) ?? ((p: number[]) => p);
        points.forEach((p, i) => {
          expect(apart(to(p), truth[i]!, s), `${s.code} at ${p}`).toBeLessThanOrEqual(0.001);
        });
      });
      it(`${s.code}: the inverse (bbox-crs, filter-crs) lands within 1 mm of PROJ's`, () => {
        const there = cs2cs("EPSG:4326", epsgOf(s), lonLatToEpsg4326(points));
        const back = positionFrom(s) ?? ((p: number[]) => p);
        const truth = cs2cs(epsgOf(s), "EPSG:4326", there);
        there.forEach((p, i) => {
          const [lon, lat] = back(p);
          const [tLat, tLon] = truth[i]!;
          expect(
            Math.hypot((lon! - tLon!) * Math.cos((tLat! * Math.PI) / 180), lat! - tLat!) * 111_320,
          ).toBeLessThanOrEqual(0.001);
        });
      });
      continue;
    }

    // The grid's own geographic CRS: no datum shift between it and the grid.
    const base = { "EPSG:27700": "EPSG:4277", "EPSG:28992": "EPSG:4289", "EPSG:2056": "EPSG:4150" }[s.code]!;
    it(`${s.code}: the projection within 2 mm of PROJ at the edges of its area of use (from ${base})`, () => {
      const geographic = s.proj4
        .replace(/\+proj=\S+/, "+proj=longlat")
        .replace(/\+(lat_0|lon_0|k|k_0|x_0|y_0|units)=\S+/g, "");
      const projection = proj4(geographic, s.proj4);
      const pts = edges(s);
      const truth = cs2cs(base, s.code, lonLatToEpsg4326(pts));
      pts.forEach((p, i) => {
        expect(apart(projection.forward(p), truth[i]!, s), `${s.code} at ${p}`).toBeLessThanOrEqual(0.002);
      });
    });
    it(`${s.code}: WGS 84 positions across the country within the documented ${s.accuracy} m of PROJ`, () => {
      const land = {
        "EPSG:27700": [
          [-0.1276, 51.5072],
          [-5.714, 50.066], // Land's End
          [1.745, 52.48], // Lowestoft
          [-3.19, 55.95], // Edinburgh
          [-1.29, 60.15], // Shetland
          [-6.31, 49.91], // Isles of Scilly
        ],
        "EPSG:28992": [
          [4.9, 52.37],
          [3.38, 51.37], // Zeeland
          [6.56, 53.22], // Groningen
          [5.69, 50.85], // Maastricht
          [4.8, 53.1], // Texel
        ],
        "EPSG:2056": [
          [7.44, 46.95],
          [6.14, 46.2], // Geneva
          [8.95, 46.0], // Lugano
          [9.84, 46.5], // Engadin
          [8.54, 47.37], // Zürich
        ],
      }[s.code]!;
      const truth = cs2cs("EPSG:4326", s.code, lonLatToEpsg4326(land as [number, number][]));
      const to = positionTo(s)!;
      land.forEach((p, i) => {
        expect(apart(to(p), truth[i]!, s), `${s.code} at ${p}`).toBeLessThanOrEqual(s.accuracy!);
      });
    });
  }
});
