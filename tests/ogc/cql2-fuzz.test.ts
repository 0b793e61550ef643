import { wktToGeoJSON } from "@terraformer/wkt";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import { ARRAY_OPS, SPATIAL_OPS, TEMPORAL_OPS } from "../../lib/ogc/cql2/ast.js";
import { CQL_LIMITS } from "../../lib/ogc/cql2/index.js";
import { appWith, type TestApp } from "../helpers/app.js";

/**
 * The CQL2 fuzzer (issue 34): generated filters of every operator of every declared class, in CQL2 text and CQL2
 * JSON, on both collections, and hostile filters made from them: malformed JSON, unknown operators, wrong numbers
 * of arguments, type mismatches, invalid geometries (unclosed rings, NaN and infinite coordinates, out of range) and
 * every limit exceeded (length, depth, vertices, list and array items, arithmetic operators) in both encodings.
 * Never a 5xx. A hostile filter is a 400 naming `filter` and saying where (`details.where`: a character of the text
 * or a JSON pointer). A well-formed filter is a 200, and its text and its JSON select the same features. The
 * broader request fuzzer (tests/http/hostile-input.test.ts) sends filters too, among every other parameter.
 * CQL2_FUZZ_RUNS sets the number of generated cases (a fixed seed, CQL2_FUZZ_SEED, so a run is deterministic).
 */
const RUNS = Number(process.env.CQL2_FUZZ_RUNS ?? 400);
const SEED = Number(process.env.CQL2_FUZZ_SEED ?? 34);

let app: TestApp;
appWith(sampleProofs({ count: 120, seed: 34, now: new Date("2025-06-01T00:00:00Z") }), (a) => {
  app = a;
});

const COLLECTIONS = ["location-proofs", "location-proof-shapes"] as const;

// ---- well-formed filters: each as its text and its JSON ------------------------------------------------------

type Pair = { text: string; json: unknown };
const prop = (name: string) => ({ property: name });
const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;
const num = (n: number) => (Object.is(n, -0) ? "0" : String(n));

const NUMBER_PROPS = ["latitude", "longitude", "block_number", "chain_id"] as const;
const STRING_PROPS = [
  "chain",
  "memo",
  "srs",
  "location_type",
  "uid",
  "prover",
  "location_type_normalized",
] as const;
const TIME_PROPS = ["event_timestamp", "attestation_time"] as const;
const ARRAY_PROPS = ["recipe_type", "media_type"] as const;
const FAMILY: Record<string, string> = {
  ...Object.fromEntries(NUMBER_PROPS.map((p) => [p, "number"])),
  ...Object.fromEntries(STRING_PROPS.map((p) => [p, "string"])),
  ...Object.fromEntries(TIME_PROPS.map((p) => [p, "time"])),
  ...Object.fromEntries(ARRAY_PROPS.map((p) => [p, "array"])),
  revoked: "boolean",
  geometry: "geometry",
};
const ALL_PROPS = Object.keys(FAMILY);
const COMPARISONS = ["=", "<>", "<", "<=", ">", ">="] as const;
const ARITHMETIC = ["+", "-", "*", "/", "%", "div", "^"] as const;
// The operators of every class the service declares, as the parser knows them: a new one is fuzzed from the start.
const SPATIAL = SPATIAL_OPS;
const TEMPORAL = TEMPORAL_OPS;
const ARRAYS = ARRAY_OPS;

const number = fc.oneof(
  fc.integer({ min: -200, max: 2_000_000 }),
  fc.double({ min: -200, max: 200, noNaN: true, noDefaultInfinity: true }),
);
const string = fc.constantFrom(
  "base",
  "Berlin",
  "berlin",
  "Zürich",
  "O'Brien",
  "devnet",
  "",
  "EPSG:4326",
  "x",
);
const pattern = fc.constantFrom("%", "B%", "%rich", "b_rlin", "\\%", "Z%", "%e%");
const instant = fc
  .date({ min: new Date("2024-01-01T00:00:00Z"), max: new Date("2026-12-31T23:59:59Z"), noInvalidDate: true })
  .map((d) => d.toISOString());
const day = instant.map((t) => t.slice(0, 10));
const compare = fc.constantFrom(...COMPARISONS);

const numberProp = fc.constantFrom(...NUMBER_PROPS);
const stringProp = fc.constantFrom(...STRING_PROPS);
const timeProp = fc.constantFrom(...TIME_PROPS);
const arrayProp = fc.constantFrom(...ARRAY_PROPS);

/** A numeric value: a property, a number, or arithmetic over them (every operator). */
const numericValue: fc.Arbitrary<Pair> = fc.letrec<{ v: Pair }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    numberProp.map((p): Pair => ({ text: p, json: prop(p) })),
    number.map((n): Pair => ({ text: num(n), json: n })),
    fc
      .tuple(tie("v"), fc.constantFrom(...ARITHMETIC), tie("v"))
      .map(
        ([a, op, b]): Pair => ({ text: `(${a.text} ${op} ${b.text})`, json: { op, args: [a.json, b.json] } }),
      ),
  ),
})).v;

