import { readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** One function file under api/ and the URL path it serves, as Vercel maps it. */
export type FileRoute = {
  file: string;
  /** the route path with bracket segments kept, e.g. /api/v0/location-proofs/[uid] */
  path: string;
  segments: string[];
  /** names of the dynamic ([name]) segments */
  params: string[];
};

const FUNCTION_FILE = /\.(ts|js|mjs)$/;

/** Walks api/ and lists its functions. index.ts serves its folder's path; [name] is one dynamic segment. */
export function scanApi(root: string): FileRoute[] {
  const apiDir = join(root, "api");
  const routes: FileRoute[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (FUNCTION_FILE.test(name) && !name.endsWith(".d.ts")) {
        const rel = relative(root, full).split(sep).join("/").replace(FUNCTION_FILE, "");
        const segments = rel.split("/");
        if (segments.at(-1) === "index") segments.pop();
        routes.push({
          file: full,
          path: `/${segments.join("/")}`,
          segments,
          params: segments.filter(isDynamic).map((s) => s.slice(1, -1)),
        });
      }
    }
  };
  walk(apiDir);
  return routes;
}

const isDynamic = (segment: string) => /^\[[^\]/]+\]$/.test(segment);

/**
 * Finds the function for a path, with Vercel's precedence: an exact (static) file first, then files with
 * dynamic segments, fewer dynamic segments first; a dynamic segment matches exactly one non-empty segment.
 * A literal bracket path (a rewrite's destination such as /api/x/[id]) names that file directly.
 */
export function matchFile(
  routes: readonly FileRoute[],
  pathname: string,
): { route: FileRoute; params: Record<string, string> } | undefined {
  const exact = routes.find((r) => r.path === pathname);
  if (exact) return { route: exact, params: {} };
  const parts = pathname.split("/").filter(Boolean);
  const candidates = routes
    .filter((r) => r.params.length > 0 && r.segments.length === parts.length)
    .sort((a, b) => a.params.length - b.params.length || a.path.localeCompare(b.path));
  for (const route of candidates) {
    const params: Record<string, string> = {};
    const ok = route.segments.every((segment, i) => {
      const part = parts[i]!;
      if (!isDynamic(segment)) return segment === part;
      // A segment with broken percent-encoding (e.g. "%E0%A4%A") names no resource: no match, so the request
      // ends in the JSON 404 instead of a URIError (a 500).
      const decoded = safeDecode(part);
      if (decoded === undefined) return false;
      params[segment.slice(1, -1)] = decoded;
      return true;
    });
    if (ok) return { route, params };
  }
  return undefined;
}

function safeDecode(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}
