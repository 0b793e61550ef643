import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { queryRows } from "../../db/client.js";
import { bumpDataVersion, readDataVersion } from "../../lib/data-version/version.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { createTestApp, TEST_BASE, type TestApp } from "../helpers/app.js";

// The data's version (lib/data-version/, db/migrations/0005_data_versions.sql): it moves with every write that can
// change what a response shows, and only then; ETag and Last-Modified come from it; a conditional request that has
// not changed is a 304 that runs one statement, the version's (counted on the request's log line, lib/budget), and
// no page, count or tile statement; tile URLs carry it and are then kept forever.

let app: TestApp;
const NOW = new Date("2026-03-01T00:00:00Z");
const rows = sampleProofs({ count: 40, seed: 11, now: NOW });
const onBase = rows.find((r) => r.chain === "base")!;
const onCelo = rows.find((r) => r.chain === "celo")!;

beforeAll(async () => {
  // Info: the request log lines, whose `statements` these tests read.
  app = await createTestApp({ LOG_LEVEL: "info" });
  await insertProofs(app.db, rows);
}, 120_000);
afterAll(() => app?.close());
afterEach(() => vi.restoreAllMocks());

const version = async (chainId?: number) => (await readDataVersion(app.db, chainId)).version;

/** A request through the router, with the `statements` of its log line. */
async function counted(path: string, headers: Record<string, string> = {}) {
  const lines: string[] = [];
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    const text = String(chunk);
    if (text.includes('"msg":"request"')) lines.push(text);
    return true;
  });
  const res = await app.request(path, { headers });
  const body = await res.text();
  vi.restoreAllMocks();
  expect(lines).toHaveLength(1);
  return { res, body, statements: JSON.parse(lines[0]!).statements as number };
}

/**
 * The second of two requests for `path`, once it found the first's count remembered (one statement). Other test files
 * write to the same PostgreSQL server meanwhile, and any commit changes every later snapshot (lib/proofs/count.ts):
 * then the count is taken again, rightly. So the pair is tried until nothing was committed between them; a count
 * that is never remembered still fails.
 */
async function rememberedCount(path: string) {
  let last: Awaited<ReturnType<typeof counted>> | undefined;
  for (let attempt = 0; attempt < 10; attempt++) {
    await counted(path); // the count, remembered
    last = await counted(path);
    if (last.statements === 1) return last;
  }
  return last!;
}

describe("the data's version", () => {
  it("moves with proof rows written, revoked and deleted, and with schema decisions; not with other writes", async () => {
    let last = await version();
    const moved = async (what: string) => {
      const now = await version();
      expect(BigInt(now), what).toBeGreaterThan(BigInt(last));
      last = now;
    };
    const [extra] = sampleProofs({ count: 1, seed: 12, now: NOW });
    await insertProofs(app.db, [extra!]);
    await moved("insert");
    await app.db.execute(sql`update location_proofs set revoked = true where uid = ${extra!.uid}`);
    await moved("revocation");
    await app.db.execute(sql`delete from location_proofs where uid = ${extra!.uid}`);
    await moved("rewind");
    await app.db.execute(sql`delete from location_proofs where uid = 'no such uid'`);
    expect(await version(), "a statement that wrote no row").toBe(last);
    await app.db.execute(
      sql`insert into chain_schemas (chain_id, uid, schema, location, state) values (8453, '0xfeed', 'string x', true, 'live')`,
    );
    await moved("schema found");
    await app.db.execute(sql`update chain_schemas set backfill_cursor = 5 where uid = '0xfeed'`);
    expect(await version(), "a backfill cursor alone").toBe(last);
    await app.db.execute(sql`update chain_schemas set state = 'off' where uid = '0xfeed'`);
    await moved("schema decision");
    await app.db.execute(sql`delete from chain_schemas where uid = '0xfeed'`);
    await moved("schema forgotten");
    await bumpDataVersion(app.db);
    await moved("an off-chain publication");
  });

  it("is per chain: a write on one chain leaves another chain's version as it was", async () => {
    const base = await version(onBase.chainId);
    const celo = await version(onCelo.chainId);
    const all = await version();
    await app.db.execute(sql`update location_proofs set memo = 'x' where uid = ${onCelo.uid}`);
    expect(await version(onBase.chainId)).toBe(base);
    expect(BigInt(await version(onCelo.chainId))).toBeGreaterThan(BigInt(celo));
    expect(BigInt(await version())).toBeGreaterThan(BigInt(all));
  });
});

