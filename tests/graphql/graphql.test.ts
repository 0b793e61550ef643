import { getIntrospectionQuery } from "graphql";
import { auditServer } from "graphql-http";
import { ClientError, GraphQLClient, gql } from "graphql-request";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setDatabase } from "../../db/client.js";
import type { NewLocationProofRow } from "../../db/schema.js";
import { camelCase } from "../../lib/graphql/proof-type.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { PROOF_PROPERTIES } from "../../lib/proofs/properties.js";
import { LIST_PARAMS } from "../../lib/v0/list-params.js";
import { createTestApp, TEST_BASE, type TestApp } from "../helpers/app.js";

/**
 * GraphQL at /graphql through the real routing (vercel.json's rewrite onto api/graphql), spoken to by outside
 * clients: graphql-request (a GraphQL client library) and graphql-http's audit of the GraphQL-over-HTTP
 * specification. Answers are held to the native API's over the same data: the same list, count, stats and proof,
 * the same filter vocabulary and the same refusals.
 */
let app: TestApp;
let rows: NewLocationProofRow[];
let client: GraphQLClient;

/** fetch() onto the router (no network): what a client on the same origin sends, the router answers. */
const routedFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
  const request = new Request(input, init);
  const url = new URL(request.url);
  return app.request(`${url.pathname}${url.search}`, {
    method: request.method,
    headers: request.headers,
    ...(request.method === "GET" || request.method === "HEAD" ? {} : { body: await request.text() }),
  });
}) as typeof fetch;

const ENDPOINT = `${TEST_BASE}/graphql`;

beforeAll(async () => {
  app = await createTestApp({ CHAINS: "devnet,sepolia,base" });
  rows = sampleProofs({ count: 80, seed: 21, days: 60 });
  await insertProofs(app.db, rows);
  client = new GraphQLClient(ENDPOINT, { fetch: routedFetch });
});
afterAll(() => app.close());

/** The native record in GraphQL's names. */
const camel = (record: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(record).map(([k, v]) => [camelCase(k), v]));

/** Every field of a proof: the catalogue's properties, in GraphQL's names. */
const ALL_FIELDS = PROOF_PROPERTIES.map((q) => camelCase(q.name)).join(" ");

const LIST = gql`
  query List($filter: LocationProofFilter, $first: Int, $after: String) {
    locationProofs(filter: $filter, first: $first, after: $after) {
      totalCount
      pageInfo { hasNextPage hasPreviousPage endCursor }
      nodes { ${ALL_FIELDS} }
    }
  }
`;

type ListAnswer = {
  locationProofs: {
    totalCount: number;
    pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; endCursor: string | null };
    nodes: Record<string, unknown>[];
  };
};

/** The native list for the same filters, as query parameters. */
async function nativeList(params: Record<string, string>) {
  const res = await app.get(`/api/v0/location-proofs?${new URLSearchParams(params)}`);
  expect(res.status).toBe(200);
  return res.body as { data: Record<string, unknown>[]; pagination: { total: number; next: string | null } };
}

describe("the schema", () => {
  it("is introspectable, and its filter is the native list's parameters but paging, order and format", async () => {
    const data = await client.request<{
      __schema: { types: { name: string; inputFields: { name: string }[] | null }[] };
    }>(getIntrospectionQuery());
    const filter = data.__schema.types.find((t) => t.name === "LocationProofFilter")!;
    const expected = Object.keys(LIST_PARAMS).filter(
      (k) => !["limit", "offset", "cursor", "sort", "f"].includes(k),
    );
    expect(filter.inputFields!.map((f) => f.name)).toEqual(expected);
    const proof = data.__schema.types.find((t) => t.name === "LocationProof") as unknown as {
      fields: { name: string }[];
    };
    expect(proof.fields.map((f) => f.name).join(" ")).toBe(`${ALL_FIELDS} truncated`);
  });
});

