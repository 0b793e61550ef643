import { describe, expect, it } from "vitest";
import { CLIENT_FILE_NAMES, clientFile } from "../../lib/html/client-files.js";

// The pages' own scripts and styles are TypeScript and CSS sources (lib/html/client/), bundled by esbuild into the
// files the pages load. What the browser tests cannot see: each file stands alone, and only tile-map.mjs imports
// anything — MapLibre, served beside it, never bundled into it.
describe("the pages' own files, bundled from lib/html/client/", () => {
  it("are the four files the pages load, each bundled whole", async () => {
    expect([...CLIENT_FILE_NAMES].sort()).toEqual(["map.js", "site.css", "site.js", "tile-map.mjs"]);
    for (const name of CLIENT_FILE_NAMES) {
      const text = await clientFile(name);
      expect(text.length, name).toBeGreaterThan(400);
      expect(text, name).not.toMatch(/\bfrom\s*["']\.\/(popup|outline-rings)(\.js)?["']/);
    }
  });

  it("classic scripts import nothing; tile-map.mjs imports only ./maplibre-gl.mjs", async () => {
    for (const name of ["site.js", "map.js"] as const)
      expect(await clientFile(name)).not.toMatch(/\bimport\b/);
    const tileMap = await clientFile("tile-map.mjs");
    const imports = [...tileMap.matchAll(/\bfrom\s*"([^"]+)"/g)].map((m) => m[1]);
    expect(imports).toEqual(["./maplibre-gl.mjs"]);
    expect(tileMap).toContain('"./maplibre-gl-worker.mjs"');
    expect(tileMap.length).toBeLessThan(50_000); // MapLibre itself (~800 kB) is not in it
  });

  it("the stylesheet is the pages' own", async () => {
    const css = await clientFile("site.css");
    for (const selector of [".site-header", ".map-filters a[aria-current]", "table.proofs td:before"])
      expect(css).toContain(selector);
  });
});
