import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { notFound } from "../http/errors.js";
import { textResponse } from "../http/respond.js";

/**
 * The docs page's files, from our own origin (no CDN): Swagger UI's standalone build from the swagger-ui-dist npm
 * package, read at run time — vercel.json's `includeFiles` ships them with the docs assets function alone
 * (api/docs/assets/[file].ts), so no other bundle grows — and our own start-up script. A fixed allow-list: the
 * requested name never reaches the file system.
 */
const require = createRequire(import.meta.url);

export const docsAssetPath = (file: string) => `/api/docs/assets/${file}`;

const JS = "text/javascript; charset=utf-8";

/**
 * Starts Swagger UI on /docs over our document. `validatorUrl: null`: it would otherwise send the document to an
 * outside validator (and show its badge). Try-it-out requests go to the document's server, this origin.
 */
const DOCS_JS = `"use strict";
window.addEventListener("DOMContentLoaded", function () {
  var el = document.getElementById("swagger-ui");
  if (!el || !window.SwaggerUIBundle) return;
  window.ui = window.SwaggerUIBundle({
    url: el.getAttribute("data-url"),
    domNode: el,
    deepLinking: true,
    validatorUrl: null,
    docExpansion: "list",
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    tryItOutEnabled: false,
  });
});
`;

type Asset = { type: string; load: () => Promise<string> };
const fromPackage = (type: string, path: string): Asset => ({
  type,
  load: () => readFile(require.resolve(path), "utf8"),
});

const ASSETS: Record<string, Asset> = {
  "swagger-ui-bundle.js": fromPackage(JS, "swagger-ui-dist/swagger-ui-bundle.js"),
  "swagger-ui.css": fromPackage("text/css; charset=utf-8", "swagger-ui-dist/swagger-ui.css"),
  "docs.js": { type: JS, load: async () => DOCS_JS },
};

const cache = new Map<string, Promise<string>>();

export async function docsAssetResponse(file: string): Promise<Response> {
  const asset = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
  // The requested name is not echoed: it is attacker-chosen text.
  if (!asset) throw notFound(`No such asset. Available: ${Object.keys(ASSETS).join(", ")}`);
  let body = cache.get(file);
  if (!body) {
    body = asset.load();
    cache.set(file, body);
    body.catch(() => cache.delete(file));
  }
  return textResponse(await body, {
    contentType: asset.type,
    // Versioned with the package: a day in the browser, then revalidated by ETag.
    headers: { "cache-control": "public, max-age=86400" },
  });
}
