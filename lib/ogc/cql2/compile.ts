import type { SQL } from "drizzle-orm";
import { rfc3339 } from "../../params/grammar.js";
import { postgresIso } from "../../proofs/timestamps.js";
import type {
  ArrayLit,
  ArrayOperand,
  ComparisonOp,
  DateLit,
  Expr,
  Geometry,
  IntervalEnd,
  Scalar,
  SpatialOp,
  Temporal,
  TemporalOp,
} from "./ast.js";
import type { Catalogue, Queryable, QueryableType } from "./catalogue.js";
import { type Fragment, join, raw, sql, toSql } from "./fragment.js";
import { CQL_LIMITS } from "./literals.js";
import { CqlError, describePlace, type Places, placesOf } from "./where.js";

/**
 * One compiler for both encodings over any catalogue: the tree (ast.ts) to SQL for the shared WHERE builder. Every
 * literal is a bound parameter, typed to what it is compared with (an integer literal against an integer column is
 * a bigint, so the column's btree serves `block_number >= N`). CQL2's three-valued logic is SQL's: a predicate on a
 * null is unknown (null), NOT unknown is unknown, and only true selects. So no predicate here is ever `false` or
 * `true` outright where a null operand makes it unknown (see `unknownIfNull`).
 */
export function compileCql2(expr: Expr, catalogue: Catalogue): SQL {
  return toSql(new Compiler(catalogue, placesOf(expr)).expr(expr));
}

/** SQL being built: the compiler's own fragments, and the catalogue's drizzle SQL spliced into them. */
type F = Fragment | SQL;

/** A value's type in a comparison: a property's, a literal's, or a derived one. */
type ValueType = QueryableType | "date" | "numeric";

const FAMILY: Record<ValueType, string> = {
  string: "string",
  address: "string",
  integer: "number",
  number: "number",
  numeric: "number",
  boolean: "boolean",
  timestamp: "timestamp",
  date: "timestamp",
  strings: "array",
  geometry: "geometry",
};

const FLIP: Record<ComparisonOp, ComparisonOp> = {
  "=": "=",
  "<>": "<>",
  "<": ">",
  "<=": ">=",
  ">": "<",
  ">=": "<=",
};

/** The largest magnitude an arithmetic step keeps; beyond it the value is unknown (null), never a database error. */
const ARITH_BOUND = "1e100";
const INT8_MAX = 9223372036854775807n;

/** `value` (true or false) where `x` is known, unknown where `x` is null. */
const unknownIfNull = (x: F, value: boolean): F =>
  sql`(case when ${x} is null then null else ${value ? sql`true` : sql`false`} end)`;

/** An instant as a bound timestamptz parameter (lib/proofs/timestamps.ts's sqlTimestamp, as a fragment). */
const timestamp = (d: Date): F => sql`${postgresIso(d)}::timestamptz`;

/** The day's last microsecond: a DATE as an interval is [start, next − 1 µs], the finest time PostgreSQL keeps. */
const dayEnd = (d: DateLit): F => sql`(${timestamp(d.next)} - interval '1 microsecond')`;

/** Removes accents: canonical decomposition, then no combining marks (U+0300–U+036F), as in JavaScript. */
export const accentFold = (x: F): F => sql`regexp_replace(normalize(${x}, NFD), '[\u0300-\u036f]', '', 'g')`;

class Compiler {
  constructor(
    private readonly catalogue: Catalogue,
    /** where the tree's nodes came from, for the errors */
    private readonly places?: Places,
  ) {}

  private fail(reason: string, node?: unknown): never {
    throw new CqlError(
      reason,
      describePlace(node && typeof node === "object" ? this.places?.get(node) : undefined),
    );
  }