describe("the same answers as the native API", () => {
  const filters: { graphql: Record<string, unknown>; native: Record<string, string> }[] = [
    { graphql: {}, native: {} },
    { graphql: { chain: ["sepolia", "base"] }, native: { chain: "sepolia,base" } },
    {
      graphql: { chain: "devnet", includeRevoked: true },
      native: { chain: "devnet", includeRevoked: "true" },
    },
    { graphql: { bbox: "-10,35,30,60" }, native: { bbox: "-10,35,30,60" } },
    { graphql: { bbox: "170,-60,-170,60" }, native: { bbox: "170,-60,-170,60" } },
    {
      graphql: { filter: "hasCoordinates", datetime: "../2100-01-01" },
      native: { filter: "hasCoordinates", datetime: "../2100-01-01" },
    },
  ];

  it("a page equal to the native list for the same filters, with its total", async () => {
    for (const { graphql, native } of filters) {
      const answer = await client.request<ListAnswer>(LIST, { filter: graphql, first: 20 });
      const expected = await nativeList({ ...native, limit: "20" });
      expect(answer.locationProofs.nodes, JSON.stringify(graphql)).toEqual(expected.data.map(camel));
      expect(answer.locationProofs.totalCount).toBe(expected.pagination.total);
      expect(answer.locationProofs.pageInfo.hasNextPage).toBe(expected.pagination.next !== null);
    }
  });

  it("any selection of a proof's fields answers the same values: aliases, fragments, __typename, directives", async () => {
    const expected = (await nativeList({ limit: "6", chain: "sepolia" })).data.map(camel);
    const pick = (r: Record<string, unknown>) => ({
      id: r.uid,
      __typename: "LocationProof",
      when: r.eventTimestamp,
      geometry: r.geometry,
      bbox: r.bbox,
      chainId: r.chainId,
    });
    const filter = { chain: "sepolia" };
    // A plain selection (PostgreSQL writes each proof's answer), with a fragment and an inline fragment.
    const plain = await client.request<{ locationProofs: { nodes: unknown[] } }>(
      gql`query($f: LocationProofFilter) { locationProofs(filter: $f, first: 6) { nodes { id: uid __typename ...W ... on LocationProof { geometry bbox } chainId id: uid } } }
        fragment W on LocationProof { when: eventTimestamp }`,
      { f: filter },
    );
    expect(plain.locationProofs.nodes).toEqual(expected.map(pick));
    expect(Object.keys(plain.locationProofs.nodes[0] as object)).toEqual([
      "id",
      "__typename",
      "when",
      "geometry",
      "bbox",
      "chainId",
    ]);
    // With a directive, and with two lists of proofs: graphql-js executes them over the native records.
    const directive = await client.request<{ locationProofs: { nodes: unknown[] } }>(
      gql`query($f: LocationProofFilter, $yes: Boolean!) { locationProofs(filter: $f, first: 6) { nodes { id: uid __typename when: eventTimestamp @include(if: $yes) geometry bbox chainId memo @skip(if: $yes) } } }`,
      { f: filter, yes: true },
    );
    expect(directive.locationProofs.nodes).toEqual(expected.map(pick));
    const two = await client.request<{ locationProofs: { a: { uid: unknown }[]; b: { chain: unknown }[] } }>(
      gql`query($f: LocationProofFilter) { locationProofs(filter: $f, first: 6) { a: nodes { uid } b: nodes { chain } } }`,
      { f: filter },
    );
    expect(two.locationProofs.a).toEqual(expected.map((r) => ({ uid: r.uid })));
    expect(two.locationProofs.b).toEqual(expected.map((r) => ({ chain: r.chain })));
    // Two pages in one request, each in its place.
    const pages = await client.request<Record<string, { nodes: { uid: unknown }[] }>>(
      gql`{ p: locationProofs(first: 2, filter: { chain: "sepolia" }) { nodes { uid } } q: locationProofs(first: 3, filter: { chain: "base" }) { totalCount nodes { uid } } }`,
    );
    expect(pages.p!.nodes).toEqual(expected.slice(0, 2).map((r) => ({ uid: r.uid })));
    const base = (await nativeList({ limit: "3", chain: "base" })).data;
    expect(pages.q!.nodes).toEqual(base.map((r) => ({ uid: r.uid })));
  });

  it("pages by cursor through the whole list, as the native next links do (and takes their cursors)", async () => {
    const seen: unknown[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const answer: ListAnswer = await client.request<ListAnswer>(LIST, {
        filter: { includeRevoked: true },
        first: 7,
        after,
      });
      seen.push(...answer.locationProofs.nodes.map((n) => n.uid));
      expect(answer.locationProofs.pageInfo.hasPreviousPage).toBe(pages > 0);
      after = answer.locationProofs.pageInfo.endCursor;
      pages++;
    } while (after && pages < 50);
    const all = await nativeList({ includeRevoked: "true", limit: "1000" });
    expect(seen).toEqual(all.data.map((r) => r.uid));
    // A native next link's cursor is an `after`.
    const first = await nativeList({ includeRevoked: "true", limit: "7" });
    const cursor = new URL(first.pagination.next!).searchParams.get("cursor");
    const next = await client.request<ListAnswer>(LIST, {
      filter: { includeRevoked: true },
      first: 7,
      after: cursor,
    });
    expect(next.locationProofs.nodes.map((n) => n.uid)).toEqual(all.data.slice(7, 14).map((r) => r.uid));
  });

  it("one proof by uid (any case), null for an unknown one; the count and the stats", async () => {
    const uid = rows.find((r) => r.revoked)!.uid;
    const one = await client.request<{ locationProof: Record<string, unknown> | null }>(
      gql`query One($uid: String!) { locationProof(uid: $uid) { ${ALL_FIELDS} } }`,
      { uid: uid.toUpperCase().replace("0X", "0x") },
    );
    expect(one.locationProof).toEqual(camel((await app.get(`/api/v0/location-proofs/${uid}`)).body));
    const none = await client.request<{ locationProof: unknown }>(
      gql`{ locationProof(uid: "0x${"ab".repeat(32)}") { uid } }`,
    );
    expect(none.locationProof).toBeNull();

    const counts = await client.request<{ all: number; base: number }>(gql`
      { all: locationProofsCount(filter: { includeRevoked: true }) base: locationProofsCount(filter: { chain: "base" }) }
    `);
    expect(counts.all).toBe((await nativeList({ includeRevoked: "true", limit: "1" })).pagination.total);
    expect(counts.base).toBe((await nativeList({ chain: "base", limit: "1" })).pagination.total);

    const stats = await client.request<{ locationProofsStats: Record<string, any> }>(gql`
      { locationProofsStats { total revoked active withCoordinates last24h last7d last30d earliestEvent latestEvent
          byChain { chain chainId total revoked active withCoordinates last24h last7d last30d earliestEvent latestEvent }
          bySchema { schemaUid total revoked active withCoordinates }
          byProtocolVersion { protocolVersion total revoked active withCoordinates } } }
    `);
    const native = (await app.get("/api/v0/location-proofs/stats")).body;
    // The native stats also count off-chain publications (lib/offchain/), which GraphQL does not serve yet.
    const { by_chain, by_schema, by_protocol_version, publications, ...overall } = native;
    expect(publications).toMatchObject({ total: expect.any(Number) });
    expect(stats.locationProofsStats).toMatchObject(camel(overall));
    expect(stats.locationProofsStats.bySchema).toEqual(
      Object.entries(by_schema as Record<string, Record<string, unknown>>).map(([schemaUid, c]) => ({
        schemaUid,
        ...camel(c),
      })),
    );
    expect(stats.locationProofsStats.byProtocolVersion).toEqual(
      Object.entries(by_protocol_version as Record<string, Record<string, unknown>>).map(
        ([protocolVersion, c]) => ({
          protocolVersion,
          ...camel(c),
        }),
      ),
    );
    expect(stats.locationProofsStats.byChain).toEqual(
      Object.entries(by_chain as Record<string, Record<string, unknown>>).map(([chain, c]) => ({
        chain,
        ...camel(c),
      })),
    );
  });
});

