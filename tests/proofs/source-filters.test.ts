import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chainSchemas, type NewLocationProofRow } from "../../db/schema.js";
import { LOCATION_SCHEMA, LOCATION_SCHEMA_UID } from "../../lib/chains/schema.js";
import { DEVNET_SCHEMA_UIDS, DEVNET_SCHEMAS } from "../../lib/devnet/schemas.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

/**
 * One record model, one filter model: where a record comes from (its schema, its protocol version, its normalised
 * location type) filters the native list, the OGC items (parameters and CQL2), the stats and the HTML page alike,
 * each answer checked against the rows themselves. The sample data mixes v0.1 proofs with Location Protocol records
 * whose location types are spelled as writers spell them.
 */
let app: TestApp;
const NOW = new Date("2026-06-01T00:00:00Z");
const rows = sampleProofs({
  count: 300,
  seed: 21,
  now: NOW,
  chains: [
    { name: "devnet", chainId: 31337 },
    { name: "devnet2", chainId: 31338 },
  ],
});
const LIST = "/api/v0/location-proofs";
const ITEMS = "/api/ogc/collections/location-proofs/items";

beforeAll(async () => {
  app = await createTestApp({ CHAINS: "devnet,devnet2" });
  await insertProofs(app.db, rows);
});
afterAll(() => app?.close());

const uidsOf = (pred: (r: NewLocationProofRow) => boolean) =>
  rows
    .filter((r) => !r.revoked && pred(r))
    .map((r) => r.uid)
    .sort();

