import { OffchainAttestationVersion } from "@ethereum-attestation-service/eas-sdk";
import { beforeAll, describe, expect, it } from "vitest";
import { attest } from "../../lib/devnet/eas.js";
import type { Devnet } from "../../lib/devnet/index.js";
import type { TileAddress } from "../../lib/tiles/web-mercator.js";
import { AUTH, mine } from "../helpers/anvil.js";
import type { TestApp } from "../helpers/app.js";
import { endAfterAll } from "../helpers/fixtures.js";
import {
  jsonOf,
  offchainDevnet,
  offchainOf,
  offchainTestApp,
  recordData,
  OFFCHAIN_SCHEMAS as SCHEMAS,
  publisher as signer,
  signOffchain,
} from "../helpers/offchain.js";
import { decodeTile } from "../tiles/decode.js";

/**
 * One record model: off-chain records signed by the EAS SDK (offchain versions 1 and 2, the v0.1 schema and each of
 * the devnet's v0.2 schemas), published, and read back beside the on-chain proofs through the native list
 * (`source=offchain`, `source=all`, the default on-chain only), GraphQL, the OGC items and a tile.
 */

const LIST = "/api/v0/location-proofs";
const ITEMS = "/api/ogc/collections/location-proofs/items";
const TILES = "/api/ogc/collections/location-proofs/tiles/WebMercatorQuad";

let devnet: Devnet;
let app: TestApp;
const published: string[] = [];
const onchain: string[] = [];

