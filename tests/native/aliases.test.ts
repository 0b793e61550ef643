import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewLocationProofRow } from "../../db/schema.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { nativeOpenApiDocument } from "../../lib/v0/openapi.js";
import { createTestApp, TEST_BASE, type TestApp } from "../helpers/app.js";
import { checkExchange } from "../helpers/contract.js";

/**
 * /api/v0/location-records, /{uid}, /stats and /config (the names Astral's documentation uses) answer as their
 * location-proofs twins: the same status, headers and body, except that the list's links keep the path the client
 * used. Every exchange here is also held to the OpenAPI document by the contract check (tests/helpers/contract.ts),
 * which declares the aliases as operations of their own.
 */
let app: TestApp;
let rows: NewLocationProofRow[];

beforeAll(async () => {
  app = await createTestApp({ CHAINS: "devnet,sepolia" });
  rows = sampleProofs({ count: 30, seed: 11 });
  await insertProofs(app.db, rows);
  // Last-Modified is sent only once the last change is over a second old (lib/data-version/version.ts): aged here,
  // so that a twin and its alias asked a moment apart cannot fall on either side of that second.
  await app.db.execute(sql`update data_versions set changed_at = changed_at - interval '10 seconds'`);
});
afterAll(() => app.close());

const RECORDS = "/api/v0/location-records";
const PROOFS = "/api/v0/location-proofs";
/** Headers that may differ between the twins: none but the ETag of a body that differs (the list's links). */
const allowedMethods = (res: Response) =>
  (res.headers.get("access-control-allow-methods") ?? "")
    .split(",")
    .map((m) => m.trim())
    .sort();
const headersOf = (res: Response, except: string[] = []) =>
  Object.fromEntries([...res.headers].filter(([name]) => !except.includes(name)));

async function both(aliasPath: string, twinPath: string, init?: RequestInit) {
  const alias = await app.request(aliasPath, init);
  const twin = await app.request(twinPath, init);
  return { alias, twin, aliasBody: await alias.text(), twinBody: await twin.text() };
}