  expr(e: Expr): F {
    switch (e.kind) {
      case "and":
      case "or":
        return sql`(${join(
          e.args.map((a) => sql`(${this.expr(a)})`),
          e.kind === "and" ? " and " : " or ",
        )})`;
      case "not":
        return sql`(not (${this.expr(e.arg)}))`;
      case "literal":
        return e.value ? sql`true` : sql`false`;
      case "compare":
        return this.compare(e.op, e.left, e.right, e);
      case "isNull":
        return sql`(${this.anyValue(e.value)} is null)`;
      case "between": {
        this.expectFamily(e.value, "number", "timestamp", "BETWEEN");
        return sql`(${this.compare(">=", e.value, e.low, e)} and ${this.compare("<=", e.value, e.high, e)})`;
      }
      case "in": {
        const type = this.typeOf(e.value);
        // Booleans too: the standard's test annex has `boolean IN (true)`.
        if (type === "strings" || type === "geometry")
          this.fail(`IN needs a string, number, boolean or time value; this one is ${type}`, e.value);
        for (const item of e.list) {
          if (type === "timestamp" && item.kind === "date")
            this.fail("IN lists of a time take TIMESTAMP literals, not DATE", item);
          this.sameFamily(e.value, item, "IN");
        }
        const value = this.value(e.value, this.typeOf(e.list[0]!));
        const array = this.literalArray(e.list, type);
        if (array) return sql`(${value} = any(${array}))`;
        const items = e.list.map((item) => this.value(item, type));
        return sql`(${value} in (${join(items, ", ")}))`;
      }
      case "like":
        return this.like(e.value, e.pattern);
      case "spatial":
        return this.spatial(e.op, e.args, e);
      case "temporal":
        return this.temporal(e.op, e.args, e);
      case "array":
        return this.array(e.op, e.args, e);
    }
  }

  /**
   * A long list of literals as one bound array (a JSON text read back as the column's type): one parameter instead
   * of a thousand keeps rendering and planning cheap, and `= any(array)` still uses the column's btree. Short
   * lists, and lists with a property or arithmetic in them, stay `in (…)`.
   */
  private literalArray(list: Scalar[], type: ValueType): F | undefined {
    if (list.length < 8) return undefined;
    const values: (string | number)[] = [];
    for (const item of list) {
      if (item.kind === "string")
        values.push(
          type === "address"
            ? item.value.toLowerCase()
            : type === "timestamp"
              ? this.instantOf(item).toISOString()
              : item.value,
        );
      else if (item.kind === "number") values.push(item.value);
      else if (item.kind === "timestamp") values.push(item.value.toISOString());
      else return undefined;
    }
    const cast = {
      string: "text",
      address: "text",
      integer: "bigint",
      number: "float8",
      timestamp: "timestamptz",
    }[type as "string"];
    if (!cast) return undefined;
    if (
      type === "integer" &&
      values.some((v) => typeof v !== "number" || !Number.isInteger(v) || Math.abs(v) > 9e18)
    )
      return undefined;
    return sql`array(select jsonb_array_elements_text(${JSON.stringify(values)}::jsonb)::${raw(cast)})`;
  }

  /** The properties named so far: a filter names a few properties many times. */
  private readonly queryables = new Map<string, Queryable>();

  private lookup(name: string, node: unknown): Queryable {
    const known = this.queryables.get(name);
    if (known) return known;
    const q = this.catalogue.property(name);
    if (!q)
      return this.fail(`unknown property '${name}'. Queryables: ${this.catalogue.names().join(", ")}`, node);
    this.queryables.set(name, q);
    return q;
  }

  private typeOf(s: Scalar): ValueType {
    switch (s.kind) {
      case "property":
        return this.lookup(s.name, s).type;
      case "string":
        return "string";
      case "number":
        return Number.isInteger(s.value) ? "integer" : "number";
      case "boolean":
        return "boolean";
      case "timestamp":
        return "timestamp";
      case "date":
        return "date";
      case "casei":
      case "accenti": {
        const t = this.typeOf(s.arg);
        if (FAMILY[t] !== "string") this.fail(`${s.kind.toUpperCase()} takes a string; this is ${t}`, s.arg);
        return "string";
      }
      case "arith":
        for (const side of [s.left, s.right])
          if (FAMILY[this.typeOf(side)] !== "number")
            this.fail(`arithmetic takes numbers; this is ${this.typeOf(side)}`, side);
        return "numeric";
    }
  }

  private expectFamily(s: Scalar, a: string, b: string, op: string): void {
    const t = this.typeOf(s);
    if (FAMILY[t] !== a && FAMILY[t] !== b)
      this.fail(`${op} needs a ${a} or ${b} value; this one is ${t}`, s);
  }

  private sameFamily(left: Scalar, right: Scalar, op: string): void {
    const [a, b] = [this.typeOf(left), this.typeOf(right)];
    // A quoted RFC 3339 string compared with a time reads as that instant (as before TIMESTAMP() was required).
    if (FAMILY[a] === "timestamp" && right.kind === "string") return;
    if (FAMILY[b] === "timestamp" && left.kind === "string") return;
    if (FAMILY[a] !== FAMILY[b]) this.fail(`${op}: cannot compare ${a} with ${b}`, right);
  }