beforeAll(async () => {
  devnet = await offchainDevnet();
  // Two on-chain proofs, in the same area as the off-chain records.
  for (const [lon, lat] of [
    [60.5, 10.5],
    [61.5, 11.5],
  ] as const) {
    const [uid] = await attest(devnet.rpcUrl, devnet.eas, [{ data: recordData("v01", lon, lat) }]);
    onchain.push(uid!.toLowerCase());
  }
  await mine(devnet.rpcUrl, 3);
  app = await offchainTestApp(devnet.rpcUrl);
  const synced = await app.get("/api/sync", { method: "POST", headers: AUTH });
  expect(synced.status).toBe(200);
  let i = 0;
  for (const schema of Object.keys(SCHEMAS) as (keyof typeof SCHEMAS)[]) {
    for (const version of [OffchainAttestationVersion.Version1, OffchainAttestationVersion.Version2]) {
      const lon = 60.25 + (i % 4);
      const lat = 10.25 + Math.floor(i / 4);
      i++;
      const signed = await signOffchain(offchainOf(devnet, version), {
        schema: SCHEMAS[schema],
        data: recordData(schema, lon, lat),
      });
      const res = await app.get("/api/v0/location-records", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: jsonOf(signed),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      published.push(signed.uid.toLowerCase());
    }
  }
}, 180_000);
endAfterAll(() => [app, devnet]);

const list = async (query: string) => {
  const res = await app.get(`${LIST}?${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { data: Record<string, unknown>[]; pagination: { total: number; next: string | null } };
};

/** Every uid of a list, page after page by its next links. */
async function everyUid(query: string): Promise<{ uids: string[]; totals: number[] }> {
  const uids: string[] = [];
  const totals: number[] = [];
  let url: string | null = `${LIST}?${query}`;
  while (url) {
    const res = await app.get(url.replace(/^https?:\/\/[^/]+/, ""));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const r of res.body.data) uids.push(r.uid);
    totals.push(res.body.pagination.total);
    url = res.body.pagination.next;
  }
  return { uids, totals };
}

const sorted = (xs: string[]) => [...xs].sort();

describe("the native list", () => {
  it("lists on-chain proofs by default, and with source=onchain", async () => {
    for (const query of ["", "source=onchain"]) {
      const page = await list(query);
      expect(page.pagination.total).toBe(onchain.length);
      expect(sorted(page.data.map((r) => r.uid as string))).toEqual(sorted(onchain));
      for (const r of page.data)
        expect(r).toMatchObject({ source: "onchain", signer: null, published_at: null });
    }
  });

  it("source=offchain: every published record, with its signer and publication time, counted", async () => {
    const page = await list("source=offchain&limit=100");
    expect(page.pagination.total).toBe(published.length);
    expect(sorted(page.data.map((r) => r.uid as string))).toEqual(sorted(published));
    for (const r of page.data) {
      expect(r).toMatchObject({
        source: "offchain",
        signer: signer.address.toLowerCase(),
        prover: signer.address.toLowerCase(),
        block_number: null,
        tx_hash: null,
        chain: "devnet",
      });
      expect(Date.parse(r.published_at as string)).toBeGreaterThan(Date.now() - 600_000);
    }
    // Each schema and both versions are there.
    const schemas = new Set(page.data.map((r) => r.schema_uid));
    expect(schemas.size).toBe(Object.keys(SCHEMAS).length);
  });

  it("source=all: both, in one order, paged by cursors across both without a gap or a repeat", async () => {
    const whole = await list("source=all&limit=100");
    expect(whole.pagination.total).toBe(published.length + onchain.length);
    const paged = await everyUid("source=all&limit=3");
    expect(paged.uids).toEqual(whole.data.map((r) => r.uid));
    expect(sorted(paged.uids)).toEqual(sorted([...published, ...onchain]));
    expect(new Set(paged.totals)).toEqual(new Set([published.length + onchain.length]));
    // The same page by offset.
    const third = await list("source=all&limit=3&offset=6");
    expect(third.data.map((r) => r.uid)).toEqual(paged.uids.slice(6, 9));
  });

  it("filters apply to both sources: a bbox, a schema, a proximity circle", async () => {
    const box = await list("source=all&bbox=60,10,61,11");
    expect(box.data.map((r) => r.uid).sort()).toEqual(sorted([published[0]!, onchain[0]!]));
    const dart = await list(`source=offchain&schema=${SCHEMAS.dart}`);
    expect(dart.pagination.total).toBe(2);
    const near = await list("source=all&near=60.25,10.25&radius=1000&sort=distance");
    expect(near.data.map((r) => r.uid)).toEqual([published[0]]);
  });

  it("a download of the list (CSV) holds the same source's records", async () => {
    const res = await app.request(`${LIST}?source=offchain&f=csv`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const lines = text.trim().split("\n");
    expect(lines.length).toBe(published.length + 1);
    for (const uid of published) expect(text).toContain(uid);
    for (const uid of onchain) expect(text).not.toContain(uid);
  });

  it("an unknown source is a 400 naming the parameter", async () => {
    const res = await app.get(`${LIST}?source=chain`);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain("source");
    const items = await app.get(`${ITEMS}?source=both`);
    expect(items.status).toBe(400);
    expect(JSON.stringify(items.body)).toContain("source");
  });
});

describe("GraphQL, OGC and the tiles", () => {
  it("GraphQL: the filter's source, its totalCount and the records' source fields", async () => {
    const query = `query($f: LocationProofFilter) { locationProofs(filter: $f, first: 50) { totalCount nodes { uid source signer publishedAt } } locationProofsCount(filter: $f) }`;
    for (const [source, n] of [
      ["offchain", published.length],
      ["all", published.length + onchain.length],
      ["onchain", onchain.length],
    ] as const) {
      const res = await app.get("/api/graphql", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query, variables: { f: { source } } }),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const { locationProofs, locationProofsCount } = res.body.data;
      expect(locationProofs.totalCount).toBe(n);
      expect(locationProofsCount).toBe(n);
      if (source === "offchain")
        for (const node of locationProofs.nodes)
          expect(node).toMatchObject({ source: "offchain", signer: signer.address.toLowerCase() });
    }
    const bad = await app.get("/api/graphql", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query, variables: { f: { source: "nowhere" } } }),
    });
    expect(JSON.stringify(bad.body)).toContain("source");
  });

  it("OGC items: source is a filter of both collections; numberMatched is right; a feature is found by its id", async () => {
    for (const collection of ["location-proofs", "location-proof-shapes"]) {
      const res = await app.get(`/api/ogc/collections/${collection}/items?source=offchain&limit=100`);
      expect(res.status).toBe(200);
      expect(res.body.numberMatched).toBe(published.length);
      for (const f of res.body.features) expect(f.properties.source).toBe("offchain");
      const all = await app.get(`/api/ogc/collections/${collection}/items?source=all&limit=100`);
      expect(all.body.numberMatched).toBe(published.length + onchain.length);
      const plain = await app.get(`/api/ogc/collections/${collection}/items?limit=100`);
      expect(plain.body.numberMatched).toBe(onchain.length);
    }
    const one = await app.get(`${ITEMS}/${published[0]}`);
    expect(one.status).toBe(200);
    expect(one.body.properties).toMatchObject({ source: "offchain", signer: signer.address.toLowerCase() });
  });

  it("OGC: CQL2 filters, spatial ones included, apply to both sources", async () => {
    const polygon = "POLYGON((60 10,61 10,61 11,60 11,60 10))";
    for (const collection of ["location-proofs", "location-proof-shapes"]) {
      const q = new URLSearchParams({
        source: "all",
        filter: `S_INTERSECTS(geometry, ${polygon})`,
        limit: "100",
      });
      const res = await app.get(`/api/ogc/collections/${collection}/items?${q}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(sorted(res.body.features.map((f: { id: string }) => f.id))).toEqual(
        sorted([published[0]!, onchain[0]!]),
      );
      expect(res.body.numberMatched).toBe(2);
    }
    const q = new URLSearchParams({
      source: "offchain",
      filter: `schema_uid = '${SCHEMAS.sdk.toLowerCase()}'`,
    });
    const bySchema = await app.get(`${ITEMS}?${q}`);
    expect(bySchema.status, JSON.stringify(bySchema.body)).toBe(200);
    expect(bySchema.body.numberMatched).toBe(2);
  });

  it("a tile shows the off-chain records with source=offchain, both with all, and neither by default", async () => {
    // 60°–64° E, 10°–12° N lie in tile 4/10/7.
    const t: TileAddress = { z: 4, x: 10, y: 7 };
    const uidsOf = async (query: string) => {
      const res = await app.request(`${TILES}/${t.z}/${t.x}/${t.y}${query}`);
      expect(res.status).toBe(200);
      const decoded = decodeTile(new Uint8Array(await res.arrayBuffer()));
      return sorted(decoded.points.map((p) => p.properties.uid as string));
    };
    expect(await uidsOf("?source=offchain")).toEqual(sorted(published));
    expect(await uidsOf("?source=all")).toEqual(sorted([...published, ...onchain]));
    expect(await uidsOf("")).toEqual(sorted(onchain));
    const bad = await app.request(`${TILES}/${t.z}/${t.x}/${t.y}?source=x`);
    expect(bad.status).toBe(400);
  });
});