/** The GraphQL errors of a refused request, with its HTTP status. */
async function refusal(query: string, variables?: Record<string, unknown>) {
  try {
    await client.request(query, variables);
  } catch (error) {
    if (!(error instanceof ClientError)) throw error;
    return { status: error.response.status, errors: error.response.errors ?? [] };
  }
  throw new Error("the request was not refused");
}

describe("refusals: the native rules and messages, naming the argument", () => {
  it("near and radius filter as natively (the same validators; the distance is the REST records' own)", async () => {
    const [lon, lat] = [rows[0]!.longitude ?? 0, rows[0]!.latitude ?? 0];
    const filter = { near: `${lon},${lat}`, radius: 2_000_000 };
    const answer = await client.request<ListAnswer>(LIST, { filter, first: 20 });
    const expected = await nativeList({ near: filter.near, radius: String(filter.radius), limit: "20" });
    expect(expected.data.length).toBeGreaterThan(0);
    expect(answer.locationProofs.nodes).toEqual(
      expected.data.map(({ distance: _, ...r }: Record<string, unknown>) => camel(r)),
    );
    expect(answer.locationProofs.totalCount).toBe(expected.pagination.total);
    for (const [given, parameter] of [
      [{ radius: 5 }, "filter.radius"],
      [{ near: "1,2" }, "filter.near"],
      [{ near: "1,95", radius: 5 }, "filter.near"],
      [{ near: "1,2", radius: 0 }, "filter.radius"],
    ] as const) {
      const { status, errors } = await refusal(LIST, { filter: given });
      expect(status).toBe(400);
      expect(errors[0]!.extensions).toMatchObject({ parameter });
    }
  });

  it("a bad filter value is a request error (400) with the native message", async () => {
    for (const [bbox, parameter] of [
      ["1,2,3", "bbox"],
      ["0,95,1,96", "bbox"],
    ] as const) {
      const native = await app.get(`/api/v0/location-proofs?${parameter}=${bbox}`);
      const { status, errors } = await refusal(LIST, { filter: { bbox } });
      expect(status).toBe(400);
      expect(errors[0]).toMatchObject({
        message: native.body.message,
        extensions: { code: "InvalidParameterValue", parameter: `filter.${parameter}` },
      });
    }
    const prover = await refusal(gql`{ locationProofsCount(filter: { prover: "0x12" }) }`);
    expect(prover.errors[0]!.extensions).toEqual({
      code: "InvalidParameterValue",
      parameter: "filter.prover",
    });
    const chain = await refusal(LIST, { filter: { chain: ["base", "moon"] } });
    expect(chain.errors[0]!.message).toMatch(/chain must be one or more of/);
    const first = await refusal(LIST, { first: 5000 });
    expect(first.errors[0]).toMatchObject({
      message: "first must be at most 1000",
      extensions: { parameter: "first" },
    });
    const after = await refusal(LIST, { after: "garbage" });
    expect(after.errors[0]!.extensions).toMatchObject({ parameter: "after" });
    const uid = await refusal(gql`{ locationProof(uid: "0x1") { uid } }`);
    expect(uid.errors[0]!.extensions).toMatchObject({ parameter: "uid" });
  });

  it("a document that does not fit the schema, or bad variables: InvalidQuery", async () => {
    const unknownFilter = await refusal(gql`{ locationProofsCount(filter: { planet: "mars" }) }`);
    expect(unknownFilter.status).toBe(400);
    expect(unknownFilter.errors[0]!.extensions).toMatchObject({ code: "InvalidQuery" });
    const syntax = await refusal("{ locationProofs( }");
    expect(syntax.errors[0]!.message).toMatch(/Syntax Error/);
    const variables = await refusal(LIST, { first: "ten" });
    expect(variables.errors[0]!.message).toMatch(/\$first/);
  });

  it("application/json (legacy): the same errors with 200, as the specification asks", async () => {
    const res = await app.request("/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ query: '{ locationProofsCount(filter: { bbox: "1" }) }' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const body = (await res.json()) as { data?: unknown; errors: { extensions: unknown }[] };
    expect(body.data).toBeUndefined();
    expect(body.errors[0]!.extensions).toMatchObject({ parameter: "filter.bbox" });
  });
});

describe("limits, each named", () => {
  it("depth", async () => {
    let nested = "name";
    for (let i = 0; i < 11; i++) nested = `ofType { ${nested} }`;
    const deep = `{ __schema { types { fields { type { ${nested} } } } } }`;
    const { status, errors } = await refusal(deep);
    expect(status).toBe(400);
    expect(errors[0]).toMatchObject({
      message: expect.stringMatching(/depth limit of 15/),
      extensions: { code: "QueryTooComplex", limit: "depth", max: 15, actual: 16 },
    });
    // The standard introspection query stays within it.
    await expect(client.request(getIntrospectionQuery())).resolves.toBeTruthy();
  });

  it("cost: every field answered, a page's fields once per proof it may hold, variables included", async () => {
    // Every field of a proof on the largest page is within the limit (the native API's largest page)…
    await expect(
      client.request(
        `{ locationProofs(first: 1000) { totalCount nodes { ${ALL_FIELDS} } } locationProofsCount locationProofsStats { total } }`,
      ),
    ).resolves.toBeTruthy();
    // …and the same fields under a second name each are not: the answer would be twice that page.
    const twice = PROOF_PROPERTIES.map((q) => `again_${q.name}: ${camelCase(q.name)}`).join(" ");
    const { status, errors } = await refusal(
      `query($n: Int) { locationProofs(first: $n) { nodes { ${ALL_FIELDS} ${twice} } } }`,
      { n: 1000 },
    );
    expect(status).toBe(400);
    const max = 1000 * PROOF_PROPERTIES.length + 1000;
    expect(errors[0]).toMatchObject({
      message: expect.stringMatching(new RegExp(`cost limit of ${max}`)),
      extensions: {
        code: "QueryTooComplex",
        limit: "cost",
        max,
        actual: 10 + 1 + 1 + 2000 * PROOF_PROPERTIES.length,
      },
    });
    // A page's size counts as its default when not given, and a small page leaves room for more fields.
    await expect(
      client.request(`{ locationProofs(first: 10) { nodes { ${ALL_FIELDS} ${twice} } } }`),
    ).resolves.toBeTruthy();
  });

  it("aliases: one field under more than a few names in one selection is refused, at the root too", async () => {
    // The wide query: one proof's geometry under 1,500 names, on the largest page (12.7 MB on the devnet).
    const wide = Array.from({ length: 1500 }, (_, i) => `a${i}: geometry`).join(" ");
    const { status, errors } = await refusal(`{ locationProofs(first: 1000) { nodes { ${wide} } } }`);
    expect(status).toBe(400);
    expect(errors[0]).toMatchObject({
      message: expect.stringMatching(/'geometry' is selected under 1500 names/),
      extensions: { code: "QueryTooComplex", limit: "aliases", max: 4, actual: 1500, field: "geometry" },
    });
    // A hundred reads in one request (each cheap) are refused the same way.
    const lookups = Array.from({ length: 111 }, (_, i) => `u${i}: locationProofsStats { total }`).join(" ");
    expect((await refusal(`{ ${lookups} }`)).errors[0]!.extensions).toMatchObject({
      limit: "aliases",
      field: "locationProofsStats",
      actual: 111,
    });
    // Four names are allowed.
    const four = Array.from({ length: 4 }, (_, i) => `g${i}: geometry`).join(" ");
    await expect(client.request(`{ locationProofs(first: 5) { nodes { ${four} } } }`)).resolves.toBeTruthy();
  });

  it("reads: at most two of one request's reads run at once (the pool has five connections)", async () => {
    // A spy over the real database (no fault, nothing replaced): it counts the statements in flight.
    let inFlight = 0;
    let most = 0;
    const counted = new Proxy(app.db, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (key !== "execute" && key !== "select") return value;
        if (key === "select") return (...args: unknown[]) => countedQuery(value.apply(target, args));
        return async (...args: unknown[]) => {
          inFlight++;
          most = Math.max(most, inFlight);
          try {
            return await value.apply(target, args);
          } finally {
            inFlight--;
          }
        };
      },
    });
    // A select builder is awaited as a thenable: count it while it runs.
    const countedQuery = (builder: object): object =>
      new Proxy(builder, {
        get(target, key, receiver) {
          const value = Reflect.get(target, key, receiver) as (...a: unknown[]) => object;
          if (key === "from" || key === "where")
            return (...a: unknown[]) => countedQuery(value.apply(target, a));
          if (key !== "then") return typeof value === "function" ? value.bind(target) : value;
          return (resolve: (v: unknown) => void, reject: (e: unknown) => void) => {
            inFlight++;
            most = Math.max(most, inFlight);
            return value.call(
              target,
              (v: unknown) => {
                inFlight--;
                resolve(v);
              },
              (e: unknown) => {
                inFlight--;
                reject(e);
              },
            );
          };
        },
      });
    setDatabase({ db: counted as typeof app.db, kind: "pglite", close: async () => {} });
    try {
      const reads = ["sepolia", "base", "devnet"]
        .map(
          (chain, i) =>
            `p${i}: locationProofs(first: 3, filter: { chain: "${chain}", bbox: "-170,-80,170,80" }) { nodes { uid } } c${i}: locationProofsCount(filter: { chain: "${chain}", prover: "0x${String(i).repeat(40)}" })`,
        )
        .join(" ");
      await client.request(`{ ${reads} locationProofsStats { total } }`);
    } finally {
      setDatabase({ db: app.db, kind: "pglite", close: async () => {} });
    }
    expect(most).toBeGreaterThanOrEqual(1);
    expect(most).toBeLessThanOrEqual(2);
  });

  it("tokens", async () => {
    const fields = Array.from({ length: 6000 }, () => "a").join(" ");
    const { errors } = await refusal(`{ ${fields} }`);
    expect(errors[0]).toMatchObject({ extensions: { code: "QueryTooComplex", limit: "tokens", max: 5000 } });
  });
});