  /**
   * A value as SQL, a literal typed to what it meets (`against`): a bigint against an integer column (its btree
   * serves the comparison), a float8 against a double column, numeric in arithmetic; a string lowercased against
   * an address.
   */
  private value(s: Scalar, against: ValueType): F {
    switch (s.kind) {
      case "property": {
        const q = this.lookup(s.name, s);
        return against === "numeric" ? sql`${q.sql}::numeric` : q.sql;
      }
      case "string":
        if (against === "timestamp") return timestamp(this.instantOf(s));
        return sql`${against === "address" ? s.value.toLowerCase() : s.value}::text`;
      case "number": {
        const text = String(s.value);
        if (against === "integer" && Number.isInteger(s.value)) {
          const big = BigInt(s.value);
          if (big <= INT8_MAX && big >= -INT8_MAX) return sql`${big.toString()}::bigint`;
        }
        if (against === "number") return sql`${text}::float8`;
        return sql`${text}::numeric`;
      }
      case "boolean":
        return sql`${s.value}::boolean`;
      case "timestamp":
        return timestamp(s.value);
      case "date":
        return timestamp(s.start);
      case "casei":
        return sql`lower(${this.value(s.arg, against)})`;
      case "accenti":
        return accentFold(this.value(s.arg, against));
      case "arith":
        return this.arith(s);
    }
  }

  private instantOf(s: { value: string }): Date {
    const instant = rfc3339(s.value);
    if (!instant)
      this.fail(
        "a timestamp string must be a valid RFC 3339 date-time in years 0001-9999, e.g. '2025-01-31T12:00:00Z'",
        s,
      );
    return instant as Date;
  }

  /** Arithmetic in numeric: exact, no float overflow; division by zero and values beyond ±1e100 are unknown. */
  private arithmetic = 0;

  private arith(s: Scalar & { kind: "arith" }): F {
    if (++this.arithmetic > CQL_LIMITS.arithmetic)
      this.fail(`a filter may hold at most ${CQL_LIMITS.arithmetic} arithmetic operators`, s);
    const l = this.value(s.left, "numeric");
    const r = this.value(s.right, "numeric");
    const bound = raw(ARITH_BOUND);
    let v: F;
    switch (s.op) {
      case "+":
        v = sql`l + r`;
        break;
      case "-":
        v = sql`l - r`;
        break;
      case "*":
        v = sql`l * r`;
        break;
      case "/":
        v = sql`l / nullif(r, 0)`;
        break;
      case "%":
        v = sql`mod(l, nullif(r, 0))`;
        break;
      case "div":
        v = sql`div(l, nullif(r, 0))`;
        break;
      case "^":
        // power() refuses 0 ^ negative and negative ^ fraction; those, and exponents past ±100, are unknown.
        v = sql`case when abs(r) <= 100 and (l > 0 or (l < 0 and r = trunc(r)) or (l = 0 and r >= 0)) and (l = 0 or abs(l) >= 1e-100) then power(l, r) end`;
        break;
    }
    // Each operand is written once (named l and r in a subquery), so nested arithmetic grows the SQL linearly;
    // `offset 0` keeps the planner from pulling the subqueries up, which would copy each operand into every use.
    return sql`(select case when abs(v) <= ${bound} then v end from (select ${v} as v from (select ${l} as l, ${r} as r offset 0) o offset 0) w)`;
  }

  private compare(op: ComparisonOp, left: Scalar, right: Scalar, node: unknown): F {
    const [a, b] = [this.typeOf(left), this.typeOf(right)];
    if (a === "date" && b !== "date") return this.compare(FLIP[op], right, left, node);
    this.sameFamily(left, right, op);
    if (FAMILY[a] === "array" || FAMILY[a] === "geometry")
      this.fail(`${op} does not compare ${a} values (use the A_ or S_ functions)`, node);
    if (a === "boolean" && op !== "=" && op !== "<>")
      this.fail("booleans can only be compared with = or <>", node);
    if (b === "date" && a !== "date")
      return this.dateComparison(this.value(left, "timestamp"), op, right as DateLit);
    const l = this.value(left, this.against(b, a));
    const r = this.value(right, this.against(a, b));
    // raw(op) is safe: op is one of the six comparison operators the parsers accept, never client text.
    return sql`(${l} ${raw(op)} ${r})`;
  }

  /** What the other side's literal is typed to: the side's own type; numeric when arithmetic is involved. */
  private against(other: ValueType, self: ValueType): ValueType {
    if (other === "numeric" || self === "numeric") return "numeric";
    if (FAMILY[other] === "number" && FAMILY[self] === "number" && other !== self && self !== "integer")
      return self;
    return other;
  }

