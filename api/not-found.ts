import { cannotGet } from "../lib/http/errors.js";
import { route } from "../lib/http/route.js";

// vercel.json rewrites every path that matches no function here, so unknown paths get the JSON 404 of the spec,
// whatever the method (OPTIONS is the CORS preflight, as on every public route).
async function notFound(request: Request): Promise<Response> {
  const original = new URL(request.url).searchParams.get("path") ?? new URL(request.url).pathname;
  throw cannotGet(request.method, original.startsWith("/") ? original : `/${original}`);
}

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  cache: false,
  GET: notFound,
  POST: notFound,
  PUT: notFound,
  PATCH: notFound,
  DELETE: notFound,
});