/** A string value, perhaps under CASEI and ACCENTI. */
const insensitive = (inner: fc.Arbitrary<Pair>): fc.Arbitrary<Pair> =>
  fc
    .tuple(inner, fc.subarray(["casei", "accenti"] as const))
    .map(([v, wraps]) =>
      wraps.reduce<Pair>(
        (x, w) => ({ text: `${w.toUpperCase()}(${x.text})`, json: { op: w, args: [x.json] } }),
        v,
      ),
    );
const stringLiteral = string.map((s): Pair => ({ text: quote(s), json: s }));
const stringProperty = stringProp.map((p): Pair => ({ text: p, json: prop(p) }));

const timeLiteral: fc.Arbitrary<Pair> = fc.oneof(
  instant.map((t): Pair => ({ text: `TIMESTAMP('${t}')`, json: { timestamp: t } })),
  day.map((d): Pair => ({ text: `DATE('${d}')`, json: { date: d } })),
);
const intervalEnd: fc.Arbitrary<Pair> = fc.oneof(
  fc.constant<Pair>({ text: "'..'", json: ".." }),
  day.map((d): Pair => ({ text: quote(d), json: d })),
  instant.map((t): Pair => ({ text: quote(t), json: t })),
  timeProp.map((p): Pair => ({ text: p, json: prop(p) })),
);
const temporalOperand: fc.Arbitrary<Pair> = fc.oneof(
  timeProp.map((p): Pair => ({ text: p, json: prop(p) })),
  timeLiteral,
  fc
    .tuple(intervalEnd, intervalEnd)
    // An interval that ends before it starts is a 400 of its own (invalid), not the well-formed case.
    .filter(([a, b]) => !(typeof a.json === "string" && typeof b.json === "string" && a.json > b.json))
    .map(
      ([a, b]): Pair => ({ text: `INTERVAL(${a.text}, ${b.text})`, json: { interval: [a.json, b.json] } }),
    ),
);

const lon = fc.double({ min: -180, max: 180, noNaN: true });
const lat = fc.double({ min: -90, max: 90, noNaN: true });
const position = fc.tuple(lon, lat);
const wkt = ([x, y]: [number, number]) => `${num(x)} ${num(y)}`;
/** A square ring around a position, closed, inside the globe. */
const ring = ([x, y]: [number, number], r: number): [number, number][] => {
  const [w, e] = [Math.max(x - r, -180), Math.min(x + r, 180)];
  const [s, n] = [Math.max(y - r, -90), Math.min(y + r, 90)];
  return [
    [w, s],
    [e, s],
    [e, n],
    [w, n],
    [w, s],
  ];
};
const polygonCoords = fc
  .tuple(position, fc.double({ min: 0.5, max: 40, noNaN: true }), fc.boolean())
  .map(([c, r, hole]) => (hole ? [ring(c, r), ring(c, r / 4)] : [ring(c, r)]));
const lineCoords = fc.array(position, { minLength: 2, maxLength: 5 });
const rings = (rs: [number, number][][]) => `(${rs.map((r) => `(${r.map(wkt).join(", ")})`).join(", ")})`;

type Geo = { text: string; json: unknown };
const simpleGeometry: fc.Arbitrary<Geo> = fc.oneof(
  position.map((p): Geo => ({ text: `POINT(${wkt(p)})`, json: { type: "Point", coordinates: p } })),
  fc.array(position, { minLength: 1, maxLength: 4 }).map(
    (ps): Geo => ({
      text: `MULTIPOINT(${ps.map((p) => `(${wkt(p)})`).join(", ")})`,
      json: { type: "MultiPoint", coordinates: ps },
    }),
  ),
  lineCoords.map(
    (ps): Geo => ({
      text: `LINESTRING(${ps.map(wkt).join(", ")})`,
      json: { type: "LineString", coordinates: ps },
    }),
  ),
  fc.array(lineCoords, { minLength: 1, maxLength: 3 }).map(
    (ls): Geo => ({
      text: `MULTILINESTRING${rings(ls)}`,
      json: { type: "MultiLineString", coordinates: ls },
    }),
  ),
  polygonCoords.map(
    (rs): Geo => ({ text: `POLYGON${rings(rs)}`, json: { type: "Polygon", coordinates: rs } }),
  ),
  fc.array(polygonCoords, { minLength: 1, maxLength: 3 }).map(
    (ps): Geo => ({
      text: `MULTIPOLYGON(${ps.map(rings).join(", ")})`,
      json: { type: "MultiPolygon", coordinates: ps },
    }),
  ),
);
const geometryLiteral: fc.Arbitrary<Geo> = fc.oneof(
  simpleGeometry,
  fc.array(simpleGeometry, { minLength: 1, maxLength: 3 }).map(
    (gs): Geo => ({
      text: `GEOMETRYCOLLECTION(${gs.map((g) => g.text).join(", ")})`,
      json: { type: "GeometryCollection", geometries: gs.map((g) => g.json) },
    }),
  ),
  fc.tuple(lon, lat, lon, lat).map(([w, a, e, b]): Geo => {
    const [s, n] = a <= b ? [a, b] : [b, a];
    return { text: `BBOX(${[w, s, e, n].map(num).join(", ")})`, json: { bbox: [w, s, e, n] } };
  }),
);

