import { cannotGet } from "../lib/http/errors.js";
import { route } from "../lib/http/route.js";

// vercel.json rewrites every path that matches no function here, so unknown paths get the JSON 404 of the spec.
const notFound = route(
  async (request) => {
    const original = new URL(request.url).searchParams.get("path") ?? new URL(request.url).pathname;
    throw cannotGet(request.method, original.startsWith("/") ? original : `/${original}`);
  },
  { access: "public", cache: false },
);

export { preflight as OPTIONS } from "../lib/http/cors.js";
export {
  notFound as GET,
  notFound as POST,
  notFound as PUT,
  notFound as PATCH,
  notFound as DELETE,
  notFound as HEAD,
};
