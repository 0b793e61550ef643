import {
  type DocumentNode,
  type ExecutionResult,
  execute,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  getArgumentValues,
  getOperationAST,
  getVariableValues,
  Kind,
  type OperationDefinitionNode,
  parse,
  type SelectionSetNode,
  specifiedRules,
  validate,
} from "graphql/index.mjs";
import * as v from "valibot";
import { BoundedMap } from "../cache/bounded-map.js";
import { readJsonBody } from "../http/body.js";
import { ApiError, badParameter } from "../http/errors.js";
import { parseQuery } from "../http/query.js";
import { requestUrl } from "../http/request-url.js";
import { bytesResponse, listBytes, textResponse } from "../http/respond.js";
import { limitErrors, MAX_TOKENS } from "./limits.js";
import { ARGUMENT_CHECKS, type GraphQLContext, type Splice, schema } from "./schema.js";

/**
 * GraphQL over HTTP (the GraphQL foundation's specification, draft of 2025): GET for queries (parameters in the
 * URL), POST with a JSON body; answers in application/graphql-response+json or application/json as Accept asks.
 *
 * Status codes: a well-formed request that GraphQL refuses (syntax, validation, variables, a limit, a filter value)
 * is a "request error": 400 in application/graphql-response+json; 200 in application/json, as the specification
 * asks of that legacy type (older clients read no body of another status). GraphQL errors carry the service's code
 * (lib/http/errors.ts) in `extensions.code` and, for a bad value, the argument (`extensions.parameter`:
 * `filter.bbox`, `first`, …). What is not a GraphQL request at all (an unknown parameter, a body that is not JSON or
 * too large, another media type, an Accept without a JSON type), a database outage and anything unexpected are
 * thrown to route(), and answered as on every endpoint: the service's error object (4xx, 503 with Retry-After, or a
 * generic 500).
 */

export const GRAPHQL_RESPONSE = "application/graphql-response+json";
const JSON_MEDIA = "application/json";
type Media = typeof GRAPHQL_RESPONSE | typeof JSON_MEDIA;

/** Documents and variables are small; a body near this is a mistake or an attack. */
export const MAX_BODY_BYTES = 64 * 1024;

const describe = <S extends v.GenericSchema>(schema: S, description: string) =>
  v.optional(v.pipe(schema, v.description(description)));

/** The GraphQL-over-HTTP parameters of a GET; any other is a 400 naming it. */
export const GET_PARAMS = {
  query: describe(v.string(), "The GraphQL document (a query)"),
  operationName: describe(v.string(), "Which operation of the document to run"),
  variables: describe(v.string(), "The variables, as a JSON object"),
  extensions: describe(v.string(), "Extensions, as a JSON object (none are used)"),
};

const jsonObject = v.nullish(v.record(v.string(), v.unknown(), "must be a JSON object"));
const POST_BODY = v.strictObject(
  {
    query: v.string("query must be a string holding the GraphQL document"),
    operationName: v.nullish(v.string("operationName must be a string")),
    variables: jsonObject,
    extensions: jsonObject,
  },
  "the body must be a JSON object of query and, optionally, operationName, variables and extensions",
);

type Params = {
  query: string;
  operationName?: string | null | undefined;
  variables?: Record<string, unknown> | null | undefined;
};

/** The media type to answer in, or undefined when Accept admits neither (a 406). */
export function acceptedMedia(request: Request): Media | undefined {
  const accept = request.headers.get("accept");
  if (!accept?.trim()) return JSON_MEDIA;
  let best: { media: Media; q: number } | undefined;
  for (const range of accept.toLowerCase().split(",")) {
    const [type = "", ...params] = range.split(";").map((s) => s.trim());
    const qParam = params.find((p) => p.startsWith("q="));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    const charset = params.find((p) => p.startsWith("charset="));
    if (!(q > 0) || (charset && !/^charset="?utf-?8"?$/.test(charset))) continue;
    const media: Media | undefined =
      type === GRAPHQL_RESPONSE
        ? GRAPHQL_RESPONSE
        : type === JSON_MEDIA || type === "application/*" || type === "*/*"
          ? JSON_MEDIA
          : undefined;
    // The first listed wins a tie, as the client ordered them.
    if (media && (!best || q > best.q)) best = { media, q };
  }
  return best?.media;
}

function getParams(request: Request): Params {
  const q = parseQuery(request, GET_PARAMS);
  if (q.query === undefined)
    throw new ApiError(400, "MissingParameter", "query is required: the GraphQL document", {
      parameter: "query",
    });
  const variables = jsonObjectParam("variables", q.variables);
  jsonObjectParam("extensions", q.extensions);
  return { query: q.query, operationName: q.operationName, variables };
}