const arrayLiteral: fc.Arbitrary<Pair> = fc
  .array(fc.constantFrom("image/jpeg", "image/png", "gps", "wifi", "x"), { maxLength: 3 })
  .map((items) => ({ text: `(${items.map(quote).join(", ")})`, json: items }));

const fn = (op: string, args: Pair[]): Pair => ({
  text: `${op.toUpperCase()}(${args.map((a) => a.text).join(", ")})`,
  json: { op, args: args.map((a) => a.json) },
});
const binary = (op: string, a: Pair, b: Pair): Pair => ({
  text: `${a.text} ${op} ${b.text}`,
  json: { op, args: [a.json, b.json] },
});
const not = (p: Pair): Pair => ({ text: `NOT (${p.text})`, json: { op: "not", args: [p.json] } });

/** One predicate of each kind, every operator of every class. */
const predicate: fc.Arbitrary<Pair> = fc.oneof(
  // basic-cql2 and property-property, arithmetic
  fc.tuple(numericValue, compare, numericValue).map(([a, op, b]) => binary(op, a, b)),
  fc
    .tuple(stringProperty, compare, fc.oneof(stringLiteral, stringProperty))
    .map(([a, op, b]) => binary(op, a, b)),
  fc
    .tuple(fc.constantFrom("=", "<>"), fc.boolean())
    .map(([op, b]) =>
      binary(op, { text: "revoked", json: prop("revoked") }, { text: String(b).toUpperCase(), json: b }),
    ),
  fc
    .tuple(
      timeProp,
      compare,
      fc.oneof(
        timeLiteral,
        timeProp.map((p): Pair => ({ text: p, json: prop(p) })),
      ),
    )
    .map(([p, op, b]) => binary(op, { text: p, json: prop(p) }, b)),
  fc.tuple(fc.constantFrom(...ALL_PROPS), fc.boolean()).map(([p, negated]) => {
    const isNull: Pair = { text: `${p} IS NULL`, json: { op: "isNull", args: [prop(p)] } };
    return negated ? { text: `${p} IS NOT NULL`, json: { op: "not", args: [isNull.json] } } : isNull;
  }),
  fc.boolean().map((b): Pair => ({ text: String(b).toUpperCase(), json: b })),
  // advanced-comparison-operators, case- and accent-insensitive comparison
  fc
    .tuple(
      insensitive(stringProperty),
      insensitive(pattern.map((s): Pair => ({ text: quote(s), json: s }))),
      fc.boolean(),
    )
    .map(([v, p, negated]) => {
      const like = binary("LIKE", v, p);
      return negated
        ? {
            text: `${v.text} NOT LIKE ${p.text}`,
            json: { op: "not", args: [{ op: "like", args: [v.json, p.json] }] },
          }
        : { text: like.text, json: { op: "like", args: [v.json, p.json] } };
    }),
  fc
    .tuple(insensitive(stringProperty), compare, insensitive(stringLiteral))
    .map(([a, op, b]) => binary(op, a, b)),
  fc.tuple(numericValue, numericValue, numericValue, fc.boolean()).map(([v, lo, hi, negated]) => {
    const json = { op: "between", args: [v.json, lo.json, hi.json] };
    return negated
      ? { text: `${v.text} NOT BETWEEN ${lo.text} AND ${hi.text}`, json: { op: "not", args: [json] } }
      : { text: `${v.text} BETWEEN ${lo.text} AND ${hi.text}`, json };
  }),
  fc
    .tuple(
      fc.oneof(
        fc.tuple(stringProperty, fc.array(stringLiteral, { minLength: 1, maxLength: 12 })),
        fc.tuple(
          numberProp.map((p): Pair => ({ text: p, json: prop(p) })),
          fc.array(
            number.map((n): Pair => ({ text: num(n), json: n })),
            { minLength: 1, maxLength: 12 },
          ),
        ),
        fc.tuple(
          timeProp.map((p): Pair => ({ text: p, json: prop(p) })),
          fc.array(
            instant.map((t): Pair => ({ text: `TIMESTAMP('${t}')`, json: { timestamp: t } })),
            { minLength: 1, maxLength: 10 },
          ),
        ),
      ),
      fc.boolean(),
    )
    .map(([[v, list], negated]) => {
      const json = { op: "in", args: [v.json, list.map((x) => x.json)] };
      const items = list.map((x) => x.text).join(", ");
      return negated
        ? { text: `${v.text} NOT IN (${items})`, json: { op: "not", args: [json] } }
        : { text: `${v.text} IN (${items})`, json };
    }),
  // the spatial classes: every function, every literal, either order
  fc.tuple(fc.constantFrom(...SPATIAL), geometryLiteral, fc.boolean()).map(([op, g, first]) => {
    const property: Pair = { text: "geometry", json: prop("geometry") };
    return fn(op, first ? [property, g] : [g, property]);
  }),
  // temporal-functions: every function, instants, days, intervals (open ends, property ends)
  fc
    .tuple(fc.constantFrom(...TEMPORAL), timeProp, temporalOperand, fc.boolean())
    .map(([op, p, other, first]) => {
      const property: Pair = { text: p, json: prop(p) };
      return fn(op, first ? [property, other] : [other, property]);
    }),
  // array-functions
  fc
    .tuple(
      fc.constantFrom(...ARRAYS),
      arrayProp,
      fc.oneof(
        arrayLiteral,
        arrayProp.map((p): Pair => ({ text: p, json: prop(p) })),
      ),
    )
    .map(([op, p, other]) => fn(op, [{ text: p, json: prop(p) }, other])),
);

