import { textResponse } from "../../http/respond.js";
import { PATHS } from "../vocabulary.js";

/**
 * HTML pages are rendered on the server from the same documents as the JSON; every value goes through escapeHtml.
 * Data for the map travels as a JSON data block (never executed), read by our own script; no inline script or
 * style runs, so the policy below can forbid them and any origin other than ours.
 */
export const HTML_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export const escapeHtml = (value: unknown): string =>
  String(value ?? "").replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** JSON inside <script type="application/json">: `<` is escaped so no value can close the element. */
export const jsonBlock = (id: string, data: unknown): string =>
  `<script type="application/json" id="${escapeHtml(id)}">${JSON.stringify(data).replace(/</g, "\\u003c")}</script>`;

export type Crumb = { title: string; href?: string };

export function page(options: { title: string; crumbs: Crumb[]; body: string; map?: boolean }): string {
  const crumbs = options.crumbs
    .map((c) => (c.href ? `<a href="${escapeHtml(c.href)}">${escapeHtml(c.title)}</a>` : escapeHtml(c.title)))
    .join(" / ");
  const mapHead = options.map
    ? `<link rel="stylesheet" href="${PATHS.asset("leaflet.css")}">
<script src="${PATHS.asset("leaflet.js")}" defer></script>
<script src="${PATHS.asset("map.js")}" defer></script>`
    : "";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${PATHS.asset("ogc.css")}">
${mapHead}
</head>
<body>
<header><nav>${crumbs}</nav><h1>${escapeHtml(options.title)}</h1></header>
<main>
${options.body}
</main>
</body>
</html>
`;
}

export const htmlResponse = (body: string): Response =>
  textResponse(body, {
    contentType: "text/html; charset=utf-8",
    headers: { "content-security-policy": HTML_CSP },
  });

export const linkList = (links: { href: string; rel: string; type?: string; title?: string }[]): string =>
  `<ul class="links">${links
    .map(
      (l) =>
        `<li><a href="${escapeHtml(l.href)}">${escapeHtml(l.title ?? l.href)}</a> <small>${escapeHtml(l.rel)}${
          l.type ? `, ${escapeHtml(l.type)}` : ""
        }</small></li>`,
    )
    .join("")}</ul>`;
