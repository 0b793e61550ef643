import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { Router } from "../../lib/local/router.js";
import { openApiDocument as ogcOpenApiDocument } from "../../lib/ogc/openapi.js";
import { nativeOpenApiDocument } from "../../lib/v0/openapi.js";

/**
 * Contract tests: every exchange the suite makes through the router (createTestApp, recordingRouter) is recorded
 * here, and after each test file (tests/helpers/contract-setup.ts) validated against the API's own documents —
 * the native OpenAPI 3.1 (lib/v0/openapi.ts) for /, /health, /docs and /api/v0/*, the OGC API's OpenAPI 3.0
 * (lib/ogc/openapi.ts) for /api/ogc/* — status, declared headers, media type and body. A path or status the
 * document does not declare is a failure, so neither document can drift from the code.
 *
 * What no path item can declare follows the documents' stated rules: a path that does not exist is a 404 with the
 * error object; a method a path does not offer is a 405 with `Allow` and the error object; OPTIONS is the CORS
 * preflight (204); HEAD is GET without a body.
 */

export type Exchange = {
  method: string;
  url: string;
  status: number;
  headers: Headers;
  body: Promise<string | undefined>;
};

const recorded: Exchange[] = [];

/** Keeps a copy of the response (its body read on the side, so the test still reads the original). */
export function record(request: Request, response: Response): Response {
  const copy = response.clone();
  const body = Promise.race([
    copy.text().catch(() => undefined),
    // A body a fault test left hanging is not waited for.
    delay(5000, undefined, { ref: false }),
  ]);
  recorded.push({
    method: request.method,
    url: request.url,
    status: response.status,
    headers: response.headers,
    body,
  });
  return response;
}

/** A router whose every answer is recorded for the contract check. */
export function recordingRouter(router: Router): Router {
  return { ...router, handle: async (request) => record(request, await router.handle(request)) };
}

/** The exchanges recorded so far in this test file, and forgets them. */
export const takeRecorded = (): Exchange[] => recorded.splice(0);

type Json = Record<string, any>;
type Api = {
  name: string;
  prefix: string;
  doc: Json;
  ajv: InstanceType<typeof Ajv2020> | InstanceType<typeof Ajv>;
  paths: { template: string; match: RegExp }[];
};

/** OpenAPI 3.0's `nullable: true` as JSON Schema draft-07 (a type list), for ajv. */
function fromOpenApi30(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(fromOpenApi30);
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) if (k !== "nullable") out[k] = fromOpenApi30(v);
  if ((node as Json).nullable === true) {
    if (out.type) out.type = [out.type, "null"].flat();
    else return { anyOf: [out, { type: "null" }] };
  }
  return out;
}

function api(name: string, prefix: string, doc: Json): Api {
  const ajv =
    name === "native"
      ? new Ajv2020({ strict: false, allErrors: true })
      : new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv as never);
  const components = name === "native" ? doc.components : fromOpenApi30(doc.components);
  ajv.addSchema({ $id: `${name}.json`, components });
  const templates = Object.keys(doc.paths as Json);
  // Static paths first, so /location-proofs/stats is not read as /location-proofs/{uid}.
  templates.sort((a, b) => Number(a.includes("{")) - Number(b.includes("{")));
  const paths = templates.map((template) => {
    const pattern = template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+");
    // As the router matches: a function's own path exactly, a vercel.json rewrite's source (`/health`, `/docs`, the
    // `:uid` paths) without regard to case.
    const viaRewrite =
      template.includes("{") || STATIC_REWRITES.has(prefix + (template === "/" && prefix ? "" : template));
    return { template, match: new RegExp(`^${pattern}$`, viaRewrite ? "i" : "") };
  });
  return { name, prefix, doc, ajv, paths };
}

