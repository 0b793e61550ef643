import type { CrsSystem } from "../../crs/systems.js";
import {
  type ArithmeticOp,
  type ArrayLit,
  type ArrayOp,
  type ArrayOperand,
  type ComparisonOp,
  type DateLit,
  type Expr,
  type Geometry,
  type GeometryLit,
  type IntervalEnd,
  isArrayOp,
  isSpatialOp,
  isTemporalOp,
  type Position,
  type Scalar,
  type SpatialOp,
  type Temporal,
  type TemporalOp,
  type TimestampLit,
} from "./ast.js";
import { filterBboxLit, literalToCrs84 } from "./crs.js";
import { CqlSyntaxError, type Token, tokenize } from "./lexer.js";
import { CQL_LIMITS, dateLit, geometryError, intervalEndLit, timestampLit } from "./literals.js";
import { type Places, withPlaces } from "./where.js";

export { CQL_LIMITS } from "./literals.js";

const GEOMETRY_WORDS = new Set([
  "bbox",
  "point",
  "linestring",
  "polygon",
  "multipoint",
  "multilinestring",
  "multipolygon",
  "geometrycollection",
]);

const RESERVED = new Set([
  "and",
  "or",
  "not",
  "between",
  "in",
  "is",
  "null",
  "like",
  "true",
  "false",
  "div",
  "timestamp",
  "date",
  "interval",
  ...GEOMETRY_WORDS,
  "casei",
  "accenti",
]);

/**
 * A recursive-descent parser for CQL2 text (OGC 21-065r2): boolean logic, comparisons with arithmetic, BETWEEN, IN,
 * LIKE, IS [NOT] NULL, CASEI/ACCENTI, the spatial (S_…), temporal (T_…) and array (A_…) functions with WKT, BBOX,
 * TIMESTAMP, DATE and INTERVAL literals. Precedence: NOT binds tighter than AND, AND than OR; `^` tighter than
 * `* / % div`, those than `+ -`. `a NOT LIKE b` is NOT (a LIKE b), so text and JSON give one tree.
 */
export function parseCql2(text: string, crs?: CrsSystem): Expr {
  if (text.length > CQL_LIMITS.length) {
    throw new CqlSyntaxError(`filter is longer than ${CQL_LIMITS.length} characters`, CQL_LIMITS.length);
  }
  const parser = new Parser(tokenize(text), crs);
  const expr = parser.orExpr();
  parser.expectEnd();
  return withPlaces(expr, parser.places);
}