describe("validators from the data's version", () => {
  const ITEMS = "/api/ogc/collections/location-proofs/items?limit=5";
  const TILE = "/api/ogc/collections/location-proofs/tiles/WebMercatorQuad/0/0/0";
  const LIST = "/api/v0/location-proofs?limit=5";

  it.each([ITEMS, TILE, LIST, `/api/v0/location-proofs/${rows[0]!.uid}`])(
    "%s: a conditional request that has not changed is a 304 that runs the version's statement alone",
    async (path) => {
      const first = await counted(path);
      expect(first.res.status).toBe(200);
      expect(first.statements).toBeGreaterThan(1);
      const etag = first.res.headers.get("etag")!;
      expect(etag).toMatch(new RegExp(`^(W/)?"${await version()}-`));
      const again = await counted(path, { "if-none-match": etag });
      expect(again.res.status).toBe(304);
      expect(again.statements).toBe(1);
      expect(again.res.headers.get("etag")).toBe(etag);
      expect(again.res.headers.get("cache-control")).toMatch(/s-maxage=15/);
      // A revocation: the same validator now gets the new answer.
      await app.db.execute(sql`update location_proofs set revoked = not revoked where uid = ${rows[1]!.uid}`);
      const after = await counted(path, { "if-none-match": etag });
      expect(after.res.headers.get("etag")).not.toBe(etag);
      expect(after.statements).toBeGreaterThan(1);
    },
  );

  it.each([ITEMS, LIST, `${ITEMS}&chain=base`, `${LIST}&bbox=-180,-90,180,90`])(
    "%s: a page whose count is remembered carries the version in its own statement: one statement, the same validators",
    async (path) => {
      const carried = await rememberedCount(path);
      expect(carried.res.status).toBe(200);
      expect(carried.statements).toBe(1);
      const chainId = path.includes("chain=base") ? onBase.chainId : undefined;
      const etag = carried.res.headers.get("etag")!;
      expect(etag).toMatch(new RegExp(`^(W/)?"${await version(chainId)}-`));
      // The same validator a conditional request reads first: its 304.
      const again = await counted(path, { "if-none-match": etag });
      expect(again.res.status).toBe(304);
      expect(again.res.headers.get("etag")).toBe(etag);
      // A write: the carried version moves with it.
      await app.db.execute(sql`update location_proofs set memo = memo || '.' where uid = ${onBase.uid}`);
      const after = await counted(path);
      expect(after.res.headers.get("etag")).not.toBe(etag);
      expect(after.res.headers.get("etag")).toMatch(new RegExp(`^(W/)?"${await version(chainId)}-`));
    },
  );

  it("a page that carried no version (its rows were gone) names none: never one read after its rows", async () => {
    const [gone] = sampleProofs({ count: 1, seed: 13, now: NOW });
    await insertProofs(app.db, [gone!]);
    const path = `${LIST}&includeRevoked=true&prover=${gone!.prover}`;
    const first = await counted(path);
    expect(first.res.status).toBe(200);
    expect(first.res.headers.get("etag")).not.toBeNull();
    // The remembered count (1) plans a page whose statement finds nothing: the version it was to carry never came.
    await app.db.execute(sql`delete from location_proofs where uid = ${gone!.uid}`);
    const emptied = await counted(path);
    expect(emptied.res.status).toBe(200);
    expect((JSON.parse(emptied.body) as { data: unknown[] }).data).toHaveLength(0);
    // (The body's own ETag may remain: it names no version, so no conditional request of a later version is a 304.)
    expect(emptied.res.headers.get("etag") ?? "").not.toMatch(/^(W\/)?"\d+-/);
    expect(emptied.res.headers.get("last-modified")).toBeNull();
    // The next request counts again: its validators are back.
    expect((await counted(path)).res.headers.get("etag")).toMatch(new RegExp(`^(W/)?"${await version()}-`));
  });

  it("the HTML page and a download read the version first: their validators as ever", async () => {
    for (const path of [`${ITEMS}&f=html`, `${LIST}&f=html`, `${ITEMS}&f=csv`]) {
      await counted(path);
      const again = await counted(path);
      expect(again.res.status, path).toBe(200);
      const etag = again.res.headers.get("etag")!;
      expect(etag, path).toMatch(new RegExp(`^(W/)?"${await version()}-`));
      expect((await counted(path, { "if-none-match": etag })).res.status, path).toBe(304);
    }
  });

  it("a chain's pages keep their validator while another chain changes", async () => {
    const path = `${ITEMS}&chain=base`;
    const first = await counted(path);
    await app.db.execute(sql`update location_proofs set memo = 'y' where uid = ${onCelo.uid}`);
    const again = await counted(path, { "if-none-match": first.res.headers.get("etag")! });
    expect(again.res.status).toBe(304);
    expect(again.statements).toBe(1);
    const all = await counted(ITEMS, { "if-none-match": first.res.headers.get("etag")! });
    expect(all.res.status).toBe(200);
  });

  it("an ETag holds for its own resource: a uid's case and the alias share it, a filter's literal case does not", async () => {
    const uid = rows[0]!.uid;
    const proof = await counted(`/api/v0/location-proofs/${uid}`);
    const held = { "if-none-match": proof.res.headers.get("etag")! };
    expect(
      (await counted(`/api/v0/location-proofs/${uid.toUpperCase().replace("0X", "0x")}`, held)).res.status,
    ).toBe(304);
    expect((await counted(`/api/v0/location-records/${uid}`, held)).res.status).toBe(304);
    // Two filters that differ only in a literal's case are two resources: one's validator is no 304 of the other.
    const filter = (memo: string) => `${ITEMS}&filter=${encodeURIComponent(`memo = '${memo}'`)}`;
    const upper = await counted(filter("Berlin"));
    const lower = await counted(filter("berlin"), { "if-none-match": upper.res.headers.get("etag")! });
    expect(lower.res.status).toBe(200);
  });

  it("Last-Modified once the last change is over a second old; If-Modified-Since a 304 until the next change", async () => {
    await app.db.execute(sql`update data_versions set changed_at = changed_at - interval '10 seconds'`);
    const first = await counted(ITEMS);
    const modified = first.res.headers.get("last-modified")!;
    expect(Date.parse(modified)).toBeLessThan(Date.now());
    const again = await counted(ITEMS, { "if-modified-since": modified });
    expect(again.res.status).toBe(304);
    expect(again.statements).toBe(1);
    await app.db.execute(sql`update location_proofs set memo = 'z' where uid = ${rows[2]!.uid}`);
    expect((await counted(ITEMS, { "if-modified-since": modified })).res.status).toBe(200);
    // Just changed: no Last-Modified yet (a later change could still fall within the second it would name).
    expect((await counted(ITEMS)).res.headers.get("last-modified")).toBeNull();
  });

  it("errors and restricted endpoints are never cached, nor given validators", async () => {
    const bad = await counted(`${ITEMS}&nope=1`, { "if-none-match": "*" });
    expect(bad.res.status).toBe(400);
    expect(bad.res.headers.get("cache-control")).toBe("no-store");
    expect(bad.res.headers.get("etag")).toBeNull();
    const restricted = await app.request("/api/sync/status");
    expect(restricted.status).toBe(401);
    expect(restricted.headers.get("cache-control")).toBe("no-store");
  });
});

describe("version-keyed tiles", () => {
  const TILEJSON = "/api/ogc/collections/location-proofs/tiles/WebMercatorQuad/tilejson";

  it("the TileJSON hands out tile URLs of the current version, kept forever; other URLs are not", async () => {
    const doc = await app.get(`${TILEJSON}?chain=base`);
    expect(doc.headers.get("cache-control")).toBe(
      "public, max-age=0, s-maxage=15, stale-while-revalidate=15",
    );
    expect(doc.headers.get("cdn-cache-control")).toBe("max-age=15, stale-while-revalidate=15");
    const template: string = doc.body.tiles[0];
    const v = new URL(template.replace(/[{}]/g, ""), TEST_BASE).searchParams.get("v")!;
    expect(v).toBe(await version(onBase.chainId));
    const tile = await app.request(template.replace(TEST_BASE, "").replace("{z}/{x}/{y}", "0/0/0"));
    expect(tile.status).toBe(200);
    expect(tile.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(tile.headers.get("cdn-cache-control")).toBe("max-age=31536000");
    const unversioned = await app.request(TILEJSON.replace("tilejson", "0/0/0"));
    expect(unversioned.headers.get("cache-control")).toMatch(/s-maxage=15/);
    // A version this database has not reached (a replica behind, or a made-up number): answered, never stored.
    const ahead = await app.request(
      `${TILEJSON.replace("tilejson", "0/0/0")}?chain=base&v=${BigInt(v) + 1n}`,
    );
    expect(ahead.status).toBe(200);
    expect(ahead.headers.get("cache-control")).toBe("no-store");
    const bad = await app.get(`${TILEJSON.replace("tilejson", "0/0/0")}?v=abc`);
    expect(bad.status).toBe(400);
    expect(bad.body.parameter).toBe("v");
    // A revocation on the chain: the next TileJSON names a new version.
    await app.db.execute(sql`update location_proofs set revoked = true where uid = ${onBase.uid}`);
    const next = await app.get(`${TILEJSON}?chain=base`);
    expect(next.body.tiles[0]).not.toBe(template);
    const counters = await queryRows<{ n: number }>(
      app.db,
      sql`select count(*)::int as n from data_versions`,
    );
    expect(counters[0]?.n).toBeGreaterThan(1);
  });
});
