import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { notFound } from "./errors.js";
import { textResponse } from "./respond.js";

/** A static file a function serves: its media type and how to read it (once per instance). */
export type Asset = { type: string; load: () => Promise<string> };

export const JS_TYPE = "text/javascript; charset=utf-8";
export const CSS_TYPE = "text/css; charset=utf-8";

const require = createRequire(import.meta.url);

/** A file shipped in an npm package (resolved as Node would; the build attaches it to the serving function). */
export const fromPackage = (type: string, path: string): Asset => ({
  type,
  load: () => readFile(require.resolve(path), "utf8"),
});

/**
 * The handler of a fixed set of assets by name: 404 (listing the names, never echoing the requested one, which is
 * attacker-chosen text) for any other; each file read once per instance, and read again after a failed read;
 * cached a day in the browser, then revalidated by ETag (the files are versioned with their packages).
 */
export function assetServer(assets: Record<string, Asset>): (file: string) => Promise<Response> {
  const cache = new Map<string, Promise<string>>();
  return async (file) => {
    const asset = Object.hasOwn(assets, file) ? assets[file] : undefined;
    if (!asset) throw notFound(`No such asset. Available: ${Object.keys(assets).join(", ")}`);
    let body = cache.get(file);
    if (!body) {
      body = asset.load();
      cache.set(file, body);
      body.catch(() => cache.delete(file));
    }
    return textResponse(await body, {
      contentType: asset.type,
      headers: { "cache-control": "public, max-age=86400" },
    });
  };
}
