import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { escapeHtml as e } from "../html/escape.js";
import { contentSecurityPolicy } from "../html/layout.js";
import { textResponse } from "../http/respond.js";
import { type Asset, assetServer, CSS_TYPE, JS_TYPE } from "../http/static-assets.js";

/**
 * GraphiQL, the GraphQL foundation's in-browser IDE, for a browser that opens /graphql: served from our own origin
 * (no CDN) by api/graphql/assets/[file].ts, whose vercel.json `includeFiles` ships these files with that function
 * alone. GraphiQL 4 is the last release with a ready-made browser build (UMD, with React 18's); later ones are ES
 * modules with Monaco's web workers, to be bundled by the embedding application.
 */

export const GRAPHQL_PATH = "/graphql";
export const graphiqlAssetPath = (file: string) => `/api/graphql/assets/${file}`;

const require = createRequire(import.meta.url);

/** A file of an npm package that does not export it (its `exports` map names no browser build): by its folder. */
const packageFile = (type: string, name: string, file: string): Asset => ({
  type,
  load: () => readFile(join(dirname(require.resolve(`${name}/package.json`)), file), "utf8"),
});

/** Starts GraphiQL on the page's element, over this origin's endpoint, with the page's example query. */
const START_JS = `"use strict";
window.addEventListener("DOMContentLoaded", function () {
  var el = document.getElementById("graphiql");
  if (!el || !window.GraphiQL || !window.React || !window.ReactDOM) return;
  var fetcher = window.GraphiQL.createFetcher({ url: el.getAttribute("data-endpoint") });
  window.ReactDOM.createRoot(el).render(
    window.React.createElement(window.GraphiQL, {
      fetcher: fetcher,
      defaultQuery: el.getAttribute("data-query"),
      defaultEditorToolsVisibility: true,
    }),
  );
});
`;

const PAGE_CSS = `html, body { height: 100%; margin: 0; }
#graphiql { height: 100vh; }
`;

const ASSETS: Record<string, Asset> = {
  "react.js": packageFile(JS_TYPE, "react", "umd/react.production.min.js"),
  "react-dom.js": packageFile(JS_TYPE, "react-dom", "umd/react-dom.production.min.js"),
  "graphiql.js": packageFile(JS_TYPE, "graphiql", "graphiql.min.js"),
  "graphiql.css": packageFile(CSS_TYPE, "graphiql", "graphiql.min.css"),
  "start.js": { type: JS_TYPE, load: async () => START_JS },
  "page.css": { type: CSS_TYPE, load: async () => PAGE_CSS },
};

export const graphiqlAssetResponse = assetServer(ASSETS);

/** What GraphiQL opens with: a page of proofs and the count, to edit. */
const EXAMPLE_QUERY = `# GraphQL over the location proofs: the native list's filters, cursor paging, counts and stats.
# Press the run button (or Ctrl-Enter); the Docs panel lists every type and field.
query RecentProofs($filter: LocationProofFilter, $after: String) {
  locationProofs(filter: $filter, first: 5, after: $after) {
    totalCount
    pageInfo { hasNextPage endCursor }
    nodes { uid chain prover eventTimestamp longitude latitude revoked }
  }
  locationProofsCount(filter: { filter: "hasCoordinates" })
}
`;

/**
 * The page: GraphiQL's files, our start-up script, and an element naming the endpoint. The pages' policy (our
 * origin only, no inline script or style), with one addition: GraphiQL's stylesheet carries its fonts as data: URLs.
 */
export function graphiqlPage(): Response {
  const body = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GraphiQL · location proofs</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${graphiqlAssetPath("graphiql.css")}">
<link rel="stylesheet" href="${graphiqlAssetPath("page.css")}">
<script src="${graphiqlAssetPath("react.js")}" defer></script>
<script src="${graphiqlAssetPath("react-dom.js")}" defer></script>
<script src="${graphiqlAssetPath("graphiql.js")}" defer></script>
<script src="${graphiqlAssetPath("start.js")}" defer></script>
</head>
<body>
<div id="graphiql" data-endpoint="${e(GRAPHQL_PATH)}" data-query="${e(EXAMPLE_QUERY)}">
<noscript><p>GraphiQL needs JavaScript. Without it, send queries to <code>${e(GRAPHQL_PATH)}</code> with GET or POST (see the API documentation at <a href="/docs">/docs</a>).</p></noscript>
</div>
</body>
</html>
`;
  return textResponse(body, {
    contentType: "text/html; charset=utf-8",
    headers: { "content-security-policy": `${contentSecurityPolicy()}; font-src data:` },
  });
}
