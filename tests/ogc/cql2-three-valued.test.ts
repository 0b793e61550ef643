import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { NewLocationProofRow } from "../../db/schema.js";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import { appWith, type TestApp } from "../helpers/app.js";

/**
 * The service against an evaluator written here, apart from the compiler: random filters over every kind of
 * queryable, in both encodings, on proofs with nulls in every nullable queryable. CQL2 (like SQL) has three
 * values: a predicate on a null is unknown, NOT unknown is unknown, unknown AND false is false, unknown OR true is
 * true, and only true selects. The evaluator below spells those tables out itself.
 */

type V = boolean | null;
const not = (a: V): V => (a === null ? null : !a);
const and = (a: V, b: V): V => (a === false || b === false ? false : a === null || b === null ? null : true);
const or = (a: V, b: V): V => (a === true || b === true ? true : a === null || b === null ? null : false);

const NOW = new Date("2025-06-01T00:00:00Z");
const rand = (() => {
  let s = 42;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
})();
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const MEMOS = ["Berlin", "berlin", "Zürich", "Zurich", "ZÜRICH", "Malmö", "sample", null];
const MEDIA = [["image/jpeg"], ["image/png", "image/jpeg"], ["video/mp4"], [], null];

/** Sample proofs with nulls spread over every nullable queryable. */
const rows: NewLocationProofRow[] = sampleProofs({ count: 240, seed: 11, now: NOW }).map((r) => {
  const out = { ...r, memo: pick(MEMOS), mediaType: pick(MEDIA) };
  if (rand() < 0.2) out.eventTimestamp = null;
  if (rand() < 0.15) out.locationType = null;
  if (rand() < 0.15) out.srs = null;
  if (rand() < 0.15) out.protocolVersion = null;
  if (rand() < 0.2)
    Object.assign(out, {
      latitude: null,
      longitude: null,
      minLon: null,
      minLat: null,
      maxLon: null,
      maxLat: null,
      geometry: null,
    });
  return out;
});

let app: TestApp;
appWith(rows, (a) => {
  app = a;
});

/** A filter in this test's own terms: its text, its JSON, and its value on a row. */
type F = { text: string; json: unknown; eval: (r: NewLocationProofRow) => V };

const prop = (name: string) => ({ property: name });
const ms = (d: Date | null | undefined) => (d ? d.getTime() : null);
const times = rows.map((r) => r.eventTimestamp).filter((d): d is Date => d != null);
const instants = [...times.slice(0, 6), new Date("2025-03-01T00:00:00Z"), new Date("2025-05-15T12:00:00Z")];
const iso = (d: Date) => d.toISOString();

const cmp = (
  a: number | string | boolean | null | undefined,
  op: string,
  b: number | string | boolean,
): V => {
  if (a === null || a === undefined) return null;
  switch (op) {
    case "=":
      return a === b;
    case "<>":
      return a !== b;
    case "<":
      return a < b;
    case "<=":
      return a <= b;
    case ">":
      return a > b;
    default:
      return a >= b;
  }
};
const OPS = ["=", "<>", "<", "<=", ">", ">="] as const;

const numberField = fc.constantFrom(
  ["latitude", (r: NewLocationProofRow) => r.latitude],
  ["longitude", (r: NewLocationProofRow) => r.longitude],
  ["block_number", (r: NewLocationProofRow) => r.blockNumber],
) as fc.Arbitrary<[string, (r: NewLocationProofRow) => number | null | undefined]>;
const stringField = fc.constantFrom(
  ["memo", (r: NewLocationProofRow) => r.memo],
  ["location_type", (r: NewLocationProofRow) => r.locationType],
  ["srs", (r: NewLocationProofRow) => r.srs],
  ["protocol_version", (r: NewLocationProofRow) => r.protocolVersion],
  ["chain", (r: NewLocationProofRow) => r.chain],
) as fc.Arbitrary<[string, (r: NewLocationProofRow) => string | null | undefined]>;
const stringValue: fc.Arbitrary<string> = fc.constantFrom(
  "Berlin",
  "berlin",
  "Zürich",
  "0.1",
  "base",
  "EPSG:4326",
  "address",
  "x",
);

const numberCompare: fc.Arbitrary<F> = fc
  .tuple(numberField, fc.constantFrom(...OPS), fc.constantFrom(-30, 0, 10.5, 51, 1_000_100, 1_000_200))
  .map(([[name, get], op, n]) => ({
    text: `${name} ${op} ${n}`,
    json: { op, args: [prop(name), n] },
    eval: (r) => cmp(get(r), op, n),
  }));