/** A GET parameter holding a JSON object (variables, extensions), parsed; a 400 naming it otherwise. */
function jsonObjectParam(name: string, text: string | undefined): Record<string, unknown> | null | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined; // not JSON: refused below, as any value that is no object
  }
  if (value !== null && (typeof value !== "object" || Array.isArray(value)))
    throw badParameter(name, `${name} must be a JSON object`);
  return value as Record<string, unknown> | null;
}

async function postParams(request: Request): Promise<Params> {
  parseQuery(request, {});
  const [type = "", ...params] = (request.headers.get("content-type") ?? "")
    .toLowerCase()
    .split(";")
    .map((s) => s.trim());
  const charset = params.find((p) => p.startsWith("charset="));
  if (type !== JSON_MEDIA || (charset && !/^charset="?utf-?8"?$/.test(charset))) {
    throw new ApiError(
      415,
      "UnsupportedMediaType",
      "A GraphQL POST must send its request as application/json (UTF-8)",
      { parameter: "content-type", headers: { "accept-post": "application/json" } },
    );
  }
  return (await readJsonBody(request, { maxBytes: MAX_BODY_BYTES, required: true, schema: POST_BODY }))!;
}

/** The GraphQL error of a refused value (an ApiError thrown by a check), at the field that took it. */
const argumentError = (error: ApiError, node: FieldNode) =>
  new GraphQLError(error.message, {
    nodes: node,
    extensions: { code: error.code, ...(error.extra.parameter ? { parameter: error.extra.parameter } : {}) },
  });

/**
 * The root fields' argument values checked by the native validators before anything runs, so that a bad filter is
 * a request error naming the argument, as on the native list, and never half an answer.
 */
function argumentErrors(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): GraphQLError[] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const fields = schema.getQueryType()!.getFields();
  const errors: GraphQLError[] = [];
  const visit = (set: SelectionSetNode, seen: Set<string>) => {
    for (const s of set.selections) {
      if (s.kind === Kind.INLINE_FRAGMENT) visit(s.selectionSet, seen);
      else if (s.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(s.name.value);
        if (fragment && !seen.has(s.name.value))
          visit(fragment.selectionSet, new Set([...seen, s.name.value]));
      } else {
        const check = Object.hasOwn(ARGUMENT_CHECKS, s.name.value)
          ? ARGUMENT_CHECKS[s.name.value]
          : undefined;
        const definition = fields[s.name.value];
        if (!check || !definition) continue;
        try {
          check(getArgumentValues(definition, s, variables));
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          errors.push(argumentError(error, s));
        }
      }
    }
  };
  visit(operation.selectionSet, new Set());
  return errors;
}

type Outcome =
  | { requestError: true; errors: readonly GraphQLError[] }
  | { requestError: false; result: ExecutionResult; splices: Splice[] };

const refused = (errors: readonly GraphQLError[], code: string): Outcome => ({
  requestError: true,
  errors: errors.map((e) =>
    e.extensions.code ? e : new GraphQLError(e.message, { nodes: e.nodes, extensions: { code } }),
  ),
});

/**
 * A document parsed and validated, or why not: kept by its text, as a client sends the same few documents again and
 * again (with other variables), and both steps depend on nothing else. Bounded: documents are the client's.
 */
const documents = new BoundedMap<string, DocumentNode | Outcome>(200);
/** Documents of this size are kept; a longer one (a generated document, an attack) is checked each time. */
const MAX_KEPT_DOCUMENT = 8 * 1024;

function checkedDocument(query: string): DocumentNode | Outcome {
  const known = documents.get(query);
  if (known) return known;
  let checked: DocumentNode | Outcome;
  try {
    const document = parse(query, { maxTokens: MAX_TOKENS });
    const invalid = validate(schema, document, specifiedRules);
    checked = invalid.length ? refused(invalid, "InvalidQuery") : document;
  } catch (error) {
    if (!(error instanceof GraphQLError)) throw error;
    const tooLong = /contains more th\w+ \d+ tokens/i.test(error.message);
    checked = tooLong
      ? refused(
          [
            new GraphQLError(`The document exceeds the token limit of ${MAX_TOKENS}`, {
              extensions: { code: "QueryTooComplex", limit: "tokens", max: MAX_TOKENS },
            }),
          ],
          "QueryTooComplex",
        )
      : refused([error], "InvalidQuery");
  }
  if (query.length <= MAX_KEPT_DOCUMENT) documents.set(query, checked);
  return checked;
}

