import { type Asset, assetServer, CSS_TYPE, fromPackage, JS_TYPE } from "../http/static-assets.js";

/**
 * The docs page's files, from our own origin (no CDN): Swagger UI's standalone build from the swagger-ui-dist npm
 * package, read at run time — vercel.json's `includeFiles` ships them with the docs assets function alone
 * (api/docs/assets/[file].ts), so no other bundle grows — and our own start-up script. A fixed allow-list: the
 * requested name never reaches the file system.
 */

export const docsAssetPath = (file: string) => `/api/docs/assets/${file}`;

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

const ASSETS: Record<string, Asset> = {
  "swagger-ui-bundle.js": fromPackage(JS_TYPE, "swagger-ui-dist/swagger-ui-bundle.js"),
  "swagger-ui.css": fromPackage(CSS_TYPE, "swagger-ui-dist/swagger-ui.css"),
  "docs.js": { type: JS_TYPE, load: async () => DOCS_JS },
};

export const docsAssetResponse = assetServer(ASSETS);
