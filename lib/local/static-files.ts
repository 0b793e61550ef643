import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, relative, sep } from "node:path";

/**
 * public/ as Vercel serves it (the build copies it to .vercel/output/static): each file at its own path, matched
 * before any rewrite (the filesystem phase), with the CDN's default headers for a static file. Nothing outside
 * public/ is ever served.
 */
export type StaticFiles = {
  match(pathname: string): string | undefined;
  respond(file: string, request: Request): Response;
};

const TYPES: Record<string, string> = {
  ".txt": "text/plain; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "application/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".xml": "application/xml",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
};

/** Vercel's default for a static file: cached by the CDN until the next deployment, revalidated by the browser. */
export const STATIC_CACHE_CONTROL = "public, max-age=0, must-revalidate";

export function staticFiles(root: string): StaticFiles {
  const dir = join(root, "public");
  const files = new Map<string, string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else files.set(`/${relative(dir, full).split(sep).join("/")}`, full);
    }
  };
  if (existsSync(dir)) walk(dir);
  return {
    match: (pathname) => files.get(pathname),
    respond(file, request) {
      // The CDN serves a static file to GET and HEAD only.
      if (request.method !== "GET" && request.method !== "HEAD") return new Response(null, { status: 405 });
      const body = readFileSync(file);
      // Vercel's CDN adds an ETag of its own making to static files; not emulated (no route here depends on it).
      const headers = {
        "content-type": TYPES[extname(file)] ?? "application/octet-stream",
        "cache-control": STATIC_CACHE_CONTROL,
      };
      return new Response(request.method === "HEAD" ? null : body, { status: 200, headers });
    },
  };
}
