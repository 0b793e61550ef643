import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import type { NewLocationProofRow } from "../../db/schema.js";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import { cql2Filter } from "../../lib/ogc/cql2/index.js";
import { parseCql2 } from "../../lib/ogc/cql2/parse.js";
import { appWith, type TestApp } from "../helpers/app.js";

let app: TestApp;
const NOW = new Date("2025-06-01T00:00:00Z");
const rows = sampleProofs({ count: 400, seed: 5, now: NOW });
const ITEMS = "/api/ogc/collections/location-proofs/items";
const SHAPES = "/api/ogc/collections/location-proof-shapes/items";

appWith(rows, (a) => {
  app = a;
});

/** The uids a filter returns through the real endpoint (all pages of up to 1000). */
async function matching(filter: string, items = ITEMS): Promise<string[]> {
  const res = await app.get(`${items}?limit=1000&filter=${encodeURIComponent(filter)}`);
  expect(res.status, `${filter}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(200);
  expect(res.body.numberMatched).toBe(res.body.features.length);
  return res.body.features.map((f: { id: string }) => f.id).sort();
}
const expected = (pred: (r: NewLocationProofRow) => boolean) =>
  rows
    .filter(pred)
    .map((r) => r.uid)
    .sort();

const prover = rows[0]!.prover;
const time = (r: NewLocationProofRow) => r.eventTimestamp!.getTime();
const mid = new Date(NOW.getTime() - 45 * 86_400_000);
const isPoint = (r: NewLocationProofRow) => r.geometry?.type === "Point";
/** location-proofs: S_INTERSECTS tests the feature's geometry, the representative point. */
const pointIn = (r: NewLocationProofRow, w: number, s: number, e: number, n: number) =>
  r.longitude != null &&
  (w <= e ? r.longitude >= w && r.longitude <= e : r.longitude >= w || r.longitude <= e) &&
  r.latitude! >= s &&
  r.latitude! <= n;
/** location-proof-shapes: S_INTERSECTS(geometry, BBOX) tests the shape's bounds. */
const boundsMeet = (r: NewLocationProofRow, w: number, s: number, e: number, n: number) =>
  r.minLon != null &&
  (w <= e ? r.maxLon! >= w && r.minLon <= e : r.maxLon! >= w || r.minLon <= e) &&
  r.maxLat! >= s &&
  r.minLat! <= n;

describe("CQL2 text: operators, each checked against the data", () => {
  const cases: [string, (r: NewLocationProofRow) => boolean][] = [
    ["chain = 'base'", (r) => r.chain === "base"],
    ["chain <> 'base'", (r) => r.chain !== "base"],
    ["'base' = chain", (r) => r.chain === "base"],
    [`prover = '${prover.toUpperCase().replace("0X", "0x")}'`, (r) => r.prover === prover],
    ["block_number < 1000100", (r) => r.blockNumber! < 1000100],
    ["block_number <= 1000100", (r) => r.blockNumber! <= 1000100],
    ["block_number > 1000300", (r) => r.blockNumber! > 1000300],
    ["block_number >= 1000300", (r) => r.blockNumber! >= 1000300],
    [
      "latitude > -1.5 AND latitude < 0.5",
      (r) => r.latitude != null && r.latitude > -1.5 && r.latitude < 0.5,
    ],
    ["chain = 'base' OR chain = 'celo'", (r) => r.chain === "base" || r.chain === "celo"],
    ["NOT chain = 'base'", (r) => r.chain !== "base"],
    ["not (chain = 'base' or revoked = true)", (r) => r.chain !== "base" && !r.revoked],
    ["revoked = TRUE", (r) => r.revoked === true],
    ["revoked = false", (r) => !r.revoked],
    ["chain IN ('base', 'arbitrum')", (r) => r.chain === "base" || r.chain === "arbitrum"],
    ["chain NOT IN ('base', 'arbitrum')", (r) => r.chain !== "base" && r.chain !== "arbitrum"],
    [
      "block_number BETWEEN 1000010 AND 1000020",
      (r) => r.blockNumber! >= 1000010 && r.blockNumber! <= 1000020,
    ],
    [
      "block_number NOT BETWEEN 1000010 AND 1000390",
      (r) => r.blockNumber! < 1000010 || r.blockNumber! > 1000390,
    ],
    ["longitude IS NULL", (r) => r.longitude == null],
    ["longitude IS NOT NULL", (r) => r.longitude != null],
    ["location_type LIKE 'geojson%'", (r) => r.locationType!.startsWith("geojson")],
    ["location_type NOT LIKE 'Decimal%'", (r) => !r.locationType!.startsWith("Decimal")],
    ["memo LIKE 'sample proof 1_'", (r) => /^sample proof 1\d$/.test(r.memo!)],
    ["S_INTERSECTS(geometry, BBOX(-0.3, 51.4, 0.0, 51.6))", (r) => pointIn(r, -0.3, 51.4, 0, 51.6)],
    ["S_INTERSECTS(geometry, BBOX(170, -20, -170, -10))", (r) => pointIn(r, 170, -20, -170, -10)],
    ["S_INTERSECTS(geometry, POLYGON((-1 50, 1 50, 1 53, -1 53, -1 50)))", (r) => pointIn(r, -1, 50, 1, 53)],
    // A predicate on a null is not true (CQL2), so NOT … does not match the features without geometry either.
    [
      "NOT S_INTERSECTS(geometry, BBOX(-10, 35, 30, 60))",
      (r) => r.longitude != null && !pointIn(r, -10, 35, 30, 60),
    ],
    [
      // a triangle: the points in its west half only
      "S_INTERSECTS(geometry, POLYGON((-123 37, -122 37, -123 38.5, -123 37)))",
      (r) =>
        r.longitude != null &&
        r.longitude! >= -123 &&
        r.latitude! >= 37 &&
        r.longitude! - -123 <= (38.5 - r.latitude!) / 1.5,
    ],
    [`T_AFTER(event_timestamp, TIMESTAMP('${mid.toISOString()}'))`, (r) => time(r) > mid.getTime()],
    [`T_BEFORE(event_timestamp, TIMESTAMP('${mid.toISOString()}'))`, (r) => time(r) < mid.getTime()],
    [
      `T_INTERSECTS(event_timestamp, TIMESTAMP('${rows[7]!.eventTimestamp!.toISOString()}'))`,
      (r) => time(r) === time(rows[7]!),
    ],
    [
      "T_INTERSECTS(event_timestamp, INTERVAL('2025-04-01T00:00:00Z', '2025-04-15T00:00:00Z'))",
      (r) => time(r) >= Date.parse("2025-04-01T00:00:00Z") && time(r) <= Date.parse("2025-04-15T00:00:00Z"),
    ],
    [
      "T_INTERSECTS(event_timestamp, INTERVAL('..', '2025-04-01'))",
      (r) => time(r) < Date.parse("2025-04-02T00:00:00Z"),
    ],
    [
      "T_INTERSECTS(event_timestamp, DATE('2025-04-10'))",
      (r) => r.eventTimestamp!.toISOString().startsWith("2025-04-10"),
    ],
    ["T_AFTER(event_timestamp, DATE('2025-05-20'))", (r) => time(r) >= Date.parse("2025-05-21T00:00:00Z")],
    [`T_BEFORE(TIMESTAMP('${mid.toISOString()}'), event_timestamp)`, (r) => time(r) > mid.getTime()],
    [`event_timestamp >= TIMESTAMP('${mid.toISOString()}')`, (r) => time(r) >= mid.getTime()],
    ["event_timestamp = DATE('2025-04-10')", (r) => r.eventTimestamp!.toISOString().startsWith("2025-04-10")],
    [
      "(chain = 'base' OR chain = 'celo') AND S_INTERSECTS(geometry, BBOX(-10, 35, 30, 60)) AND NOT revoked = true",
      (r) => (r.chain === "base" || r.chain === "celo") && pointIn(r, -10, 35, 30, 60) && !r.revoked,
    ],
  ];
  it.each(cases)("%s", async (filter, pred) => {
    const want = expected(pred);
    expect(await matching(filter)).toEqual(want);
  });

  it("keeps CQL2's rule for nulls: no predicate on a missing geometry is true, negated or not", async () => {
    const withGeometry = expected((r) => r.minLon != null);
    expect(withGeometry.length).toBeLessThan(rows.length);
    for (const items of [ITEMS, SHAPES]) {
      expect(await matching("S_INTERSECTS(geometry, BBOX(-180, -90, 180, 90))", items)).toEqual(withGeometry);
      expect(await matching("NOT S_INTERSECTS(geometry, BBOX(-180, -90, 180, 90))", items)).toEqual([]);
    }
  });

  it("tests the shapes' bounds in location-proof-shapes", async () => {
    const shapes: [string, (r: NewLocationProofRow) => boolean][] = [
      ["S_INTERSECTS(geometry, BBOX(-0.3, 51.4, 0.0, 51.6))", (r) => boundsMeet(r, -0.3, 51.4, 0, 51.6)],
      ["S_INTERSECTS(geometry, BBOX(170, -20, -170, -10))", (r) => boundsMeet(r, 170, -20, -170, -10)],
      [
        "S_INTERSECTS(geometry, POINT(-0.1276 51.5072))",
        (r) =>
          (boundsMeet(r, -0.1276, 51.5072, -0.1276, 51.5072) && !isPoint(r)) ||
          (isPoint(r) && r.longitude === -0.1276 && r.latitude === 51.5072),
      ],
      [
        "NOT S_INTERSECTS(geometry, BBOX(-10, 35, 30, 60)) AND chain = 'base'",
        (r) => r.minLon != null && !boundsMeet(r, -10, 35, 30, 60) && r.chain === "base",
      ],
    ];
    for (const [filter, pred] of shapes)
      expect(await matching(filter, SHAPES), filter).toEqual(expected(pred));
  });

  it("the cases above are not vacuous", () => {
    for (const [filter, pred] of cases) {
      if (filter.startsWith("T_INTERSECTS(event_timestamp, TIMESTAMP")) continue;
      expect(expected(pred).length, filter).toBeGreaterThan(0);
    }
  });

  it("accepts filter-lang=cql2-text and filter-crs=CRS84, rejects other languages and CRSs", async () => {
    const ok = await app.get(
      `${ITEMS}?filter=chain%3D%27base%27&filter-lang=cql2-text&filter-crs=http://www.opengis.net/def/crs/OGC/1.3/CRS84`,
    );
    expect(ok.status).toBe(200);
    const json = await app.get(`${ITEMS}?filter=chain%3D%27base%27&filter-lang=cql2-xml`);
    expect(json.status).toBe(400);
    expect(json.body.parameter).toBe("filter-lang");
    expect((await app.get(`${ITEMS}?filter=chain%3D%27base%27&filter-crs=EPSG:4326`)).status).toBe(400);
  });

  it("combines with the other parameters (AND)", async () => {
    const res = await app.get(
      `${ITEMS}?limit=1000&chain=celo&filter=${encodeURIComponent("revoked = false")}`,
    );
    expect(res.body.numberMatched).toBe(rows.filter((r) => r.chain === "celo" && !r.revoked).length);
  });
});