  /** A DATE is the whole UTC day [start, next): `= DATE` means "on that day". */
  private dateComparison(c: F, op: ComparisonOp, d: DateLit): F {
    const start = timestamp(d.start);
    const next = timestamp(d.next);
    switch (op) {
      case "=":
        return sql`(${c} >= ${start} and ${c} < ${next})`;
      case "<>":
        return sql`(${c} < ${start} or ${c} >= ${next})`;
      case "<":
        return sql`(${c} < ${start})`;
      case "<=":
        return sql`(${c} < ${next})`;
      case ">":
        return sql`(${c} >= ${next})`;
      case ">=":
        return sql`(${c} >= ${start})`;
    }
  }

  private like(value: Scalar, pattern: Scalar): F {
    const t = this.typeOf(value);
    if (FAMILY[t] !== "string") this.fail(`LIKE needs a string; this one is ${t}`, value);
    if (FAMILY[this.typeOf(pattern)] !== "string") this.fail("LIKE needs a string pattern", pattern);
    let p: Scalar = pattern;
    while (p.kind === "casei" || p.kind === "accenti") p = p.arg;
    if (p.kind === "string" && /(^|[^\\])(\\\\)*\\$/.test(p.value))
      // An odd run of backslashes at the end escapes nothing; PostgreSQL refuses such a pattern.
      this.fail(
        "a LIKE pattern must not end with a lone escape character (\\); write \\\\ for a backslash",
        p,
      );
    // CQL2's wildcards (% and _) and escape (\) are PostgreSQL's defaults.
    return sql`(${this.value(value, "string")} like ${this.value(pattern, t)})`;
  }

  private anyValue(v: Scalar | Geometry): F {
    if (v.kind === "property") return this.lookup(v.name, v).sql;
    if ("coordinates" in v || "geometries" in v || v.kind === "bbox") return sql`false`;
    const s = v as Scalar;
    return this.value(s, this.typeOf(s));
  }

  private spatial(op: SpatialOp, [a, b]: [Geometry, Geometry], node: unknown): F {
    if (a.kind === "property" && b.kind === "property") {
      const [qa, qb] = [this.lookup(a.name, a), this.lookup(b.name, b)];
      for (const [q, n] of [[qa, a] as const, [qb, b] as const])
        if (q.type !== "geometry") this.fail(`'${n.name}' is not a spatial property`, n);
      if (a.name !== b.name) this.fail("two different geometry properties cannot be compared here", node);
      // A geometry against itself: it intersects, equals, lies within and contains itself, and nothing else.
      const self = op === "s_intersects" || op === "s_equals" || op === "s_within" || op === "s_contains";
      return unknownIfNull(qa.sql, self);
    }
    if (a.kind !== "property" && b.kind !== "property") {
      return this.fail(`${op.toUpperCase()} compares the geometry property with a geometry literal`, node);
    }
    const property = (a.kind === "property" ? a : b) as { kind: "property"; name: string };
    const literal = (a.kind === "property" ? b : a) as Exclude<Geometry, { kind: "property" }>;
    const q = this.lookup(property.name, property);
    if (q.type !== "geometry") this.fail(`'${property.name}' is not a spatial property`, property);
    // S_WITHIN(literal, geometry) is S_CONTAINS(geometry, literal); the other predicates are symmetric.
    const effective: SpatialOp =
      a.kind === "property" ? op : op === "s_within" ? "s_contains" : op === "s_contains" ? "s_within" : op;
    const compiled = this.catalogue.spatial(effective, q, literal);
    if (typeof compiled === "string") this.fail(compiled, node);
    return compiled as SQL;
  }

  /** A temporal operand as [start, end] SQL instants; an instant is [t, t], an open end ±infinity (so null stays unknown). */
  private interval(t: Temporal): [F, F] {
    const end = (e: IntervalEnd, side: "start" | "end"): F => {
      switch (e.kind) {
        case "open":
          return side === "start" ? sql`'-infinity'::timestamptz` : sql`'infinity'::timestamptz`;
        case "timestamp":
          return timestamp(e.value);
        case "date":
          return side === "start" ? timestamp(e.start) : dayEnd(e);
        case "property": {
          const q = this.lookup(e.name, e);
          if (q.type !== "timestamp" && q.type !== "date")
            this.fail(`'${e.name}' is not a temporal property`, e);
          // A date property is its whole UTC day, as a DATE literal is (its SQL is the day's first instant).
          return q.type === "date" && side === "end"
            ? sql`(${q.sql} + interval '1 day' - interval '1 microsecond')`
            : q.sql;
        }
      }
    };
    switch (t.kind) {
      case "interval":
        return [end(t.start, "start"), end(t.end, "end")];
      case "property":
      case "timestamp":
        return [end(t, "start"), end(t, "end")];
      case "date":
        return [timestamp(t.start), dayEnd(t)];
    }
  }