describe("HTTP: GET and POST, as the GraphQL-over-HTTP specification says", () => {
  it("passes every MUST of graphql-http's audit (and reports its SHOULDs)", async () => {
    const results = await auditServer({ url: ENDPOINT, fetchFn: routedFetch });
    const failed = results.filter((r) => r.status !== "ok");
    const must = failed.filter((r) => r.name.startsWith("MUST"));
    expect(must.map((r) => `${r.name}: ${"reason" in r ? r.reason : ""}`)).toEqual([]);
    const should = failed.filter((r) => r.name.startsWith("SHOULD")).map((r) => r.name);
    expect(should).toEqual([]);
  });

  it("GET queries are cacheable (ETag, 304, Vary: Accept), POST answers are not; both agree", async () => {
    const query = '{ locationProofsCount(filter: { chain: "base" }) }';
    const get = await app.request(`/graphql?query=${encodeURIComponent(query)}`, {
      headers: { accept: "application/graphql-response+json" },
    });
    expect(get.status).toBe(200);
    expect(get.headers.get("content-type")).toBe("application/graphql-response+json; charset=utf-8");
    expect(get.headers.get("cache-control")).toMatch(/public/);
    expect(get.headers.get("vary")).toMatch(/Accept/);
    const etag = get.headers.get("etag")!;
    const again = await app.request(`/graphql?query=${encodeURIComponent(query)}`, {
      headers: { accept: "application/graphql-response+json", "if-none-match": etag },
    });
    expect(again.status).toBe(304);
    const post = await app.request("/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/graphql-response+json" },
      body: JSON.stringify({ query }),
    });
    expect(post.headers.get("cache-control")).toBe("no-store");
    expect(await post.text()).toBe(await get.text());
  });

  it("refuses what is no GraphQL request with the service's error object: unknown parameters, other media types, large bodies, 406", async () => {
    const unknown = await app.get("/graphql?query=%7B__typename%7D&page=2");
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: "UnknownParameter", parameter: "page" });
    const form = await app.request("/graphql", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "{ __typename }",
    });
    expect(form.status).toBe(415);
    const big = await app.request("/graphql", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: `{ __typename } # ${"x".repeat(70_000)}` }),
    });
    expect(big.status).toBe(413);
    const member = await app.get("/graphql", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "{ __typename }", operation: "x" }),
    });
    expect(member.status).toBe(400);
    expect(member.body).toMatchObject({ code: "InvalidRequestBody", parameter: "body.operation" });
    const image = await app.request("/graphql?query=%7B__typename%7D", { headers: { accept: "image/png" } });
    expect(image.status).toBe(406);
    const put = await app.request("/graphql", { method: "PUT" });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, HEAD, OPTIONS, POST");
  });

  it("CORS: any origin may POST (the preflight allows it), as it may GET the other public endpoints", async () => {
    const preflight = await app.preflight("/graphql", "POST");
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-methods")).toBe("GET, HEAD, OPTIONS, POST");
    expect(preflight.headers.get("access-control-allow-headers")).toMatch(/Content-Type/);
    const post = await app.request("/graphql", {
      method: "POST",
      headers: { origin: "https://example.org", "content-type": "application/json" },
      body: JSON.stringify({ query: "{ __typename }" }),
    });
    expect(post.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("GraphiQL for a browser", () => {
  it("a browser's GET without a query gets GraphiQL, its files from our origin, under our CSP", async () => {
    const page = await app.request("/graphql", {
      headers: { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" },
    });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const csp = page.headers.get("content-security-policy")!;
    expect(csp).toMatch(/script-src 'self';/);
    expect(csp).not.toMatch(/unsafe|https?:/);
    const html = await page.text();
    const files = [...html.matchAll(/(?:src|href)="(\/api\/graphql\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(files).toHaveLength(6);
    for (const file of files) {
      const res = await app.request(file);
      expect(res.status, file).toBe(200);
      expect((await res.text()).length, file).toBeGreaterThan(50);
    }
    // A client without a query that does not ask for HTML is told the query is missing.
    const bare = await app.get("/graphql");
    expect(bare.status).toBe(400);
    expect(bare.body).toMatchObject({ code: "MissingParameter", parameter: "query" });
  });
});