class Parser {
  private i = 0;
  private depth = 0;
  private vertices = 0;
  readonly places: Places = new Map();
  constructor(
    private readonly tokens: Token[],
    /** filter-crs: the literals' system, turned into CRS84 as they are read (crs.ts) */
    private readonly crs?: CrsSystem,
  ) {}

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.i + offset, this.tokens.length - 1)]!;
  }
  private at<T extends object>(node: T, token: Token): T {
    this.places.set(node, token.at);
    return node;
  }
  private isKeyword(word: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.type === "ident" && !t.quoted && t.value.toLowerCase() === word;
  }
  private acceptKeyword(word: string): boolean {
    if (!this.isKeyword(word)) return false;
    this.i++;
    return true;
  }
  private expectKeyword(word: string): void {
    if (!this.acceptKeyword(word)) this.fail(`expected ${word.toUpperCase()}`);
  }
  private isPunct(p: "(" | ")" | ",", offset = 0): boolean {
    const t = this.peek(offset);
    return t.type === "punct" && t.value === p;
  }
  private expectPunct(p: "(" | ")" | ","): void {
    if (!this.isPunct(p)) this.fail(`expected '${p}'`);
    this.i++;
  }
  private fail(message: string, token = this.peek()): never {
    const found = token.type === "end" ? "end of filter" : `'${"value" in token ? String(token.value) : ""}'`;
    throw new CqlSyntaxError(`${message}, found ${found}`, token.at);
  }
  expectEnd(): void {
    if (this.peek().type !== "end") this.fail("expected end of filter");
  }

  /** One more level of nesting for the length of `inner`. */
  private nested<T>(inner: () => T): T {
    if (++this.depth > CQL_LIMITS.depth) this.fail(`filter nests deeper than ${CQL_LIMITS.depth} levels`);
    try {
      return inner();
    } finally {
      this.depth--;
    }
  }

  orExpr(): Expr {
    const start = this.peek();
    const args = [this.andExpr()];
    while (this.acceptKeyword("or")) args.push(this.andExpr());
    return args.length === 1 ? args[0]! : this.at({ kind: "or", args }, start);
  }

  private andExpr(): Expr {
    const start = this.peek();
    const args = [this.notExpr()];
    while (this.acceptKeyword("and")) args.push(this.notExpr());
    return args.length === 1 ? args[0]! : this.at({ kind: "and", args }, start);
  }

  private notExpr(): Expr {
    const start = this.peek();
    if (this.acceptKeyword("not"))
      return this.nested(() => this.at({ kind: "not", arg: this.notExpr() }, start));
    return this.primary();
  }

  private primary(): Expr {
    const t = this.peek();
    if (this.isPunct("(")) {
      // A parenthesis opens either a condition, `(a = 1 or b = 2)`, or a value, `(a + 1) > 2`: try the first.
      const mark = this.i;
      try {
        const inner = this.nested(() => {
          this.i++;
          const e = this.orExpr();
          this.expectPunct(")");
          return e;
        });
        const next = this.peek();
        if (next.type !== "op" && next.type !== "arith" && !this.startsPredicateTail(0)) return inner;
      } catch (error) {
        if (!(error instanceof CqlSyntaxError)) throw error;
        if (error.reason.startsWith("filter nests deeper")) throw error;
      }
      this.i = mark;
      return this.predicate();
    }
    if (t.type === "ident" && !t.quoted && this.isPunct("(", 1)) {
      const word = t.value.toLowerCase();
      if (isSpatialOp(word)) return this.nested(() => this.spatial(word));
      if (isTemporalOp(word)) return this.nested(() => this.temporal(word));
      if (isArrayOp(word)) return this.nested(() => this.arrayPredicate(word));
      if (/^[sta]_[a-z]+$/.test(word)) this.fail(`unknown function ${t.value.toUpperCase()}`);
    }
    if (t.type === "ident" && !t.quoted) {
      const word = t.value.toLowerCase();
      if ((word === "true" || word === "false") && !this.startsPredicateTail(1)) {
        this.i++;
        return this.at({ kind: "literal", value: word === "true" }, t);
      }
    }
    return this.predicate();
  }

  /** Whether the token at `offset` continues a predicate (so TRUE there is an operand, not a whole condition). */
  private startsPredicateTail(offset: number): boolean {
    const t = this.peek(offset);
    if (t.type === "op" || t.type === "arith") return true;
    return ["is", "in", "between", "like", "not", "div"].some((w) => this.isKeyword(w, offset));
  }

  private predicate(): Expr {
    const start = this.peek();
    const left = this.scalar();
    const t = this.peek();
    if (t.type === "op") {
      this.i++;
      return this.at({ kind: "compare", op: t.value as ComparisonOp, left, right: this.scalar() }, start);
    }
    if (this.acceptKeyword("is")) {
      const negated = this.acceptKeyword("not");
      this.expectKeyword("null");
      const test: Expr = this.at({ kind: "isNull", value: left }, start);
      return negated ? this.at({ kind: "not", arg: test }, start) : test;
    }
    const negated = this.acceptKeyword("not");
    const wrap = (e: Expr): Expr => (negated ? this.at({ kind: "not", arg: e }, start) : e);
    if (this.acceptKeyword("between")) {
      const low = this.scalar();
      this.expectKeyword("and");
      return wrap(this.at({ kind: "between", value: left, low, high: this.scalar() }, start));
    }
    if (this.acceptKeyword("in")) {
      const list = this.parenList(() => this.scalar(), {
        items: CQL_LIMITS.listItems,
        message: `IN lists are limited to ${CQL_LIMITS.listItems} items`,
      });
      return wrap(this.at({ kind: "in", value: left, list }, start));
    }
    if (this.acceptKeyword("like"))
      return wrap(this.at({ kind: "like", value: left, pattern: this.scalar() }, start));
    return this.fail("expected a comparison operator, IS [NOT] NULL, [NOT] BETWEEN, [NOT] IN or [NOT] LIKE");
  }

  /** A value: additive arithmetic over terms. */
  private scalar(): Scalar {
    return this.binary(["+", "-"], () => this.term());
  }
  private term(): Scalar {
    return this.binary(["*", "/", "%", "div"], () => this.power());
  }
  private power(): Scalar {
    const start = this.peek();
    const base = this.unary();
    const t = this.peek();
    if (t.type === "arith" && t.value === "^") {
      this.i++;
      return this.nested(() => this.at({ kind: "arith", op: "^", left: base, right: this.power() }, start));
    }
    return base;
  }
  private binary(ops: ArithmeticOp[], operand: () => Scalar): Scalar {
    const start = this.peek();
    let left = operand();
    for (;;) {
      const t = this.peek();
      const op =
        t.type === "arith" && (ops as string[]).includes(t.value)
          ? (t.value as ArithmeticOp)
          : ops.includes("div") && this.isKeyword("div")
            ? "div"
            : undefined;
      if (!op) return left;
      this.i++;
      const l = left;
      left = this.nested(() => this.at({ kind: "arith", op, left: l, right: operand() }, start));
    }
  }

  private unary(): Scalar {
    const t = this.peek();
    if (t.type === "arith" && (t.value === "-" || t.value === "+")) {
      // A sign before a value (a sign directly before a digit is the number's own).
      this.i++;
      const arg = this.nested(() => this.unary());
      if (t.value === "+") return arg;
      if (arg.kind === "number") return this.at({ kind: "number", value: -arg.value }, t);
      // As the standard writes it in JSON: -x is -1 * x.
      return this.at({ kind: "arith", op: "*", left: { kind: "number", value: -1 }, right: arg }, t);
    }
    if (this.isPunct("(")) {
      return this.nested(() => {
        this.i++;
        const inner = this.scalar();
        this.expectPunct(")");
        return inner;
      });
    }
    if (t.type === "string") {
      this.i++;
      return this.at({ kind: "string", value: t.value }, t);
    }
    if (t.type === "number") {
      this.i++;
      return this.at({ kind: "number", value: t.value }, t);
    }
    if (t.type === "ident") {
      if (t.quoted) {
        this.i++;
        return this.at({ kind: "property", name: t.value }, t);
      }
      const word = t.value.toLowerCase();
      if (word === "true" || word === "false") {
        this.i++;
        return this.at({ kind: "boolean", value: word === "true" }, t);
      }
      if (word === "timestamp") return this.timestamp();
      if (word === "date") return this.date();
      if ((word === "casei" || word === "accenti") && this.isPunct("(", 1)) {
        return this.nested(() => {
          this.i += 2;
          const arg = this.scalar();
          this.expectPunct(")");
          return this.at({ kind: word, arg }, t);
        });
      }
      if (this.isPunct("(", 1)) this.fail(`unknown function ${t.value.toUpperCase()}`);
      if (RESERVED.has(word)) this.fail("expected a property name or a literal");
      this.i++;
      return this.at({ kind: "property", name: t.value }, t);
    }
    return this.fail("expected a property name or a literal");
  }

  private stringArgument(keyword: string): { value: string; token: Token } {
    this.expectKeyword(keyword);
    this.expectPunct("(");
    const t = this.peek();
    if (t.type !== "string") this.fail(`${keyword.toUpperCase()}(…) takes a quoted string`);
    this.i++;
    this.expectPunct(")");
    return { value: (t as { value: string }).value, token: t };
  }

  private timestamp(): TimestampLit {
    return this.literal("timestamp", timestampLit);
  }

  private date(): DateLit {
    return this.literal("date", dateLit);
  }

  /** WORD('…'): its string read by `read` (literals.ts), whose refusal is a string that names the problem. */
  private literal<T extends object>(word: string, read: (value: string) => T | string): T {
    const start = this.peek();
    const { value, token } = this.stringArgument(word);
    const lit = read(value);
    if (typeof lit === "string") throw new CqlSyntaxError(lit, token.at);
    return this.at(lit, start);
  }

  /** `OP(a, b)`: the operator's token, and its two operands, each read by `operand`. */
  private pair<T>(operand: () => T): { start: Token; args: [T, T] } {
    const start = this.next();
    this.expectPunct("(");
    const a = operand();
    this.expectPunct(",");
    const b = operand();
    this.expectPunct(")");
    return { start, args: [a, b] };
  }

  private spatial(op: SpatialOp): Expr {
    const { start, args } = this.pair(() => this.geometry());
    return this.at({ kind: "spatial", op, args }, start);
  }

  private next(): Token {
    const t = this.peek();
    if (t.type !== "end") this.i++;
    return t;
  }

  private geometry(): Geometry {
    const t = this.peek();
    if (t.type === "ident" && t.quoted) {
      this.i++;
      return this.at({ kind: "property", name: t.value }, t);
    }
    if (t.type === "ident" && GEOMETRY_WORDS.has(t.value.toLowerCase())) {
      if (this.acceptKeyword("bbox")) {
        const n = this.parenList(() => this.number());
        const box = filterBboxLit(n, this.crs);
        if (typeof box === "string") return this.fail(box, t);
        return this.at(box, t);
      }
      const g = this.geometryLiteral();
      const problem = literalToCrs84(g, this.crs) ?? geometryError(g);
      if (problem) this.fail(`invalid geometry: ${problem}`, t);
      return g;
    }
    if (t.type === "ident" && !RESERVED.has(t.value.toLowerCase()) && !this.isPunct("(", 1)) {
      this.i++;
      return this.at({ kind: "property", name: t.value }, t);
    }
    return this.fail("expected a geometry property or a geometry literal (WKT or BBOX)");
  }

  /** WKT: POINT, LINESTRING, POLYGON, their MULTI forms and GEOMETRYCOLLECTION, in 2D (a Z ordinate is read and dropped). */
  private geometryLiteral(): GeometryLit {
    const t = this.next();
    const word = t.type === "ident" ? t.value.toLowerCase() : "";
    this.acceptKeyword("z");
    return this.nested((): GeometryLit => {
      switch (word) {
        case "point":
          return this.at({ kind: "point", coordinates: this.paren(() => this.position()) }, t);
        case "linestring":
          return this.at({ kind: "linestring", coordinates: this.positions() }, t);
        case "polygon":
          return this.at({ kind: "polygon", coordinates: this.parenList(() => this.positions()) }, t);
        case "multipoint":
          // Both MULTIPOINT((1 2), (3 4)) and MULTIPOINT(1 2, 3 4) are WKT.
          return this.at(
            {
              kind: "multipoint",
              coordinates: this.parenList(() =>
                this.isPunct("(") ? this.paren(() => this.position()) : this.position(),
              ),
            },
            t,
          );
        case "multilinestring":
          return this.at({ kind: "multilinestring", coordinates: this.parenList(() => this.positions()) }, t);
        case "multipolygon":
          return this.at(
            {
              kind: "multipolygon",
              coordinates: this.parenList(() => this.parenList(() => this.positions())),
            },
            t,
          );
        case "geometrycollection":
          return this.at(
            {
              kind: "geometrycollection",
              geometries: this.parenList(() => {
                const g = this.peek();
                if (
                  !(g.type === "ident" && GEOMETRY_WORDS.has(g.value.toLowerCase())) ||
                  this.isKeyword("bbox")
                )
                  this.fail("expected a WKT geometry");
                return this.geometryLiteral();
              }),
            },
            t,
          );
        default:
          return this.fail("expected a geometry literal", t);
      }
    });
  }

  private paren<T>(item: () => T): T {
    this.expectPunct("(");
    const value = item();
    this.expectPunct(")");
    return value;
  }

  private positions(): Position[] {
    return this.parenList(() => this.position());
  }

  /** `( item {, item} )`: one or more items; with `max`, more than `max.items` fails with `max.message`. */
  private parenList<T>(item: () => T, max?: { items: number; message: string }): T[] {
    this.expectPunct("(");
    const list = [item()];
    while (this.isPunct(",")) {
      this.i++;
      if (max && list.length >= max.items) this.fail(max.message);
      list.push(item());
    }
    this.expectPunct(")");
    return list;
  }

  private position(): Position {
    if (++this.vertices > CQL_LIMITS.vertices)
      this.fail(`geometries are limited to ${CQL_LIMITS.vertices} vertices`);
    const lon = this.number();
    const lat = this.number();
    // An optional third ordinate (height) is accepted and ignored, as for the 6-number bbox.
    if (this.peek().type === "number" || this.peek().type === "arith") this.number();
    return [lon, lat];
  }

  /** A number, with a sign the lexer read as an operator (`1 -2` in a position is two numbers). */
  private number(): number {
    const t = this.peek();
    if (t.type === "arith" && (t.value === "-" || t.value === "+")) {
      const n = this.peek(1);
      if (n.type === "number") {
        this.i += 2;
        return t.value === "-" ? -n.value : n.value;
      }
    }
    if (t.type !== "number") this.fail("expected a number");
    this.i++;
    return (t as { value: number }).value;
  }

  private temporal(op: TemporalOp): Expr {
    const { start, args } = this.pair(() => this.temporalOperand());
    return this.at({ kind: "temporal", op, args }, start);
  }

  private temporalOperand(): Temporal {
    const t = this.peek();
    if (this.isKeyword("timestamp")) return this.timestamp();
    if (this.isKeyword("date")) return this.date();
    if (this.acceptKeyword("interval")) {
      this.expectPunct("(");
      const start = this.intervalEnd();
      this.expectPunct(",");
      const end = this.intervalEnd();
      this.expectPunct(")");
      const from = start.kind === "date" ? start.start : start.kind === "timestamp" ? start.value : undefined;
      const to = end.kind === "date" ? end.next : end.kind === "timestamp" ? end.value : undefined;
      if (from && to && from > to) this.fail("an INTERVAL must not end before it starts", t);
      return this.at({ kind: "interval", start, end }, t);
    }
    if (t.type === "ident" && (t.quoted || !RESERVED.has(t.value.toLowerCase())) && !this.isPunct("(", 1)) {
      this.i++;
      return this.at({ kind: "property", name: t.value }, t);
    }
    return this.fail("expected a temporal property or a TIMESTAMP, DATE or INTERVAL literal");
  }

  /** An INTERVAL end: '..' (open), a date or timestamp string, a TIMESTAMP/DATE literal, or a property. */
  private intervalEnd(): IntervalEnd {
    if (this.isKeyword("timestamp")) return this.timestamp();
    if (this.isKeyword("date")) return this.date();
    const t = this.peek();
    if (t.type === "ident" && (t.quoted || !RESERVED.has(t.value.toLowerCase()))) {
      this.i++;
      return this.at({ kind: "property", name: t.value }, t);
    }
    if (t.type !== "string") this.fail("INTERVAL ends are quoted dates, timestamps, '..' or properties");
    this.i++;
    const end = intervalEndLit((t as { value: string }).value);
    if (typeof end === "string") throw new CqlSyntaxError(end, t.at);
    return this.at(end, t);
  }

  private arrayPredicate(op: ArrayOp): Expr {
    const { start, args } = this.pair(() => this.arrayOperand());
    return this.at({ kind: "array", op, args }, start);
  }

  private arrayOperand(): ArrayOperand {
    if (this.isPunct("(")) return this.arrayLiteral();
    const t = this.peek();
    if (t.type === "ident" && (t.quoted || !RESERVED.has(t.value.toLowerCase())) && !this.isPunct("(", 1)) {
      this.i++;
      return this.at({ kind: "property", name: t.value }, t);
    }
    return this.fail("expected an array property or an array literal ( … )");
  }

  /** `( item, … )`, possibly empty; items are values or nested arrays. */
  private arrayLiteral(): ArrayLit {
    const t = this.peek();
    return this.nested(() => {
      this.expectPunct("(");
      const items: ArrayLit["items"] = [];
      if (!this.isPunct(")")) {
        do {
          if (items.length >= CQL_LIMITS.listItems)
            this.fail(`arrays are limited to ${CQL_LIMITS.listItems} items`);
          items.push(this.isPunct("(") ? this.arrayLiteral() : this.scalar());
        } while (this.isPunct(",") && this.i++ >= 0);
      }
      this.expectPunct(")");
      return this.at({ kind: "array", items }, t);
    });
  }
}