describe("the aliases answer as their twins", () => {
  const uid = () => rows[0]!.uid;
  const cases = () => [
    [`${RECORDS}/${uid()}`, `${PROOFS}/${uid()}`],
    [`${RECORDS}/${uid().toUpperCase().replace("0X", "0x")}`, `${PROOFS}/${uid()}`],
    [`${RECORDS}/0x${"ab".repeat(32)}`, `${PROOFS}/0x${"ab".repeat(32)}`],
    [`${RECORDS}/not-a-uid`, `${PROOFS}/not-a-uid`],
    [`${RECORDS}/stats`, `${PROOFS}/stats`],
    [`${RECORDS}/stats?x=1`, `${PROOFS}/stats?x=1`],
    [`${RECORDS}/config`, "/api/v0/config"],
    [`${RECORDS}?bbox=1,2,3`, `${PROOFS}?bbox=1,2,3`],
    [`${RECORDS}?limit=5000`, `${PROOFS}?limit=5000`],
    // A window within the last representable day (the hostile-input suite found it a 500 once).
    [`${RECORDS}?fromTimestamp=9999-12-31T23:59:59.999Z`, `${PROOFS}?fromTimestamp=9999-12-31T23:59:59.999Z`],
  ];

  it("one proof, a 404, a 400, the stats, the config and bad list parameters: byte for byte", async () => {
    for (const [aliasPath, twinPath] of cases()) {
      const { alias, twin, aliasBody, twinBody } = await both(aliasPath!, twinPath!);
      expect(alias.status, aliasPath).toBe(twin.status);
      expect(alias.status, aliasPath).toBeLessThan(500);
      expect(aliasBody, aliasPath).toBe(twinBody);
      // The list's alias also takes POST (publishing an off-chain record, docs/offchain.md): its CORS methods are
      // the twin's and POST; every other header is the twin's.
      const list = aliasPath!.startsWith(`${RECORDS}?`);
      const methods = list ? ["access-control-allow-methods"] : [];
      expect(headersOf(alias, methods), aliasPath).toEqual(headersOf(twin, methods));
      if (list) expect(allowedMethods(alias)).toEqual([...allowedMethods(twin), "POST"].sort());
    }
  });

  it("the list: the same page and total, its links on the path the client used", async () => {
    const query = "?limit=4&chain=devnet,sepolia&includeRevoked=true";
    const { alias, twin, aliasBody, twinBody } = await both(`${RECORDS}${query}`, `${PROOFS}${query}`);
    expect(alias.status).toBe(200);
    const except = ["etag", "content-length", "access-control-allow-methods"];
    expect(headersOf(alias, except)).toEqual(headersOf(twin, except));
    expect(allowedMethods(alias)).toEqual([...allowedMethods(twin), "POST"].sort());
    const a = JSON.parse(aliasBody);
    const t = JSON.parse(twinBody);
    expect(a.data).toEqual(t.data);
    expect(a.pagination.next).toMatch(new RegExp(`^${TEST_BASE}${RECORDS}\\?`));
    expect(aliasBody).toBe(twinBody.replaceAll(`${TEST_BASE}${PROOFS}?`, `${TEST_BASE}${RECORDS}?`));
    // Following the alias's next link gives the twin's second page.
    const second = await app.get(a.pagination.next);
    const twinSecond = await app.get(t.pagination.next);
    expect(second.body.data).toEqual(twinSecond.body.data);
    expect(second.body.pagination.prev).toMatch(new RegExp(`^${TEST_BASE}${RECORDS}\\?`));
  });

  it("the list as a page for a browser links to the alias too", async () => {
    const res = await app.get(`${RECORDS}?limit=3&f=html`);
    expect(res.status).toBe(200);
    expect(res.body).toContain(`${RECORDS}?limit=3&amp;f=json`);
    expect(res.body).not.toContain(`${PROOFS}?limit=3&amp;f=json`);
  });

  it("methods, HEAD, conditional requests and the preflight as on the twins", async () => {
    for (const method of ["PUT", "POST", "DELETE"]) {
      const { alias, twin, aliasBody, twinBody } = await both(`${RECORDS}/stats`, `${PROOFS}/stats`, {
        method,
      });
      expect(alias.status, method).toBe(405);
      expect(aliasBody).toBe(twinBody);
      expect(alias.headers.get("allow")).toBe(twin.headers.get("allow"));
    }
    const head = await app.request(`${RECORDS}?limit=2`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const etag = (await app.request(`${RECORDS}/config`)).headers.get("etag")!;
    const again = await app.request(`${RECORDS}/config`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    const preflight = await app.preflight(RECORDS, "GET");
    expect(preflight.status).toBe(204);
  });
});

describe("the OpenAPI document", () => {
  const doc = nativeOpenApiDocument(new Request(TEST_BASE)) as { paths: Record<string, any> };
  const pairs: [string, string][] = [
    [RECORDS, PROOFS],
    [`${RECORDS}/{uid}`, `${PROOFS}/{uid}`],
    [`${RECORDS}/stats`, `${PROOFS}/stats`],
    [`${RECORDS}/config`, "/api/v0/config"],
  ];

  it("declares each alias as its twin's operation (parameters and responses), under its own operationId", () => {
    for (const [alias, twin] of pairs) {
      const a = doc.paths[alias]?.get;
      const t = doc.paths[twin]?.get;
      expect(a, alias).toBeDefined();
      expect(a.parameters).toEqual(t.parameters);
      expect(Object.keys(a.responses)).toEqual(Object.keys(t.responses));
      expect(a.responses["200"].content["application/json"].schema).toEqual(
        t.responses["200"].content["application/json"].schema,
      );
      expect(a.operationId).not.toBe(t.operationId);
      expect(a.description).toContain(twin);
    }
    const ids = Object.values(doc.paths).flatMap((item) =>
      Object.values(item).map((op: any) => op.operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("the contract check holds the aliases' answers to it (and would catch an undeclared member)", async () => {
    const res = await app.request(`${RECORDS}/${rows[1]!.uid}`);
    const body = (await res.json()) as Record<string, unknown>;
    const exchange = (b: unknown) => ({
      method: "GET",
      url: `${TEST_BASE}${RECORDS}/${rows[1]!.uid}`,
      status: 200,
      headers: res.headers,
      body: Promise.resolve(JSON.stringify(b)),
    });
    expect(await checkExchange(exchange(body))).toEqual([]);
    expect((await checkExchange(exchange({ ...body, surprise: 1 }))).join()).toMatch(/additional properties/);
  });
});