/** Predicates under AND, OR and NOT, a few levels deep. */
const wellFormed: fc.Arbitrary<Pair> = fc.letrec<{ f: Pair }>((tie) => ({
  f: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    predicate,
    tie("f").map(not),
    fc
      .tuple(fc.constantFrom("and", "or"), fc.array(tie("f"), { minLength: 2, maxLength: 3 }))
      .map(([op, args]) => ({
        text: args.map((a) => `(${a.text})`).join(` ${op.toUpperCase()} `),
        json: { op, args: args.map((a) => a.json) },
      })),
  ),
})).f;

// ---- hostile filters -----------------------------------------------------------------------------------------

type Lang = "cql2-text" | "cql2-json";
/** A filter in one encoding; `bad`: it must be refused (a 400 naming filter, saying where), else it may pass. */
type Case = { lang: Lang; filter: string; bad: boolean; kind: string };
const text = (filter: string, kind: string, bad = true): Case => ({ lang: "cql2-text", filter, bad, kind });
const json = (value: unknown, kind: string, bad = true): Case => ({
  lang: "cql2-json",
  filter: typeof value === "string" ? value : JSON.stringify(value),
  bad,
  kind,
});
const both = (p: Pair, kind: string, bad = true): fc.Arbitrary<Case> =>
  fc.constantFrom(text(p.text, kind, bad), json(p.json, kind, bad));

const parses = (s: string) => {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
};

/** JSON that does not parse: a well-formed filter cut short, or with a stray character. */
const malformedJson: fc.Arbitrary<Case> = fc
  .tuple(
    wellFormed.filter((p) => typeof p.json === "object"),
    fc.nat(),
    fc.constantFrom("", "}", ",", "'", "\u0000", "NaN"),
  )
  .map(([p, at, junk]) => {
    const s = JSON.stringify(p.json);
    const cut = 1 + (at % (s.length - 1));
    const mangled = `${s.slice(0, cut)}${junk}`;
    return json(mangled, "malformed JSON", !parses(mangled));
  });

/** Text cut short or spliced: may still be a filter (`latitude > 10` cut to `latitude > 1`), never a 5xx. */
const mangledText: fc.Arbitrary<Case> = fc
  .tuple(wellFormed, fc.nat(), fc.constantFrom("", ")", "(", "'", '"', ",", " AND", "\u0000", "NaN"))
  .map(([p, at, junk]) => {
    const cut = at % (p.text.length + 1);
    return text(`${p.text.slice(0, cut)}${junk}${p.text.slice(cut + (at % 3))}`, "mangled text", false);
  });

const UNKNOWN_OPS = [
  "s_nearby",
  "t_around",
  "a_has",
  "avg",
  "contains",
  "===",
  "is",
  "st_intersects",
  "__proto__",
];
const unknownOperator: fc.Arbitrary<Case> = fc.oneof(
  fc
    .tuple(fc.constantFrom(...UNKNOWN_OPS), fc.constantFrom(...ALL_PROPS))
    .chain(([op, p]) =>
      fc.constantFrom(
        json({ op, args: [prop(p), 1] }, "unknown operator"),
        json({ op: ">", args: [{ op, args: [prop(p)] }, 1] }, "unknown operator"),
        text(`${/^[a-z_]+$/.test(op) ? op.toUpperCase() : "FOO"}(${p}, 1)`, "unknown operator"),
        text(`${p} ${op === "is" ? "IS LIKE" : "~~"} 1`, "unknown operator"),
      ),
    ),
  // A well-formed filter whose outermost operator is renamed.
  wellFormed
    .filter((p) => typeof p.json === "object" && p.json !== null && "op" in p.json)
    .chain((p) =>
      fc.constantFrom(...UNKNOWN_OPS).map((op) => json({ ...(p.json as object), op }, "unknown operator")),
    ),
);