describe("CQL2 text: errors and hostile input are 400s, never SQL", () => {
  const bad = [
    "chain = ",
    "chain = 'base",
    "colour = 'red'",
    "chain = 5",
    "block_number = 'five'",
    "revoked > true",
    "chain == 'base'",
    "chain = 'base' AND",
    "(chain = 'base'",
    "chain = 'base')",
    "S_INTERSECTS(chain, BBOX(0,0,1,1))",
    "S_INTERSECTS(geometry, BBOX(0,0,1))",
    "S_INTERSECTS(geometry, BBOX(0,0,200,1))",
    "S_INTERSECTS(geometry, BBOX(0,2,1,1))",
    "S_INTERSECTS(geometry, BBOX(0,0,10,1,1,5))",
    "S_INTERSECTS(geometry, BBOX(0,0,-95,1,1))",
    "S_INTERSECTS(geometry, BBOX(0,0,1,1,1,1,1))",
    "S_INTERSECTS(geometry, POLYGON((0 0, 1 0, 1 1)))",
    "S_INTERSECTS(geometry, POLYGON((0 0, 1 0, 1 1, 0 2)))",
    "S_CONTAINS(geometry, BBOX(0,0,1))",
    "T_DURING(chain, INTERVAL('2025-01-01', '2025-02-01'))",
    "1 = 'a'",
    "T_WHENEVER(event_timestamp, DATE('2025-01-01'))",
    "latitude / 'a' > 1",
    "CASEI(block_number) = 'a'",
    "A_CONTAINS(chain, ('a'))",
    "A_CONTAINS(media_type, (1, 2)) AND media_type = 'a'",
    "T_AFTER(chain, TIMESTAMP('2025-01-01T00:00:00Z'))",
    "T_AFTER(event_timestamp, TIMESTAMP('yesterday'))",
    "event_timestamp > DATE('2025-02-30')",
    "chain LIKE 5",
    "block_number LIKE '1%'",
    "chain = 'base'; DROP TABLE location_proofs; --",
    "chain = 'base' OR 1=1 --",
    "\"chain\"; select pg_sleep(10) = 'x'",
    "chain = 'x' UNION SELECT * FROM location_proofs",
    "pg_sleep(10) = 1",
    "location_proofs.chain = 'base'",
    `${"(".repeat(100)}chain = 'base'${")".repeat(100)}`,
    `chain = '${"x".repeat(9000)}'`,
    "chain IN ()",
    "chain = 'a' AND AND chain = 'b'",
    "chain = \u0000",
    "constructor = 'a'",
    "toString IS NULL",
    "__proto__ = 'a'",
    "hasOwnProperty BETWEEN 1 AND 2",
    "valueOf IN ('a')",
    "T_AFTER(constructor, TIMESTAMP('2025-01-01T00:00:00Z'))",
    "chain = constructor",
    "event_timestamp = '2021-02-30T00:00:00Z'",
    "event_timestamp = TIMESTAMP('2021-02-30T00:00:00Z')",
    "T_INTERSECTS(event_timestamp, INTERVAL('2021-02-30T00:00:00Z', '..'))",
    "T_INTERSECTS(event_timestamp, INTERVAL('2021-02-30', '..'))",
    "event_timestamp IN ('2021-02-29T12:00:00Z')",
    "event_timestamp BETWEEN '2021-01-01T00:00:00Z' AND '2021-04-31T00:00:00Z'",
    // A LIKE pattern that ends in its escape character (PostgreSQL refuses it), NUL in a literal (text cannot
    // hold it), nesting past the limit (NOT chains too), instants the database cannot hold.
    "memo LIKE '\\'",
    "memo LIKE 'abc\\'",
    "memo NOT LIKE '\\\\\\'",
    "uid = '\u0000'",
    "chain IN ('\u0000')",
    "memo LIKE 'a\u0000%'",
    "\"chain\u0000\" = 'base'",
    `${"NOT ".repeat(1000)}chain = 'base'`,
    `${"NOT ".repeat(33)}chain = 'base'`,
    `${"NOT (".repeat(20)}chain = 'base'${")".repeat(20)}`,
    "event_timestamp > TIMESTAMP('0000-01-01T00:00:00Z')",
    "event_timestamp > TIMESTAMP('0001-01-01T00:00:00+01:00')",
    "event_timestamp < TIMESTAMP('9999-12-31T23:59:59-01:00')",
    "event_timestamp > '0000-12-31T23:59:59Z'",
    "event_timestamp = DATE('0000-01-01')",
    "T_INTERSECTS(event_timestamp, INTERVAL('0000-06-01', '..'))",
    "attestation_time IN (TIMESTAMP('0000-01-01T00:00:00Z'))",
  ];
  it.each(bad)("rejects %s", async (filter) => {
    const res = await app.get(`${ITEMS}?filter=${encodeURIComponent(filter)}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "InvalidParameterValue", parameter: "filter" });
    expect(res.body.description).toMatch(/^filter: /);
  });

  it("takes what is inside the limits: an escaped backslash, 32 levels, the ends of years 0001-9999", async () => {
    for (const filter of [
      "memo LIKE '\\\\'",
      "memo LIKE '%\\%%'",
      `${"NOT ".repeat(32)}chain = 'base'`,
      "event_timestamp > TIMESTAMP('0001-01-01T00:00:00Z')",
      "event_timestamp < TIMESTAMP('9999-12-31T23:59:59Z')",
      "event_timestamp <= DATE('9999-12-31')",
      "T_INTERSECTS(event_timestamp, INTERVAL('0001-01-01', '9999-12-31'))",
    ]) {
      const res = await app.get(`${ITEMS}?limit=1&filter=${encodeURIComponent(filter)}`);
      expect(res.status, `${filter}: ${JSON.stringify(res.body).slice(0, 200)}`).toBe(200);
    }
    expect(await matching(`${"NOT ".repeat(32)}chain = 'base'`)).toEqual(expected((r) => r.chain === "base"));
    expect(await matching("event_timestamp <= DATE('9999-12-31')")).toEqual(expected(() => true));
  });

  it("treats quotes and SQL inside string literals as data", async () => {
    for (const filter of [
      "chain = 'base'' OR ''1''=''1'",
      "memo = 'x''); DROP TABLE location_proofs; --'",
      "memo LIKE '%''%'",
    ]) {
      expect(await matching(filter)).toEqual([]);
    }
    const still = await app.get(`${ITEMS}?limit=1`);
    expect(still.body.numberMatched).toBe(rows.length);
  });

  it("binds every literal as a parameter: the SQL text holds no value from the filter", () => {
    const dialect = new PgDialect();
    const compiled = dialect.sqlToQuery(
      cql2Filter(
        "memo = 'Robert''); DROP TABLE x; --' AND chain IN ('base','celo') AND block_number > 12345 AND S_INTERSECTS(geometry, POLYGON((1 1, 2 1, 2 2, 1 1))) AND T_AFTER(event_timestamp, DATE('2025-01-01'))",
      ),
    );
    expect(compiled.sql).not.toMatch(/DROP|Robert|base|celo|12345|2025/);
    expect(compiled.params).toEqual(
      expect.arrayContaining(["Robert'); DROP TABLE x; --", "base", "celo", "12345"]),
    );
  });
});

describe("CQL2 text: grammar", () => {
  it("gives NOT precedence over AND, and AND over OR", () => {
    const equals = (name: string, value: number) => ({
      kind: "compare",
      op: "=",
      left: { kind: "property", name },
      right: { kind: "number", value },
    });
    expect(parseCql2("a = 1 OR b = 2 AND NOT c = 3")).toEqual({
      kind: "or",
      args: [equals("a", 1), { kind: "and", args: [equals("b", 2), { kind: "not", arg: equals("c", 3) }] }],
    });
  });

  it("reads keywords in any case, quoted identifiers, negative numbers and doubled quotes", () => {
    expect(parseCql2(`"chain" in ('it''s', 'b') and x between -1.5e2 and +2`)).toMatchObject({
      kind: "and",
      args: [
        { kind: "in", list: [{ value: "it's" }, { value: "b" }] },
        { kind: "between", low: { value: -150 }, high: { value: 2 } },
      ],
    });
    expect(parseCql2("s_intersects(geometry, point(1 -2))")).toMatchObject({
      kind: "spatial",
      op: "s_intersects",
      args: [{ kind: "property" }, { kind: "point", coordinates: [1, -2] }],
    });
  });

  it("reads a timestamp the same way in TIMESTAMP(), an INTERVAL end and a timestamp string", () => {
    const forms: [string, boolean][] = [
      ["2025-01-31T12:00:00Z", true],
      ["2025-01-31t12:00:00z", true],
      ["2025-01-31T12:00:00.123456Z", true],
      ["2025-01-31T13:00:00+01:00", true],
      ["2024-02-29T00:00:00Z", true],
      ["2021-02-30T00:00:00Z", false],
      ["2025-13-01T00:00:00Z", false],
      ["2025-01-31T24:00:00Z", false],
      ["2025-01-31T12:00Z", false],
      ["2025-01-31T12:00:00", false],
      ["2025-01-31 12:00:00Z", false],
      ["2025-01-31T12:00:00+0100", false],
    ];
    const compiles = (filter: string) => {
      try {
        cql2Filter(filter);
        return true;
      } catch {
        return false;
      }
    };
    for (const [value, valid] of forms) {
      expect(compiles(`event_timestamp = TIMESTAMP('${value}')`), `TIMESTAMP ${value}`).toBe(valid);
      expect(compiles(`T_AFTER(event_timestamp, INTERVAL('${value}', '..'))`), `INTERVAL ${value}`).toBe(
        valid,
      );
      expect(compiles(`event_timestamp = '${value}'`), `string ${value}`).toBe(valid);
    }
    const sqlOf = (filter: string) => new PgDialect().sqlToQuery(cql2Filter(filter)).params;
    expect(sqlOf("event_timestamp > TIMESTAMP('2025-01-31T13:00:00+01:00')")).toEqual([
      "2025-01-31T12:00:00.000Z",
    ]);
    expect(sqlOf("event_timestamp > '2025-01-31T13:00:00+01:00'")).toEqual(["2025-01-31T12:00:00.000Z"]);
  });

  it("limits IN lists, and reads every parenthesised list alike", () => {
    const items = (n: number) => Array.from({ length: n }, (_, i) => `'c${i}'`).join(", ");
    expect(parseCql2(`chain IN (${items(1000)})`)).toMatchObject({ kind: "in" });
    expect(() => parseCql2(`chain IN (${items(1001)})`)).toThrow(/IN lists are limited to 1000 items/);
    expect(
      parseCql2(
        "S_INTERSECTS(geometry, POLYGON((0 0, 1 0, 1 1, 0 0), (0.2 0.2, 0.3 0.2, 0.2 0.3, 0.2 0.2)))",
      ),
    ).toMatchObject({
      args: [{ kind: "property" }, { kind: "polygon", coordinates: [{ length: 4 }, { length: 4 }] }],
    });
    expect(parseCql2("T_AFTER(event_timestamp, INTERVAL('2025-01-01', DATE('2025-01-02')))")).toMatchObject({
      args: [{}, { kind: "interval", start: { kind: "date" }, end: { kind: "date" } }],
    });
    expect(() => parseCql2("chain IN ('a',)")).toThrow();
    expect(() => parseCql2("S_INTERSECTS(geometry, BBOX())")).toThrow();
  });

  it("points to the position of a syntax error", () => {
    expect(() => parseCql2("chain = 'a' AND ?")).toThrow(/at character 17/);
  });
});