async function listed(query: string): Promise<string[]> {
  const res = await app.get(`${LIST}?limit=1000&${query}`);
  expect(res.status, `${query}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(200);
  expect(res.body.pagination.total).toBe(res.body.data.length);
  return res.body.data.map((r: { uid: string }) => r.uid).sort();
}

async function items(query: string): Promise<string[]> {
  const res = await app.get(`${ITEMS}?limit=1000&${query}`);
  expect(res.status, `${query}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(200);
  expect(res.body.numberMatched).toBe(res.body.features.length);
  // The OGC collections hold revoked proofs too: keep the same ones as the native list for comparison.
  return res.body.features
    .filter((f: { properties: { revoked: boolean } }) => !f.properties.revoked)
    .map((f: { id: string }) => f.id)
    .sort();
}

describe("the sample data", () => {
  it("mixes the v0.1 schema with Location Protocol records, their types spelled as writers spell them", () => {
    const protocol = rows.filter((r) => r.schemaUid === DEVNET_SCHEMA_UIDS.dart);
    expect(protocol.length).toBeGreaterThan(20);
    expect([...new Set(protocol.map((r) => r.locationType))]).toEqual(
      expect.arrayContaining([
        "coordinate-decimal+lon-lat",
        "coordinate-decimal.lon-lat",
        "decimalDegrees",
        "address",
      ]),
    );
    // and polygons spelled in at least two ways (geojson-polygon, GeoJSON, lp.geojson-polygon.v1)
    expect(new Set(protocol.map((r) => r.locationType)).size).toBeGreaterThanOrEqual(6);
  });
});

describe("filters on where a record comes from", () => {
  it("the native list: schema, protocolVersion and locationType, alone and together", async () => {
    const dart = DEVNET_SCHEMA_UIDS.dart;
    expect(await listed(`schema=${dart.toUpperCase().replace("0X", "0x")}`)).toEqual(
      uidsOf((r) => r.schemaUid === dart),
    );
    expect(await listed("protocolVersion=1.0")).toEqual(uidsOf((r) => r.protocolVersion === "1.0"));
    expect(await listed("protocolVersion=0.1,1.0")).toEqual(uidsOf(() => true));
    // One normalised name finds every spelling.
    const lonLat = await listed("locationType=coordinate-decimal%2Blon-lat");
    expect(lonLat).toEqual(uidsOf((r) => r.locationTypeNormalized === "coordinate-decimal+lon-lat"));
    const spellings = new Set(rows.filter((r) => lonLat.includes(r.uid)).map((r) => r.locationType));
    expect(spellings).toEqual(
      new Set([
        "DecimalDegrees<string>",
        "coordinate-decimal+lon-lat",
        "coordinate-decimal.lon-lat",
        "decimalDegrees",
      ]),
    );
    expect(await listed(`locationType=geojson-polygon,address&schema=${LOCATION_SCHEMA_UID}`)).toEqual(
      uidsOf(
        (r) =>
          r.schemaUid === LOCATION_SCHEMA_UID &&
          ["geojson-polygon", "address"].includes(r.locationTypeNormalized ?? ""),
      ),
    );
    // Records say where they come from.
    const one = (await app.get(`${LIST}?protocolVersion=1.0&limit=1`)).body.data[0];
    expect(one).toMatchObject({
      schema_uid: dart,
      protocol_version: "1.0",
      lp_version: "1.0.0",
      application_fields: {
        accuracy_m: expect.any(Number),
        verified: expect.any(Boolean),
        reading: expect.any(String),
      },
    });
  });

  it("bad values are a 400 naming the parameter", async () => {
    for (const [param, value] of [
      ["schema", "0x1234"],
      ["schema", ""],
      ["protocolVersion", "v1"],
      ["protocolVersion", "1"],
      // A spelling is not a name of the vocabulary: the filter takes the normalised names only.
      ["locationType", "GeoJSON"],
      ["locationType", "geojson-point,,h3"],
    ] as const) {
      for (const path of [LIST, ITEMS, `${LIST}/stats`]) {
        const res = await app.get(`${path}?${param}=${encodeURIComponent(value)}`);
        expect(res.status, `${path} ${param}=${value}`).toBe(400);
        expect(res.body.parameter, `${path} ${param}=${value}`).toBe(param);
      }
    }
  });

  it("the OGC items: the same parameters, and CQL2 on the same properties (queryables list them)", async () => {
    const polygonish = uidsOf((r) => r.locationTypeNormalized === "geojson-polygon");
    expect(await items("locationType=geojson-polygon")).toEqual(polygonish);
    expect(
      await items(`filter=${encodeURIComponent("location_type_normalized = 'geojson-polygon'")}`),
    ).toEqual(polygonish);
    expect(
      await items(`filter=${encodeURIComponent("protocol_version IN ('1.0') AND revoked = false")}`),
    ).toEqual(uidsOf((r) => r.protocolVersion === "1.0"));
    const upper = DEVNET_SCHEMA_UIDS.dart.toUpperCase().replace("0X", "0x");
    expect(await items(`filter=${encodeURIComponent(`schema_uid = '${upper}'`)}`)).toEqual(
      uidsOf((r) => r.schemaUid === DEVNET_SCHEMA_UIDS.dart),
    );
    expect(await items(`schema=${DEVNET_SCHEMA_UIDS.dart}&protocolVersion=0.1`)).toEqual([]);
    const queryables = (await app.get("/api/ogc/collections/location-proofs/queryables")).body.properties;
    for (const name of ["schema_uid", "protocol_version", "location_type_normalized"]) {
      expect(queryables[name], name).toBeDefined();
    }
  });

  it("the stats: per schema and per protocol version, and the same figures for what a filter matches", async () => {
    const all = (await app.get(`${LIST}/stats`)).body;
    const count = (pred: (r: NewLocationProofRow) => boolean) => rows.filter(pred).length;
    expect(all.total).toBe(rows.length);
    expect(all.by_schema).toEqual({
      [LOCATION_SCHEMA_UID]: expect.objectContaining({
        total: count((r) => r.schemaUid === LOCATION_SCHEMA_UID),
      }),
      [DEVNET_SCHEMA_UIDS.dart]: expect.objectContaining({
        total: count((r) => r.schemaUid === DEVNET_SCHEMA_UIDS.dart),
        revoked: count((r) => r.schemaUid === DEVNET_SCHEMA_UIDS.dart && r.revoked === true),
        with_coordinates: count((r) => r.schemaUid === DEVNET_SCHEMA_UIDS.dart && r.longitude != null),
      }),
    });
    expect(Object.keys(all.by_protocol_version).sort()).toEqual(["0.1", "1.0"]);
    expect(all.by_protocol_version["1.0"].total).toBe(count((r) => r.protocolVersion === "1.0"));

    const filtered = (await app.get(`${LIST}/stats?locationType=geojson-polygon`)).body;
    const polygons = rows.filter((r) => r.locationTypeNormalized === "geojson-polygon");
    expect(filtered.total).toBe(polygons.length);
    expect(filtered.with_coordinates).toBe(polygons.length);
    expect(filtered.revoked).toBe(polygons.filter((r) => r.revoked).length);
    for (const chain of ["devnet", "devnet2"]) {
      expect(filtered.by_chain[chain].total).toBe(polygons.filter((r) => r.chain === chain).length);
    }
    expect(
      Object.values(filtered.by_schema as Record<string, { total: number }>).reduce((n, c) => n + c.total, 0),
    ).toBe(polygons.length);
    const times = polygons.map((r) => r.eventTimestamp!.getTime());
    expect(filtered.earliest_event).toBe(new Date(Math.min(...times)).toISOString());
    expect(filtered.latest_event).toBe(new Date(Math.max(...times)).toISOString());
    // Filters combine with AND.
    expect(
      (await app.get(`${LIST}/stats?schema=${LOCATION_SCHEMA_UID}&protocolVersion=1.0`)).body.total,
    ).toBe(0);
  });

  it("the HTML page offers the filters as links that set one and keep the others", async () => {
    const res = await app.get(`${LIST}?f=html&chain=devnet&limit=10`);
    expect(res.status).toBe(200);
    const href = /<a href="([^"]*locationType=geojson-polygon[^"]*)"/
      .exec(res.body)?.[1]
      ?.replaceAll("&amp;", "&");
    expect(href).toBeDefined();
    const url = new URL(href!);
    expect(url.searchParams.get("chain")).toBe("devnet");
    expect(url.searchParams.get("limit")).toBe("10");
    const page = await app.get(`${url.pathname}${url.search}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('class="on" aria-current="true">geojson-polygon</a>');
  });
});

describe("GET /api/v0/config lists each chain's schemas", () => {
  it("the indexed and the backfilling ones, with string, protocol version and first block; not the others", async () => {
    await app.db.insert(chainSchemas).values([
      {
        chainId: 31337,
        uid: LOCATION_SCHEMA_UID,
        schema: LOCATION_SCHEMA,
        location: true,
        protocolVersion: "0.1",
        registeredBlock: 3,
        state: "live",
      },
      {
        chainId: 31337,
        uid: DEVNET_SCHEMA_UIDS.dart,
        schema: DEVNET_SCHEMAS.dart,
        location: true,
        protocolVersion: "0.2",
        registeredBlock: 9,
        state: "backfill",
        backfillFrom: 9,
        backfillCursor: 20,
      },
      {
        chainId: 31337,
        uid: DEVNET_SCHEMA_UIDS.appendix,
        schema: DEVNET_SCHEMAS.appendix,
        location: true,
        protocolVersion: "0.2",
        registeredBlock: 5,
        state: "off",
      },
    ]);
    const config = (await app.get("/api/v0/config")).body;
    const byName = Object.fromEntries(config.chains.map((c: { name: string }) => [c.name, c]));
    expect(byName.devnet.schemas).toEqual([
      {
        uid: LOCATION_SCHEMA_UID,
        schema: LOCATION_SCHEMA,
        protocol_version: "0.1",
        first_block: 3,
        state: "indexed",
        backfilled_to_block: null,
      },
      {
        uid: DEVNET_SCHEMA_UIDS.dart,
        schema: DEVNET_SCHEMAS.dart,
        protocol_version: "0.2",
        first_block: 9,
        state: "backfilling",
        backfilled_to_block: 20,
      },
    ]);
    expect(byName.devnet2.schemas).toEqual([]);
    expect(byName.base.schemas).toBeNull();
    expect(config.schema_discovery).toEqual({ mode: "discover", allow: [], deny: [] });
    await app.db.execute(sql`delete from chain_schemas`);
  });
});