/** One argument too few or too many, for every operator but AND and OR (which take any number from two). */
const wrongArity: fc.Arbitrary<Case> = fc.oneof(
  predicate
    .filter((p) => typeof p.json === "object" && p.json !== null && "op" in p.json)
    .chain((p) =>
      fc.boolean().map((drop) => {
        const j = p.json as { op: string; args: unknown[] };
        return json(
          { op: j.op, args: drop ? j.args.slice(0, -1) : [...j.args, j.args[0]] },
          "wrong number of arguments",
        );
      }),
    ),
  fc.constantFrom(
    text("S_INTERSECTS(geometry)", "wrong number of arguments"),
    text("S_WITHIN(geometry, POINT(0 0), POINT(1 1))", "wrong number of arguments"),
    text("T_AFTER(event_timestamp)", "wrong number of arguments"),
    text("T_DURING(event_timestamp, INTERVAL('..'))", "wrong number of arguments"),
    text("T_DURING(event_timestamp, INTERVAL('..', '..', '..'))", "wrong number of arguments"),
    text("A_CONTAINS(media_type)", "wrong number of arguments"),
    text("A_OVERLAPS(media_type, ('a'), ('b'))", "wrong number of arguments"),
    text("CASEI(memo, 'a') = 'a'", "wrong number of arguments"),
    text("ACCENTI() = 'a'", "wrong number of arguments"),
    text("S_INTERSECTS(geometry, BBOX(1, 2, 3))", "wrong number of arguments"),
    text("S_INTERSECTS(geometry, BBOX(1, 2, 3, 4, 5))", "wrong number of arguments"),
    text("event_timestamp > TIMESTAMP()", "wrong number of arguments"),
    text("event_timestamp > DATE('2025-01-01', '2025-01-02')", "wrong number of arguments"),
    text("latitude BETWEEN 1", "wrong number of arguments"),
    text("latitude IN ()", "wrong number of arguments"),
    json({ op: "and", args: [true] }, "wrong number of arguments"),
    json({ op: "or", args: [] }, "wrong number of arguments"),
    json({ op: "in", args: [prop("chain"), []] }, "wrong number of arguments"),
    json(
      { op: "t_during", args: [prop("event_timestamp"), { interval: [".."] }] },
      "wrong number of arguments",
    ),
    json({ op: "s_intersects", args: [prop("geometry"), { bbox: [1, 2, 3] }] }, "wrong number of arguments"),
  ),
);

/** Each operator with a property of a family it does not take. */
const MISMATCH: [family: string[], (p: string) => Pair][] = [
  [["number", "time"], (p) => ({ text: `${p} > 5`, json: { op: ">", args: [prop(p), 5] } })],
  [["string"], (p) => ({ text: `${p} = 'x'`, json: { op: "=", args: [prop(p), "x"] } })],
  [["string"], (p) => ({ text: `${p} LIKE 'a%'`, json: { op: "like", args: [prop(p), "a%"] } })],
  [
    ["string"],
    (p) => ({ text: `CASEI(${p}) = 'a'`, json: { op: "=", args: [{ op: "casei", args: [prop(p)] }, "a"] } }),
  ],
  [
    ["string"],
    (p) => ({
      text: `ACCENTI(${p}) = 'a'`,
      json: { op: "=", args: [{ op: "accenti", args: [prop(p)] }, "a"] },
    }),
  ],
  [
    ["number"],
    (p) => ({ text: `${p} + 1 > 2`, json: { op: ">", args: [{ op: "+", args: [prop(p), 1] }, 2] } }),
  ],
  [
    ["number", "time"],
    (p) => ({ text: `${p} BETWEEN 1 AND 2`, json: { op: "between", args: [prop(p), 1, 2] } }),
  ],
  [["number"], (p) => ({ text: `${p} IN (1, 2)`, json: { op: "in", args: [prop(p), [1, 2]] } })],
  [
    ["geometry"],
    (p) =>
      fn("s_intersects", [
        { text: p, json: prop(p) },
        { text: "POINT(0 0)", json: { type: "Point", coordinates: [0, 0] } },
      ]),
  ],
  [
    ["time"],
    (p) =>
      fn("t_after", [
        { text: p, json: prop(p) },
        { text: "TIMESTAMP('2025-01-01T00:00:00Z')", json: { timestamp: "2025-01-01T00:00:00Z" } },
      ]),
  ],
  [
    ["array"],
    (p) =>
      fn("a_contains", [
        { text: p, json: prop(p) },
        { text: "('a')", json: ["a"] },
      ]),
  ],
  [["boolean"], (p) => ({ text: `${p} = TRUE`, json: { op: "=", args: [prop(p), true] } })],
];
const typeMismatch: fc.Arbitrary<Case> = fc.oneof(
  fc
    .tuple(fc.constantFrom(...MISMATCH), fc.constantFrom(...ALL_PROPS))
    .filter(([[families], p]) => !families.includes(FAMILY[p]!))
    .chain(([[, make], p]) => both(make(p), "type mismatch")),
  fc.constantFrom(
    text("revoked > TRUE", "type mismatch"),
    text("latitude = 'x'", "type mismatch"),
    text("event_timestamp = 'yesterday'", "type mismatch"),
    text("'a' + 1 > 2", "type mismatch"),
    text("S_INTERSECTS(POINT(0 0), POINT(1 1))", "type mismatch"),
    text("A_CONTAINS(('a'), ('b'))", "type mismatch"),
    text("event_timestamp IN (DATE('2025-01-01'))", "type mismatch"),
    json({ op: "=", args: [prop("chain"), { bbox: [0, 0, 1, 1] }] }, "type mismatch"),
    json({ op: "t_after", args: [prop("event_timestamp"), 5] }, "type mismatch"),
    json({ op: "a_equals", args: [prop("media_type"), "a"] }, "type mismatch"),
    json({ op: "s_within", args: [prop("geometry"), [0, 0]] }, "type mismatch"),
  ),
);