/** The sources of vercel.json's rewrites that name one path (`/`, `/health`, `/docs`). */
const STATIC_REWRITES = new Set(
  (
    JSON.parse(
      readFileSync(join(fileURLToPath(new URL("../..", import.meta.url)), "vercel.json"), "utf8"),
    ) as { rewrites: { source: string }[] }
  ).rewrites
    .map((r) => r.source)
    .filter((source) => !/[:(*]/.test(source)),
);

let apis: Api[] | undefined;
function documents(): Api[] {
  const request = new Request("http://contract.test/");
  apis ??= [
    api("native", "", nativeOpenApiDocument(request)),
    api("ogc", "/api/ogc", ogcOpenApiDocument(request)),
  ];
  return apis;
}

/** The document a path belongs to (its prefix stripped), or undefined when neither describes it. */
function apiFor(pathname: string): { api: Api; path: string; folded?: boolean } | undefined {
  // As the router reads a path: repeated slashes are one, a trailing slash is dropped.
  const collapsed = pathname.replace(/\/{2,}/g, "/");
  const path = collapsed.length > 1 ? collapsed.replace(/\/+$/, "") : collapsed;
  const [native, ogc] = documents() as [Api, Api];
  const lower = path.toLowerCase();
  if (lower === "/api/ogc" || lower.startsWith("/api/ogc/")) {
    // The pages' script and style files are not part of the API.
    if (lower.startsWith("/api/ogc/assets/")) return undefined;
    // Written in another case, the prefix reaches only what a rewrite serves (functions match exactly).
    return { api: ogc, path: path.slice("/api/ogc".length) || "/", folded: !path.startsWith("/api/ogc") };
  }
  if (["/", "/health", "/docs"].includes(lower) || lower === "/api/v0" || lower.startsWith("/api/v0/")) {
    return { api: native, path };
  }
  return undefined;
}

/**
 * A schema of the document as ajv reads it, made once per schema: ajv compiles a schema object the first time it
 * sees it and keeps the result by identity, so a fresh copy per exchange was a compile per exchange.
 */
const refs = new Map<string, Json>();
const ref = (api: Api, schema: Json): Json => {
  const key = `${api.name}\u0000${JSON.stringify(schema)}`;
  let made = refs.get(key);
  if (!made) {
    made = JSON.parse(
      JSON.stringify(api.name === "native" ? schema : fromOpenApi30(schema)).replaceAll(
        '"#/components',
        `"${api.name}.json#/components`,
      ),
    ) as Json;
    refs.set(key, made);
  }
  return made;
};

/** The documented error object of either document. */
const errorSchema = (api: Api): Json =>
  api.name === "native" ? { $ref: "#/components/schemas/Error" } : { $ref: "#/components/schemas/exception" };

/** Problems with one exchange (empty when it keeps to its document). */
export async function checkExchange(x: Exchange): Promise<string[]> {
  const url = new URL(x.url);
  const found = apiFor(url.pathname);
  if (!found) return [];
  const { api } = found;
  const what = `${x.method} ${url.pathname}${url.search} → ${x.status}`;
  const template = api.paths.find(
    (p) => (!found.folded || p.match.ignoreCase) && p.match.test(found.path),
  )?.template;
  const item: Json | undefined = template ? api.doc.paths[template] : undefined;
  const body = await x.body;
  const problems: string[] = [];
  const errorBody = (status: number) => {
    if (x.status !== status) problems.push(`${what}: expected ${status}`);
    else if (x.method !== "HEAD")
      problems.push(
        ...checkBody(
          api,
          what,
          x,
          { "application/json": { schema: errorSchema(api) }, "text/html": {} },
          body,
        ),
      );
  };
  if (x.method === "OPTIONS") {
    if (x.status !== 204 || x.headers.get("access-control-allow-origin") !== "*")
      problems.push(`${what}: a preflight is a 204 allowing any origin`);
    return problems;
  }
  if (!item) {
    errorBody(404);
    return problems;
  }
  const operation: Json | undefined = item[x.method === "HEAD" ? "get" : x.method.toLowerCase()];
  if (!operation) {
    errorBody(405);
    if (!x.headers.get("allow")) problems.push(`${what}: a 405 names the allowed methods (Allow)`);
    return problems;
  }
  const response: Json | undefined = operation.responses[String(x.status)];
  if (!response) return [`${what}: status not documented for ${api.name} ${x.method} ${template}`];
  for (const [name, declared] of Object.entries<Json>(response.headers ?? {})) {
    const header = declared.$ref ? resolveRef(api, declared.$ref) : declared;
    const value = x.headers.get(name);
    if (value === null) {
      if (header.required) problems.push(`${what}: required header ${name} missing`);
    } else if (header.schema && !api.ajv.validate(ref(api, header.schema), value)) {
      problems.push(`${what}: header ${name}: ${value}: ${api.ajv.errorsText()}`);
    }
  }
  if (x.method === "HEAD" || x.status === 304) {
    if (body) problems.push(`${what}: no body expected`);
  } else problems.push(...checkBody(api, what, x, response.content ?? {}, body));
  return problems;
}

const resolveRef = (api: Api, pointer: string): Json =>
  pointer
    .replace(/^#\//, "")
    .split("/")
    .reduce<Json>((node, key) => node?.[key], api.doc);

/** The body's media type is one the response declares, and a JSON body matches its schema. */
function checkBody(api: Api, what: string, x: Exchange, content: Json, body: string | undefined): string[] {
  const contentType = x.headers.get("content-type");
  if (!body) return Object.keys(content).length ? [`${what}: a body was expected`] : [];
  if (!contentType) return [`${what}: a body without Content-Type`];
  const actual = contentType
    .split(";")
    .map((s) => s.trim().toLowerCase())
    .filter((s) => !s.startsWith("charset="));
  const key = Object.keys(content).find((k) => {
    const declared = k.split(";").map((s) => s.trim().toLowerCase());
    return declared[0] === actual[0] && declared.slice(1).every((p) => actual.includes(p));
  });
  if (!key) return [`${what}: Content-Type ${contentType} not among ${Object.keys(content).join(", ")}`];
  if (actual[0] === "text/html") return /^<!doctype html>/i.test(body) ? [] : [`${what}: not an HTML page`];
  const schema = content[key].schema;
  if (!schema || !/json/.test(actual[0]!)) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [`${what}: ${key} body is not JSON`];
  }
  return api.ajv.validate(ref(api, schema), parsed)
    ? []
    : [`${what}: body: ${api.ajv.errorsText(api.ajv.errors, { dataVar: "body" })}`];
}

/** Checks every exchange recorded so far (and forgets them): the problems, at most a few per kind. */
export async function checkRecorded(): Promise<{ checked: number; problems: string[] }> {
  const exchanges = takeRecorded();
  const problems = new Set<string>();
  for (const x of exchanges) for (const p of await checkExchange(x)) problems.add(p);
  return { checked: exchanges.length, problems: [...problems].slice(0, 50) };
}
