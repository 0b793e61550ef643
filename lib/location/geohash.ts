import type { Bbox } from "./geometry.js";

const BASE32 = "0123456789bcdefghjkmnpqrstuvwxyz";

/** The cell of a geohash as [minLon, minLat, maxLon, maxLat], or undefined when it is not a geohash. */
export function geohashBounds(hash: string): Bbox | undefined {
  const h = hash.trim().toLowerCase();
  if (!/^[0-9bcdefghjkmnpqrstuvwxyz]{1,22}$/.test(h)) return undefined;
  const lon: [number, number] = [-180, 180];
  const lat: [number, number] = [-90, 90];
  let even = true; // bits alternate, starting with longitude
  for (const ch of h) {
    const bits = BASE32.indexOf(ch);
    for (let b = 4; b >= 0; b--) {
      const range = even ? lon : lat;
      const mid = (range[0] + range[1]) / 2;
      if ((bits >> b) & 1) range[0] = mid;
      else range[1] = mid;
      even = !even;
    }
  }
  return [lon[0], lat[0], lon[1], lat[1]];
}