/** Geometry literals that are not geometries, under every spatial function. */
const BAD_GEOMETRIES: Pair[] = [
  {
    text: "POLYGON((0 0, 1 0, 1 1, 0 1))",
    json: {
      type: "Polygon",
      coordinates: [
        [
          [0, 0],
          [1, 0],
          [1, 1],
          [0, 1],
        ],
      ],
    },
  },
  {
    text: "POLYGON((0 0, 1 0, 0 0))",
    json: {
      type: "Polygon",
      coordinates: [
        [
          [0, 0],
          [1, 0],
          [0, 0],
        ],
      ],
    },
  },
  // The JSON read from the text by another parser (terraformer's), so the two encodings hold the same shape.
  ...["MULTIPOLYGON(((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 6)))"].map((text) => ({
    text,
    json: wktToGeoJSON(text) as unknown as Record<string, unknown>,
  })),
  { text: "POINT(NaN 0)", json: '{"type":"Point","coordinates":[NaN,0]}' },
  { text: "POINT(0 Infinity)", json: { type: "Point", coordinates: [0, "NaN"] } },
  { text: "POINT(1e309 0)", json: '{"type":"Point","coordinates":[1e309,0]}' },
  { text: "POINT(200 0)", json: { type: "Point", coordinates: [200, 0] } },
  { text: "POINT(0 -91)", json: { type: "Point", coordinates: [0, -91] } },
  { text: "POINT(0)", json: { type: "Point", coordinates: [0] } },
  { text: "POINT(0 0 0 0)", json: { type: "Point", coordinates: [0, 0, 0, 0] } },
  { text: "LINESTRING(0 0)", json: { type: "LineString", coordinates: [[0, 0]] } },
  { text: "LINESTRING()", json: { type: "LineString", coordinates: [] } },
  { text: "POLYGON()", json: { type: "Polygon", coordinates: [] } },
  {
    text: "GEOMETRYCOLLECTION(POINT(0 0), POLYGON((0 0, 1 0, 1 1)))",
    json: {
      type: "GeometryCollection",
      geometries: [
        { type: "Point", coordinates: [0, 0] },
        {
          type: "Polygon",
          coordinates: [
            [
              [0, 0],
              [1, 0],
              [1, 1],
            ],
          ],
        },
      ],
    },
  },
  { text: "BBOX(0, 10, 1, 5)", json: { bbox: [0, 10, 1, 5] } },
  { text: "BBOX(0, 0, 181, 1)", json: { bbox: [0, 0, 181, 1] } },
  { text: "CIRCLE(0 0, 1)", json: { type: "Circle", coordinates: [0, 0] } },
];
const invalidGeometry: fc.Arbitrary<Case> = fc
  .tuple(fc.constantFrom(...SPATIAL), fc.constantFrom(...BAD_GEOMETRIES), fc.boolean())
  .chain(([op, g, first]) => {
    const jsonText = typeof g.json === "string" ? g.json : JSON.stringify(g.json);
    const args = first ? `{"property":"geometry"},${jsonText}` : `${jsonText},{"property":"geometry"}`;
    return fc.constantFrom(
      text(
        `${op.toUpperCase()}(${first ? `geometry, ${g.text}` : `${g.text}, geometry`})`,
        "invalid geometry",
      ),
      json(`{"op":"${op}","args":[${args}]}`, "invalid geometry"),
    );
  });

