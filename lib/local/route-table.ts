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
