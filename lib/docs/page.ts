import { escapeHtml as e } from "../html/escape.js";
import { htmlResponse, page } from "../html/layout.js";
import { OPENAPI_PATH } from "../v0/paths.js";
import { docsAssetPath } from "./assets.js";

/**
 * GET /docs: the native API's OpenAPI document rendered by Swagger UI (swagger-ui-dist, from our own origin, under
 * the pages' CSP), in the site's layout, with the way to the document itself and to the OGC API's own description.
 * Without script the links still lead to both documents.
 */
export function docsResponse(): Response {
  const head = `
<link rel="stylesheet" href="${docsAssetPath("swagger-ui.css")}">
<script src="${docsAssetPath("swagger-ui-bundle.js")}" defer></script>
<script src="${docsAssetPath("docs.js")}" defer></script>`;
  return htmlResponse(
    page({
      title: "API documentation",
      section: "docs",
      head,
      lead: `The native API, <code>/api/v0</code>, from its <a href="${e(OPENAPI_PATH)}" type="application/vnd.oai.openapi+json">OpenAPI 3.1 document</a>: every endpoint, parameter and response, and <em>Try it out</em> against this server. The OGC API - Features interface describes itself: <a href="/api/ogc/api?f=html">its API page</a> (<a href="/api/ogc/api">OpenAPI 3.0</a>).`,
      body: `<div id="swagger-ui" class="swagger-docs" data-url="${e(OPENAPI_PATH)}"></div>`,
    }),
  );
}
