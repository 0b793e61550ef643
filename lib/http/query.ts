import * as v from "valibot";
import { ApiError, badParameter, unknownParameter } from "./errors.js";
import { requestUrl } from "./request-url.js";

type Entries = Record<string, v.GenericSchema>;

/**
 * Parses a request's query string against a valibot object schema whose keys are the allowed parameters.
 * Unknown parameters and repeated parameters are 400s naming them: nothing is silently ignored.
 * `routeParams` are the dynamic path segments, which Vercel passes as query parameters; they are skipped here.
 */
export function parseQuery<const E extends Entries>(
  request: Request,
  entries: E,
  options: { routeParams?: readonly string[] } = {},
): v.InferOutput<v.ObjectSchema<E, undefined>> {
  const url = requestUrl(request);
  const allowed = Object.keys(entries);
  const skip = new Set(options.routeParams ?? []);
  const raw: Record<string, string> = {};
  for (const key of new Set(url.searchParams.keys())) {
    if (skip.has(key)) continue;
    if (!Object.hasOwn(entries, key)) throw unknownParameter(key, allowed);
    const values = url.searchParams.getAll(key);
    if (values.length > 1) throw badParameter(key, `Parameter '${key}' must be given at most once`);
    raw[key] = values[0]!;
  }
  return parseEntries(raw, entries);
}

/**
 * Parses named string values against the entries, as a query string's (parseQuery) are: the first problem is a 400
 * naming its parameter. Other ways to ask (the MCP tools: lib/mcp/) hand their arguments here, so that a value is
 * taken or refused the same way whichever way it came.
 */
export function parseEntries<const E extends Entries>(
  raw: Record<string, string>,
  entries: E,
): v.InferOutput<v.ObjectSchema<E, undefined>> {
  const result = v.safeParse(v.object(entries), raw);
  if (result.success) return result.output;
  const issue = result.issues[0];
  const key = issue.path?.[0]?.key;
  const parameter = typeof key === "string" ? key : "query";
  throw badParameter(
    parameter,
    issue.message.startsWith(parameter) ? issue.message : `${parameter}: ${issue.message}`,
  );
}

/** A dynamic path segment: Vercel passes it as a query parameter; otherwise it is the path's last segment. */
export function routeParam(request: Request, name: string): string {
  const url = requestUrl(request);
  const fromQuery = url.searchParams.get(name);
  if (fromQuery !== null) return fromQuery;
  const last = url.pathname.split("/").filter(Boolean).pop();
  if (last === undefined) throw new ApiError(400, "MissingParameter", `Missing path parameter '${name}'`);
  try {
    return decodeURIComponent(last);
  } catch {
    throw badParameter(name, `Path parameter '${name}' is not valid percent-encoding`);
  }
}