const stringCompare: fc.Arbitrary<F> = fc
  .tuple(stringField, fc.constantFrom("=", "<>"), stringValue)
  .map(([[name, get], op, v]) => ({
    text: `${name} ${op} '${v}'`,
    json: { op, args: [prop(name), v] },
    eval: (r) => cmp(get(r), op, v),
  }));

const isNull: fc.Arbitrary<F> = fc
  .constantFrom(
    ["event_timestamp", (r: NewLocationProofRow) => r.eventTimestamp],
    ["memo", (r: NewLocationProofRow) => r.memo],
    ["latitude", (r: NewLocationProofRow) => r.latitude],
    ["media_type", (r: NewLocationProofRow) => r.mediaType],
  )
  .map(([name, get]) => ({
    text: `${name} IS NULL`,
    json: { op: "isNull", args: [prop(name as string)] },
    eval: (r) => (get as (r: NewLocationProofRow) => unknown)(r) == null,
  }));

const between: fc.Arbitrary<F> = fc
  .tuple(numberField, fc.constantFrom(-10, 40), fc.constantFrom(45, 1_000_150))
  .map(([[name, get], lo, hi]) => ({
    text: `${name} BETWEEN ${lo} AND ${hi}`,
    json: { op: "between", args: [prop(name), lo, hi] },
    eval: (r) => and(cmp(get(r), ">=", lo), cmp(get(r), "<=", hi)),
  }));

const inList: fc.Arbitrary<F> = fc
  .tuple(stringField, fc.uniqueArray(stringValue, { minLength: 1, maxLength: 3 }))
  .map(([[name, get], vs]) => ({
    text: `${name} IN (${vs.map((v) => `'${v}'`).join(", ")})`,
    json: { op: "in", args: [prop(name), vs] },
    eval: (r) => {
      const v = get(r);
      return v == null ? null : vs.includes(v);
    },
  }));

const fold = (s: string) => s.normalize("NFD").replace(/[\u0300-\u036f]/g, "");
const insensitive: fc.Arbitrary<F> = fc
  .tuple(fc.constantFrom("casei", "accenti"), fc.constantFrom("Zürich", "zurich", "BERLIN", "malmo"))
  .map(([fn, v]) => ({
    text: `${fn.toUpperCase()}(memo) = ${fn.toUpperCase()}('${v}')`,
    json: {
      op: "=",
      args: [
        { op: fn, args: [prop("memo")] },
        { op: fn, args: [v] },
      ],
    },
    eval: (r) => {
      if (r.memo == null) return null;
      const f = fn === "casei" ? (s: string) => s.toLowerCase() : fold;
      return f(r.memo) === f(v);
    },
  }));

const like: fc.Arbitrary<F> = fc.constantFrom("Z%", "%rich", "B_rlin", "%").map((pattern) => {
  const re = new RegExp(`^${pattern.replace(/%/g, ".*").replace(/_/g, ".")}$`, "s");
  return {
    text: `memo LIKE '${pattern}'`,
    json: { op: "like", args: [prop("memo"), pattern] },
    eval: (r) => (r.memo == null ? null : re.test(r.memo)),
  };
});

const propertyProperty: fc.Arbitrary<F> = fc.constantFrom(...OPS).map((op) => ({
  text: `latitude ${op} longitude`,
  json: { op, args: [prop("latitude"), prop("longitude")] },
  eval: (r) => (r.longitude == null ? null : cmp(r.latitude, op, r.longitude)),
}));

const arithmetic: fc.Arbitrary<F> = fc
  .tuple(
    fc.constantFrom("+", "-", "*", "/"),
    fc.constantFrom(2, -3, 0),
    fc.constantFrom(">", "<"),
    fc.constantFrom(10, 100),
  )
  .map(([aop, k, op, n]) => ({
    text: `latitude ${aop} ${k} ${op} ${n}`,
    json: { op, args: [{ op: aop, args: [prop("latitude"), k] }, n] },
    eval: (r) => {
      if (r.latitude == null) return null;
      const x = r.latitude;
      // Division by zero is unknown.
      const v = aop === "+" ? x + k : aop === "-" ? x - k : aop === "*" ? x * k : k === 0 ? null : x / k;
      return v === null ? null : cmp(v, op, n);
    },
  }));

