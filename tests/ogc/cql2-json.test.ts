import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import type { NewLocationProofRow } from "../../db/schema.js";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import { cql2Filter } from "../../lib/ogc/cql2/index.js";
import { appWith, type TestApp } from "../helpers/app.js";
import { decodeTile } from "../tiles/decode.js";

/**
 * CQL2 JSON beside CQL2 text on both collections' items and on the tiles; errors that say where; literals typed to
 * their column (issue 32, item 6); and the planar reading of a POLYGON across the antimeridian, alike everywhere.
 */
let app: TestApp;
const NOW = new Date("2025-06-01T00:00:00Z");
const rows: NewLocationProofRow[] = sampleProofs({ count: 300, seed: 9, now: NOW });
appWith(rows, (a) => {
  app = a;
});

const ITEMS = "/api/ogc/collections/location-proofs/items";
const SHAPES = "/api/ogc/collections/location-proof-shapes/items";
const TILE0 = "/api/ogc/collections/location-proofs/tiles/WebMercatorQuad/0/0/0";

async function ids(path: string, filter: string, lang = "cql2-text"): Promise<string[]> {
  const res = await app.get(`${path}?limit=1000&filter-lang=${lang}&filter=${encodeURIComponent(filter)}`);
  expect(res.status, `${filter}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(200);
  return res.body.features.map((f: { id: string }) => f.id).sort();
}

const PAIRS: [string, unknown][] = [
  ["chain = 'base'", { op: "=", args: [{ property: "chain" }, "base"] }],
  [
    "block_number BETWEEN 1000010 AND 1000120 AND NOT revoked = true",
    {
      op: "and",
      args: [
        { op: "between", args: [{ property: "block_number" }, 1000010, 1000120] },
        { op: "not", args: [{ op: "=", args: [{ property: "revoked" }, true] }] },
      ],
    },
  ],
  [
    "S_INTERSECTS(geometry, POLYGON((-10 35, 30 35, 30 60, -10 60, -10 35)))",
    {
      op: "s_intersects",
      args: [
        { property: "geometry" },
        {
          type: "Polygon",
          coordinates: [
            [
              [-10, 35],
              [30, 35],
              [30, 60],
              [-10, 60],
              [-10, 35],
            ],
          ],
        },
      ],
    },
  ],
  [
    "T_DURING(event_timestamp, INTERVAL('2025-04-01', '..'))",
    { op: "t_during", args: [{ property: "event_timestamp" }, { interval: ["2025-04-01", ".."] }] },
  ],
  [
    "CASEI(location_type) LIKE CASEI('GEOJSON%')",
    {
      op: "like",
      args: [
        { op: "casei", args: [{ property: "location_type" }] },
        { op: "casei", args: ["GEOJSON%"] },
      ],
    },
  ],
];

describe("CQL2 JSON", () => {
  it.each(PAIRS)("%s: the same features in both encodings, on both collections", async (text, json) => {
    for (const path of [ITEMS, SHAPES]) {
      const a = await ids(path, text);
      expect(a.length, text).toBeGreaterThan(0);
      expect(await ids(path, JSON.stringify(json), "cql2-json")).toEqual(a);
    }
  });

  it("the same tile in both encodings", async () => {
    const [text, json] = PAIRS[2]!;
    const a = await app.request(`${TILE0}?filter=${encodeURIComponent(text)}`);
    const b = await app.request(
      `${TILE0}?filter-lang=cql2-json&filter=${encodeURIComponent(JSON.stringify(json))}`,
    );
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    const [x, y] = [new Uint8Array(await a.arrayBuffer()), new Uint8Array(await b.arrayBuffer())];
    expect(decodeTile(x).total).toBeGreaterThan(0);
    expect(y).toEqual(x);
  });

  it("a POLYGON across the antimeridian is read in the plane (PostGIS's reading) by items, shapes and tiles alike", async () => {
    // From 170 to -170 the ring spans 340° of longitude in the plane; BBOX(170, …, -170, …) spans the 20° across.
    const polygon = "S_INTERSECTS(geometry, POLYGON((-170 -60, 170 -60, 170 60, -170 60, -170 -60)))";
    const bbox = "S_INTERSECTS(geometry, BBOX(170, -60, -170, 60))";
    const inPlane = rows.filter(
      (r) => r.longitude != null && r.longitude >= -170 && r.longitude <= 170 && Math.abs(r.latitude!) <= 60,
    );
    const across = rows.filter(
      (r) =>
        r.longitude != null && (r.longitude >= 170 || r.longitude <= -170) && Math.abs(r.latitude!) <= 60,
    );
    expect(await ids(ITEMS, polygon)).toEqual(inPlane.map((r) => r.uid).sort());
    expect(await ids(ITEMS, bbox)).toEqual(across.map((r) => r.uid).sort());
    const points = inPlane.filter((r) => r.geometry?.type === "Point").map((r) => r.uid);
    const shapes = await ids(SHAPES, polygon);
    expect(shapes).toEqual(expect.arrayContaining(points));
    const tile = await app.request(`${TILE0}?filter=${encodeURIComponent(polygon)}`);
    // The z0 tile holds the points within Web Mercator's latitudes (all of these, |lat| ≤ 60).
    expect(decodeTile(new Uint8Array(await tile.arrayBuffer())).total).toBe(inPlane.length);
  });
});

describe("CQL2 errors say where, in both encodings", () => {
  const cases: [string, string, RegExp, string][] = [
    ["cql2-json", '{"op":"=","args":[{"property":"chain"}', /malformed JSON/, "character 1"],
    ["cql2-json", '{"op":"nope","args":[]}', /unknown operator "nope"/, "/op"],
    [
      "cql2-json",
      '{"op":"and","args":[true,{"op":"=","args":[1]}]}',
      /takes 2 arguments, found 1/,
      "/args/1/args",
    ],
    ["cql2-json", '{"op":"=","args":[{"property":"chain"},5]}', /cannot compare/, "/args/1"],
    ["cql2-json", '{"op":"=","args":[{"property":"colour"},5]}', /unknown property 'colour'/, "/args/0"],
    [
      "cql2-json",
      '{"op":"s_intersects","args":[{"property":"geometry"},{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1]]]}]}',
      /must be closed/,
      "/args/1",
    ],
    ["cql2-json", '{"op":"=","args":[{"property":"latitude"},1e999]}', /number out of range/, "/args/1"],
    [
      "cql2-json",
      `{"op":"in","args":[{"property":"chain"},[${'"a",'.repeat(1000)}"a"]]}`,
      /limited to 1000/,
      "/args/1",
    ],
    [
      "cql2-json",
      `${'{"op":"not","args":['.repeat(40)}true${"]}".repeat(40)}`,
      /deeper than 32/,
      "/args/0/args/0",
    ],
    ["cql2-text", "chain = 5", /cannot compare/, "character 9"],
    ["cql2-text", "chain = 'a' AND colour = 1", /unknown property 'colour'/, "character 17"],
    ["cql2-text", "S_INTERSECTS(geometry, POLYGON((0 0, 1 0, 1 1, 0 1)))", /must be closed/, "character 24"],
    ["cql2-text", "T_AFTER(event_timestamp)", /expected ','/, "character 24"],
    ["cql2-text", "S_CROSSES(geometry, POLYGON((0 0, 1 0, 0 0)))", /at least 4 positions/, "character 21"],
  ];
  it.each(cases)("%s %s", async (lang, filter, reason, where) => {
    const res = await app.get(`${ITEMS}?filter-lang=${lang}&filter=${encodeURIComponent(filter)}`);
    expect(res.status).toBe(400);
    expect(res.body.parameter).toBe("filter");
    expect(res.body.description).toMatch(reason);
    expect(res.body.details.where.startsWith(where), res.body.details.where).toBe(true);
  });
});

describe("CQL2 literals typed to their column (issue 32, item 6)", () => {
  const dialect = new PgDialect();
  it("binds an integer literal against an integer column as bigint, so the column's btree serves it", async () => {
    for (const filter of [
      "block_number >= 1000100",
      "chain_id = 8453",
      "1000100 <= block_number",
      "block_number IN (1, 2)",
    ]) {
      const q = dialect.sqlToQuery(cql2Filter(filter));
      expect(q.sql, filter).toMatch(/::bigint/);
      expect(q.sql, filter).not.toMatch(/numeric/);
    }
    // A fraction stays exact: float8 (never a rounded integer).
    expect(await ids(ITEMS, "block_number > 1000100.5")).toEqual(
      rows
        .filter((r) => r.blockNumber! > 1000100.5)
        .map((r) => r.uid)
        .sort(),
    );
    // The plan reads the block number's index (sequential scans off, as on a large table).
    await app.db.execute(sql`set enable_seqscan = off`);
    try {
      const plan = await app.db.execute(
        sql`explain select uid from location_proofs where ${cql2Filter("block_number >= 1000290")}`,
      );
      expect(JSON.stringify(plan)).toMatch(/location_proofs_block_number_idx/);
    } finally {
      await app.db.execute(sql`reset enable_seqscan`);
    }
  });
});

describe("CQL2 at the database's edges: a 200 or a 400, never a 500", () => {
  const json = (op: string, ...args: unknown[]) => JSON.stringify({ op, args });
  const lat = { property: "latitude" };
  const filters: [string, string][] = [
    ["cql2-json", json(">", { op: "^", args: [{ property: "block_number" }, 1e6] }, 1)],
    ["cql2-json", json(">", { op: "/", args: [lat, 0] }, 1)],
    ["cql2-json", json("=", { op: "^", args: [0, -1] }, 1)],
    ["cql2-json", json("=", { op: "^", args: [-2, 0.5] }, 1)],
    ["cql2-json", json("t_during", { property: "event_timestamp" }, { interval: ["..", ".."] })],
    ["cql2-json", json("a_overlaps", { property: "media_type" }, [])],
    ["cql2-json", json("a_contains", { property: "media_type" }, [[["a"]]])],
    ["cql2-text", `latitude${" * 1e300".repeat(1000)} > 1`],
    ["cql2-text", `latitude${" * 1e300".repeat(32)} > 1`],
    ["cql2-text", `${"(".repeat(30)}latitude${" ^ 2)".repeat(30)} > 1`],
    ["cql2-text", "block_number div 0 = 1 OR latitude % 0 = 1"],
    ["cql2-text", "ACCENTI(memo) LIKE ACCENTI('%\\\\')"],
  ];
  it.each(filters)("%s %s", async (lang, filter) => {
    for (const path of [ITEMS, SHAPES, TILE0]) {
      const res = await app.request(`${path}?filter-lang=${lang}&filter=${encodeURIComponent(filter)}`);
      expect([200, 204, 400], `${path} ${filter.slice(0, 80)}: ${res.status}`).toContain(res.status);
    }
  });
});

describe("CQL2 IN: a long list is one bound array", () => {
  it("answers as the short form does, for numbers, strings, addresses and times, negated too", async () => {
    const some = rows.slice(0, 12);
    const blocks = some.map((r) => r.blockNumber);
    const provers = some.map((r) => r.prover.toUpperCase().replace("0X", "0x"));
    const times = some
      .filter((r) => r.eventTimestamp)
      .map((r) => `TIMESTAMP('${r.eventTimestamp!.toISOString()}')`);
    const want = (pred: (r: NewLocationProofRow) => boolean) =>
      rows
        .filter(pred)
        .map((r) => r.uid)
        .sort();
    expect(await ids(ITEMS, `block_number IN (${blocks.join(", ")})`)).toEqual(
      want((r) => blocks.includes(r.blockNumber)),
    );
    expect(await ids(ITEMS, `block_number NOT IN (${blocks.join(", ")})`)).toEqual(
      want((r) => !blocks.includes(r.blockNumber)),
    );
    expect(await ids(ITEMS, `prover IN (${provers.map((p) => `'${p}'`).join(", ")})`)).toEqual(
      want((r) => provers.map((p) => p.toLowerCase()).includes(r.prover)),
    );
    const instants = some.filter((r) => r.eventTimestamp).map((r) => r.eventTimestamp!.getTime());
    expect(await ids(ITEMS, `event_timestamp IN (${times.join(", ")})`)).toEqual(
      want((r) => r.eventTimestamp != null && instants.includes(r.eventTimestamp.getTime())),
    );
    const q = new PgDialect().sqlToQuery(cql2Filter(`block_number IN (${blocks.join(", ")})`));
    expect(q.params).toHaveLength(1);
  });
});
