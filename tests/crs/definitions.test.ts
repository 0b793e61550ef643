import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { CRS_SYSTEMS, crsByName } from "../../lib/crs/systems.js";

// The definitions are proj4-list's (a devDependency): copied into lib/crs/systems.ts so that a function bundles eight
// strings, not the package's whole list. They must stay the package's, byte for byte.
const list = createRequire(import.meta.url)("proj4-list") as Record<string, [string, string]>;

describe("the served systems' definitions", () => {
  it("are proj4-list's entries", () => {
    for (const s of CRS_SYSTEMS) {
      const code = s.code === "OGC:CRS84" ? "EPSG:4326" : s.code;
      expect(list[code]?.[1], s.code).toBe(s.proj4);
    }
  });
  it("are named by URI, bracketed URI, https URI and safe CURIE, and nothing else", () => {
    expect(crsByName("http://www.opengis.net/def/crs/EPSG/0/27700")?.code).toBe("EPSG:27700");
    expect(crsByName("<http://www.opengis.net/def/crs/EPSG/0/3857>")?.code).toBe("EPSG:3857");
    expect(crsByName("https://www.opengis.net/def/crs/EPSG/0/4326")?.code).toBe("EPSG:4326");
    expect(crsByName("[EPSG:28992]")?.code).toBe("EPSG:28992");
    expect(crsByName("http://www.opengis.net/def/crs/OGC/0/CRS84")?.code).toBe("OGC:CRS84");
    expect(crsByName("EPSG:27700")).toBeUndefined();
    expect(crsByName("http://www.opengis.net/def/crs/EPSG/0/4269")).toBeUndefined();
  });
});