/** Allen's relations of [a1, a2] and [b1, b2], written from the standard's table. */
const ALLEN: Record<string, (a1: number, a2: number, b1: number, b2: number) => boolean> = {
  T_AFTER: (a1, _a2, _b1, b2) => a1 > b2,
  T_BEFORE: (_a1, a2, b1) => a2 < b1,
  T_CONTAINS: (a1, a2, b1, b2) => a1 < b1 && a2 > b2,
  T_DISJOINT: (a1, a2, b1, b2) => a1 > b2 || a2 < b1,
  T_DURING: (a1, a2, b1, b2) => a1 > b1 && a2 < b2,
  T_EQUALS: (a1, a2, b1, b2) => a1 === b1 && a2 === b2,
  T_FINISHEDBY: (a1, a2, b1, b2) => a1 < b1 && a2 === b2,
  T_FINISHES: (a1, a2, b1, b2) => a1 > b1 && a2 === b2,
  T_INTERSECTS: (a1, a2, b1, b2) => a1 <= b2 && a2 >= b1,
  T_MEETS: (_a1, a2, b1) => a2 === b1,
  T_METBY: (a1, _a2, _b1, b2) => a1 === b2,
  T_OVERLAPPEDBY: (a1, a2, b1, b2) => a1 > b1 && a1 < b2 && a2 > b2,
  T_OVERLAPS: (a1, a2, b1, b2) => a1 < b1 && a2 > b1 && a2 < b2,
  T_STARTEDBY: (a1, a2, b1, b2) => a1 === b1 && a2 > b2,
  T_STARTS: (a1, a2, b1, b2) => a1 === b1 && a2 < b2,
};
const end = fc.option(fc.constantFrom(...instants), { nil: undefined });
const temporal: fc.Arbitrary<F> = fc
  .tuple(fc.constantFrom(...Object.keys(ALLEN)), fc.boolean(), end, end, fc.constantFrom(...instants))
  .map(([fn, interval, s, e, instant]) => {
    const [lo, hi] = s && e && s > e ? [e, s] : [s, e];
    const b1 = interval ? (lo ? lo.getTime() : -Infinity) : instant.getTime();
    const b2 = interval ? (hi ? hi.getTime() : Infinity) : instant.getTime();
    const textArg = interval
      ? `INTERVAL(${lo ? `'${iso(lo)}'` : "'..'"}, ${hi ? `'${iso(hi)}'` : "'..'"})`
      : `TIMESTAMP('${iso(instant)}')`;
    const jsonArg = interval
      ? { interval: [lo ? iso(lo) : "..", hi ? iso(hi) : ".."] }
      : { timestamp: iso(instant) };
    return {
      text: `${fn}(event_timestamp, ${textArg})`,
      json: { op: fn.toLowerCase(), args: [prop("event_timestamp"), jsonArg] },
      eval: (r) => {
        const t = ms(r.eventTimestamp);
        return t === null ? null : ALLEN[fn]!(t, t, b1, b2);
      },
    };
  });

const spatial: fc.Arbitrary<F> = fc
  .tuple(
    fc.constantFrom("S_INTERSECTS", "S_DISJOINT"),
    fc.constantFrom([-10, 35, 30, 60], [-130, 20, -60, 55], [170, -50, -170, 10]),
  )
  .map(([fn, [w, s, e, n]]) => ({
    text: `${fn}(geometry, BBOX(${w}, ${s}, ${e}, ${n}))`,
    json: { op: fn.toLowerCase(), args: [prop("geometry"), { bbox: [w, s, e, n] }] },
    eval: (r) => {
      if (r.longitude == null || r.latitude == null) return null;
      const x = r.longitude;
      const inside =
        (w! <= e! ? x >= w! && x <= e! : x >= w! || x <= e!) && r.latitude >= s! && r.latitude <= n!;
      return fn === "S_INTERSECTS" ? inside : !inside;
    },
  }));