/** Parse and validate (once per document), coerce the variables, check the limits and the arguments, execute. */
async function run(params: Params, request: Request): Promise<Outcome> {
  const document = checkedDocument(params.query);
  if ("requestError" in document) return document;
  const operation = getOperationAST(document, params.operationName ?? undefined);
  if (!operation) {
    const message = params.operationName
      ? `No operation named "${params.operationName}" in the document`
      : "The document holds several operations: name one in operationName";
    return refused(
      [new GraphQLError(message, { extensions: { code: "InvalidQuery", parameter: "operationName" } })],
      "InvalidQuery",
    );
  }
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], params.variables ?? {});
  if (coerced.errors) return refused(coerced.errors, "InvalidQuery");
  const limited = limitErrors(document, operation, coerced.coerced);
  if (limited.length) return refused(limited, "QueryTooComplex");
  const bad = argumentErrors(document, operation, coerced.coerced);
  if (bad.length) return refused(bad, "InvalidParameterValue");
  const contextValue: GraphQLContext = { request, splices: [] };
  const result = await execute({
    schema,
    document,
    operationName: params.operationName,
    variableValues: params.variables,
    contextValue,
  });
  for (const error of result.errors ?? []) {
    const original = error.originalError;
    // Not a GraphQL error (an outage, a bug): the service's own 503 or 500, from route().
    if (original && !(original instanceof GraphQLError) && !(original instanceof ApiError)) throw original;
  }
  return { requestError: false, result, splices: contextValue.splices };
}

/** A GraphQL error as the response carries it: its message, where, and the service's code (and argument). */
function formatted(error: GraphQLError) {
  const original = error.originalError;
  const json = error.toJSON();
  if (original instanceof ApiError) {
    return {
      ...json,
      message: original.message,
      extensions: {
        code: original.code,
        ...(original.extra.parameter ? { parameter: original.extra.parameter } : {}),
      },
    };
  }
  return json;
}

/**
 * A GraphQL answer (a value, or its JSON text) in the negotiated media type. Only a GET's answer may be cached and
 * revalidated, so only a GET's bytes are hashed for an ETag.
 */
function respond(body: unknown, status: number, media: Media, method: string) {
  return textResponse(typeof body === "string" ? body : JSON.stringify(body), init(status, media, method));
}

const init = (status: number, media: Media, method: string) => ({
  status,
  contentType: `${media}; charset=utf-8`,
  ...(method === "GET" || method === "HEAD" ? {} : { headers: { etag: "" } }),
});

/** GET or POST /graphql: one GraphQL request, answered as the GraphQL-over-HTTP specification says. */
export async function graphqlResponse(request: Request): Promise<Response> {
  const media = acceptedMedia(request);
  if (!media) {
    throw new ApiError(
      406,
      "NotAcceptable",
      `Accept admits neither ${GRAPHQL_RESPONSE} nor ${JSON_MEDIA} (UTF-8): the media types of GraphQL responses`,
    );
  }
  const params = request.method === "POST" ? await postParams(request) : getParams(request);
  const outcome = await run(params, request);
  if (outcome.requestError) {
    return respond(
      { errors: outcome.errors.map(formatted) },
      media === GRAPHQL_RESPONSE ? 400 : 200,
      media,
      request.method,
    );
  }
  const { data, errors } = outcome.result;
  const body = errors?.length ? { errors: errors.map(formatted), data } : { data };
  return withSplices(body, data, outcome.splices, media, request.method);
}

/**
 * The answer, with each spliced page's proofs (JSON texts PostgreSQL wrote) where graphql-js left its empty list: a
 * marker serialises as a string no data can hold (PostgreSQL's text never holds NUL), which is then replaced.
 */
function withSplices(
  body: unknown,
  data: Record<string, unknown> | null | undefined,
  splices: Splice[],
  media: Media,
  method: string,
): Response {
  const placed: Splice[] = [];
  for (const splice of splices) {
    let holder: unknown = data;
    for (const key of splice.path.slice(0, -1)) holder = (holder as Record<string, unknown> | null)?.[key];
    const key = splice.path.at(-1)!;
    if (!holder || typeof holder !== "object" || !Array.isArray((holder as Record<string, unknown>)[key]))
      continue;
    const marker = markerOf(placed.length);
    (holder as Record<string | number, unknown>)[key] = { toJSON: () => marker };
    placed.push(splice);
  }
  const text = JSON.stringify(body);
  if (placed.length === 0) return respond(text, 200, media, method);
  if (placed.length === 1) {
    const [head, tail] = text.split(JSON.stringify(markerOf(0))) as [string, string];
    return bytesResponse(listBytes(`${head}[`, placed[0]!.texts, `]${tail}`), {
      contentType: `${media}; charset=utf-8`,
    });
  }
  let spliced = text;
  placed.forEach((splice, i) => {
    spliced = spliced.replace(JSON.stringify(markerOf(i)), () => `[${splice.texts.join(",")}]`);
  });
  return respond(spliced, 200, media, method);
}

const markerOf = (i: number) => `\u0000splice:${i}\u0000`;

/** Whether a GET asks for a GraphQL answer at all (a query), rather than the page for people. */
export const asksQuery = (request: Request) => requestUrl(request).searchParams.has("query");