/** Every limit, exceeded in both encodings (and met, which must pass). */
const nestNot = (n: number, p: Pair): Pair => {
  let x = p;
  for (let i = 0; i < n; i++) x = not(x);
  return x;
};
/**
 * The hostile filters, by kind; each kind is tried on its own, so every one is. Every limit is exceeded in both
 * encodings (the vertex limit cannot be reached within the length limit, a vertex taking at least four characters, so
 * there the length limit answers), and met, which must pass.
 */
const HOSTILE: Record<string, fc.Arbitrary<Case>> = {
  "malformed JSON": malformedJson,
  "mangled text": mangledText,
  "unknown operator": unknownOperator,
  "wrong number of arguments": wrongArity,
  "type mismatch": typeMismatch,
  "invalid geometry": invalidGeometry,
  length: fc.oneof(
    wellFormed.map((p) => {
      const n = Math.ceil((CQL_LIMITS.length + 1) / (p.text.length + 4)) + 1;
      return text(Array.from({ length: n }, () => `(${p.text})`).join(" OR "), "length");
    }),
    wellFormed.map((p) =>
      json(
        {
          op: "or",
          args: [p.json, p.json, { op: "=", args: [prop("memo"), "x".repeat(CQL_LIMITS.length)] }],
        },
        "length",
      ),
    ),
    fc.constant(text(`memo = '${"x".repeat(CQL_LIMITS.length)}'`, "length")),
  ),
  depth: fc.oneof(
    predicate.chain((p) => both(nestNot(CQL_LIMITS.depth + 1, p), "depth")),
    fc.constant(
      text(`${"(".repeat(CQL_LIMITS.depth + 1)}chain = 'base'${")".repeat(CQL_LIMITS.depth + 1)}`, "depth"),
    ),
    fc.constant(text(`${"NOT ".repeat(CQL_LIMITS.depth + 1)}chain = 'base'`, "depth")),
    both(
      Array.from({ length: CQL_LIMITS.depth + 1 }).reduce<Pair>(
        (x) => ({ text: `(1 + ${x.text})`, json: { op: "+", args: [1, x.json] } }),
        { text: "latitude", json: prop("latitude") },
      ),
      "depth",
    ).map((c) =>
      c.lang === "cql2-text"
        ? text(`${c.filter} > 1`, "depth")
        : json({ op: ">", args: [JSON.parse(c.filter), 1] }, "depth"),
    ),
    both(
      Array.from({ length: CQL_LIMITS.depth + 1 }).reduce<Pair>(
        (x) => ({ text: `CASEI(${x.text})`, json: { op: "casei", args: [x.json] } }),
        { text: "memo", json: prop("memo") },
      ),
      "depth",
    ).map((c) =>
      c.lang === "cql2-text"
        ? text(`${c.filter} = 'a'`, "depth")
        : json({ op: "=", args: [JSON.parse(c.filter), "a"] }, "depth"),
    ),
    fc.constantFrom(
      text(
        `A_CONTAINS(media_type, ${"(".repeat(CQL_LIMITS.depth + 1)}'a'${")".repeat(CQL_LIMITS.depth + 1)})`,
        "depth",
      ),
      json(
        `{"op":"a_contains","args":[{"property":"media_type"},${"[".repeat(CQL_LIMITS.depth + 1)}"a"${"]".repeat(CQL_LIMITS.depth + 1)}]}`,
        "depth",
      ),
      json(
        `{"op":"s_intersects","args":[{"property":"geometry"},${'{"type":"GeometryCollection","geometries":['.repeat(CQL_LIMITS.depth + 1)}{"type":"Point","coordinates":[0,0]}${"]}".repeat(CQL_LIMITS.depth + 1)}]}`,
        "depth",
      ),
      text(
        `S_INTERSECTS(geometry, ${"GEOMETRYCOLLECTION(".repeat(CQL_LIMITS.depth + 1)}POINT(0 0)${")".repeat(CQL_LIMITS.depth + 1)})`,
        "depth",
      ),
      json(`${"[".repeat(4000)}${"]".repeat(4000)}`, "depth"),
      json(`${'{"op":"not","args":['.repeat(300)}true${"]}".repeat(300)}`, "depth"),
    ),
  ),
  vertices: fc
    .constantFrom(CQL_LIMITS.vertices + 1, 3000)
    .chain((n) =>
      fc.constantFrom(
        text(
          `S_INTERSECTS(geometry, MULTIPOINT(${Array.from({ length: n }, () => "0 0").join(",")}))`,
          "vertices",
        ),
        json(
          `{"op":"s_intersects","args":[{"property":"geometry"},{"type":"MultiPoint","coordinates":[${Array.from({ length: n }, () => "[0,0]").join(",")}]}]}`,
          "vertices",
        ),
      ),
    ),
  "list and array items": fc.constantFrom(
    text(
      `chain IN (${Array.from({ length: CQL_LIMITS.listItems + 1 }, () => "'a'").join(",")})`,
      "list items",
    ),
    json(
      { op: "in", args: [prop("chain"), Array.from({ length: CQL_LIMITS.listItems + 1 }, () => "a")] },
      "list items",
    ),
    text(
      `A_CONTAINS(media_type, (${Array.from({ length: CQL_LIMITS.listItems + 1 }, () => "'a'").join(",")}))`,
      "array items",
    ),
    json(
      {
        op: "a_contains",
        args: [prop("media_type"), Array.from({ length: CQL_LIMITS.listItems + 1 }, () => "a")],
      },
      "array items",
    ),
  ),
  "arithmetic operators": fc.oneof(
    both(
      {
        text: `latitude${" + 1".repeat(CQL_LIMITS.arithmetic + 1)} > 0`,
        json: {
          op: ">",
          args: [
            Array.from({ length: CQL_LIMITS.arithmetic + 1 }).reduce<unknown>(
              (x) => ({ op: "+", args: [x, 1] }),
              prop("latitude"),
            ),
            0,
          ],
        },
      },
      "arithmetic operators",
    ),
    fc.constant(
      text(
        Array.from({ length: CQL_LIMITS.arithmetic + 1 }, (_, i) => `latitude * ${i} > 1`).join(" OR "),
        "arithmetic operators",
      ),
    ),
  ),
  "limits met": fc.constantFrom(
    text(`${"NOT ".repeat(CQL_LIMITS.depth - 1)}chain = 'base'`, "depth met", false),
    text(
      `chain IN (${Array.from({ length: CQL_LIMITS.listItems }, (_, i) => `'c${i}'`).join(",")})`,
      "list items met",
      false,
    ),
    json(
      { op: "in", args: [prop("chain"), Array.from({ length: CQL_LIMITS.listItems }, (_, i) => `c${i}`)] },
      "list items met",
      false,
    ),
    text(`latitude${" + 1".repeat(CQL_LIMITS.arithmetic)} > 0`, "arithmetic met", false),
  ),
  // A well-formed filter in the other encoding's parameter: refused, not misread.
  "the other encoding": fc.oneof(
    wellFormed.map((p) => ({
      ...text(JSON.stringify(p.json), "JSON sent as text"),
      bad: typeof p.json === "object",
    })),
    wellFormed.map((p) => json(p.text, "text sent as JSON", !/^(true|false)$/i.test(p.text))),
  ),
};