const ARRAYS: Record<string, (a: string[], b: string[]) => boolean> = {
  A_EQUALS: (a, b) => a.length === b.length && a.every((x, i) => x === b[i]),
  A_CONTAINS: (a, b) => b.every((x) => a.includes(x)),
  A_CONTAINEDBY: (a, b) => a.every((x) => b.includes(x)),
  A_OVERLAPS: (a, b) => a.some((x) => b.includes(x)),
};
const arrays: fc.Arbitrary<F> = fc
  .tuple(
    fc.constantFrom(...Object.keys(ARRAYS)),
    fc.constantFrom(["image/jpeg"], ["image/png", "image/jpeg"], ["video/mp4", "x"]),
  )
  .map(([fn, items]) => ({
    text: `${fn}(media_type, (${items.map((x) => `'${x}'`).join(", ")}))`,
    json: { op: fn.toLowerCase(), args: [prop("media_type"), items] },
    eval: (r) => (r.mediaType == null ? null : ARRAYS[fn]!(r.mediaType as string[], [...items])),
  }));

const literal: fc.Arbitrary<F> = fc.boolean().map((b) => ({
  text: b ? "TRUE" : "FALSE",
  json: b,
  eval: () => b,
}));

const atom = fc.oneof(
  numberCompare,
  stringCompare,
  isNull,
  between,
  inList,
  insensitive,
  like,
  propertyProperty,
  arithmetic,
  temporal,
  spatial,
  arrays,
  literal,
);

const filter: fc.Arbitrary<F> = fc.letrec<{ f: F }>((tie) => ({
  f: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    atom,
    tie("f").map(
      (a): F => ({
        text: `NOT (${a.text})`,
        json: { op: "not", args: [a.json] },
        eval: (r) => not(a.eval(r)),
      }),
    ),
    fc.tuple(tie("f"), tie("f")).map(
      ([a, b]): F => ({
        text: `(${a.text}) AND (${b.text})`,
        json: { op: "and", args: [a.json, b.json] },
        eval: (r) => and(a.eval(r), b.eval(r)),
      }),
    ),
    fc.tuple(tie("f"), tie("f")).map(
      ([a, b]): F => ({
        text: `(${a.text}) OR (${b.text})`,
        json: { op: "or", args: [a.json, b.json] },
        eval: (r) => or(a.eval(r), b.eval(r)),
      }),
    ),
  ),
})).f;

const ITEMS = "/api/ogc/collections/location-proofs/items";

async function served(f: F, lang: "cql2-text" | "cql2-json"): Promise<string[]> {
  const value = lang === "cql2-text" ? f.text : JSON.stringify(f.json);
  const res = await app.get(`${ITEMS}?limit=1000&filter-lang=${lang}&filter=${encodeURIComponent(value)}`);
  expect(res.status, `${value}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(200);
  return res.body.features.map((x: { id: string }) => x.id).sort();
}
const selected = (f: F) =>
  rows
    .filter((r) => f.eval(r) === true)
    .map((r) => r.uid)
    .sort();

describe("CQL2 three-valued logic: the service agrees with an independent evaluator", () => {
  it("has nulls in every nullable queryable", () => {
    for (const field of [
      "eventTimestamp",
      "memo",
      "locationType",
      "srs",
      "protocolVersion",
      "latitude",
      "mediaType",
    ])
      expect(
        rows.some((r) => (r as Record<string, unknown>)[field] == null),
        field,
      ).toBe(true);
  });

  it("the reported wrong answers: NOT of a temporal predicate with an open end leaves out proofs without a time", async () => {
    const cut = instants[6]!;
    for (const text of [
      `NOT T_BEFORE(event_timestamp, INTERVAL('..', '${iso(cut)}'))`,
      `NOT T_INTERSECTS(event_timestamp, INTERVAL('${iso(cut)}', '..'))`,
      `NOT T_AFTER(event_timestamp, INTERVAL('${iso(cut)}', '..'))`,
      `NOT (T_AFTER(event_timestamp, INTERVAL('${iso(cut)}', '..')) OR chain = 'nowhere')`,
    ]) {
      const ids = await served({ text, json: null, eval: () => null }, "cql2-text");
      const withoutTime = new Set(rows.filter((r) => r.eventTimestamp == null).map((r) => r.uid));
      expect(
        ids.filter((id) => withoutTime.has(id)),
        text,
      ).toEqual([]);
    }
  });

  it("on random filters of every class, in CQL2 text and in CQL2 JSON", async () => {
    await fc.assert(
      fc.asyncProperty(
        filter,
        fc.constantFrom("cql2-text" as const, "cql2-json" as const),
        async (f, lang) => {
          expect(await served(f, lang), lang === "cql2-text" ? f.text : JSON.stringify(f.json)).toEqual(
            selected(f),
          );
        },
      ),
      { numRuns: 150, seed: 34 },
    );
  }, 240_000);
});