  /**
   * The temporal functions as Allen's relations between [a1, a2] and [b1, b2] (OGC 21-065r2, 7.11). Open ends are
   * ±infinity, so comparing a null instant with them is still unknown, and NOT of it too.
   */
  private temporal(op: TemporalOp, [a, b]: [Temporal, Temporal], node: unknown): F {
    // Two literals are allowed (PostgreSQL folds the constant); a property that is not a time is refused.
    void node;
    const [a1, a2] = this.interval(a);
    const [b1, b2] = this.interval(b);
    const c = (x: F, o: string, y: F) => sql`${x} ${raw(o)} ${y}`;
    const all = (...parts: F[]) => sql`(${join(parts, " and ")})`;
    switch (op) {
      case "t_after":
        return all(c(a1, ">", b2));
      case "t_before":
        return all(c(a2, "<", b1));
      case "t_contains":
        return all(c(a1, "<", b1), c(a2, ">", b2));
      case "t_disjoint":
        return sql`(${c(a1, ">", b2)} or ${c(a2, "<", b1)})`;
      case "t_during":
        return all(c(a1, ">", b1), c(a2, "<", b2));
      case "t_equals":
        return all(c(a1, "=", b1), c(a2, "=", b2));
      case "t_finishedby":
        return all(c(a1, "<", b1), c(a2, "=", b2));
      case "t_finishes":
        return all(c(a1, ">", b1), c(a2, "=", b2));
      case "t_intersects":
        return all(c(a1, "<=", b2), c(a2, ">=", b1));
      case "t_meets":
        return all(c(a2, "=", b1));
      case "t_metby":
        return all(c(a1, "=", b2));
      case "t_overlappedby":
        return all(c(a1, ">", b1), c(a1, "<", b2), c(a2, ">", b2));
      case "t_overlaps":
        return all(c(a1, "<", b1), c(a2, ">", b1), c(a2, "<", b2));
      case "t_startedby":
        return all(c(a1, "=", b1), c(a2, ">", b2));
      case "t_starts":
        return all(c(a1, "=", b1), c(a2, "<", b2));
    }
  }

  /** An array operand as jsonb: a property of strings, or a literal array of strings. */
  private arrayValue(x: ArrayOperand): F {
    if (x.kind === "property") {
      const q = this.lookup(x.name, x);
      if (q.type !== "strings") this.fail(`'${x.name}' is not an array property`, x);
      return q.sql;
    }
    return sql`${JSON.stringify(this.arrayItems(x))}::jsonb`;
  }

  private arrayItems(x: ArrayLit): unknown[] {
    return x.items.map((item) => {
      if (item.kind === "array") return this.arrayItems(item);
      if (item.kind === "string") return item.value;
      if (item.kind === "number" || item.kind === "boolean") return item.value;
      if (item.kind === "timestamp") return item.value.toISOString();
      return this.fail("array items are literals (strings, numbers, booleans, timestamps) or arrays", item);
    });
  }

  /** A_EQUALS (same items, same order), A_CONTAINS, A_CONTAINEDBY and A_OVERLAPS over jsonb arrays. */
  private array(op: string, [a, b]: [ArrayOperand, ArrayOperand], node: unknown): F {
    if (a.kind !== "property" && b.kind !== "property")
      this.fail(
        `${op.toUpperCase()} compares an array property with an array or another array property`,
        node,
      );
    const [x, y] = [this.arrayValue(a), this.arrayValue(b)];
    switch (op) {
      case "a_equals":
        return sql`(${x} = ${y})`;
      case "a_contains":
        return sql`(${x} @> ${y})`;
      case "a_containedby":
        return sql`(${x} <@ ${y})`;
      default:
        // Some item in both: unknown where either side is null, false where one is empty.
        return sql`(case when ${x} is null or ${y} is null then null else exists (select 1 from jsonb_array_elements(${x}) e where ${y} @> jsonb_build_array(e)) end)`;
    }
  }
}