const WHERE = /^(character \d+|\/.*)$/;

async function send(collection: string, c: Case) {
  const url = `/api/ogc/collections/${collection}/items?limit=5&filter-lang=${c.lang}&filter=${encodeURIComponent(c.filter)}`;
  return app.get(url);
}

describe("the CQL2 fuzzer", () => {
  it(`${RUNS} well-formed filters of every operator: a 200 in both encodings, text and JSON alike, on both collections`, {
    timeout: 900_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(wellFormed, fc.constantFrom(...COLLECTIONS), async (p, collection) => {
        const t = await send(collection, text(p.text, "well-formed", false));
        const j = await send(collection, json(p.json, "well-formed", false));
        expect(t.status, `${p.text}: ${JSON.stringify(t.body).slice(0, 400)}`).toBe(200);
        expect(j.status, `${JSON.stringify(p.json)}: ${JSON.stringify(j.body).slice(0, 400)}`).toBe(200);
        expect(j.body.numberMatched, p.text).toBe(t.body.numberMatched);
        expect(j.body.features.map((f: { id: string }) => f.id)).toEqual(
          t.body.features.map((f: { id: string }) => f.id),
        );
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  });

  it.each(Object.keys(HOSTILE))(
    "hostile filters, %s, in both encodings: never a 5xx; a 400 naming filter and where",
    { timeout: 900_000 },
    async (kind) => {
      await fc.assert(
        fc.asyncProperty(HOSTILE[kind]!, fc.constantFrom(...COLLECTIONS), async (c, collection) => {
          const res = await send(collection, c);
          const what = `${c.kind} (${c.lang}): ${c.filter.slice(0, 300)} → ${res.status} ${JSON.stringify(res.body).slice(0, 400)}`;
          expect(res.status, what).toBeLessThan(500);
          if (c.bad) expect(res.status, what).toBe(400);
          if (res.status === 400) {
            expect(res.body.parameter, what).toBe("filter");
            expect(res.body.code, what).toBe("InvalidParameterValue");
            expect(res.body.details?.where, what).toMatch(WHERE);
          } else expect(res.status, what).toBe(200);
        }),
        { numRuns: Math.max(20, Math.round(RUNS / 4)), seed: SEED, endOnFailure: true },
      );
    },
  );
});
