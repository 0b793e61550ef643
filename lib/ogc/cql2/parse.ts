import { checkBbox, parseInstant, rfc3339, YEARS } from "../../params/grammar.js";
import type {
  ComparisonOp,
  DateLit,
  Expr,
  Geometry,
  IntervalLit,
  Scalar,
  Temporal,
  TemporalOp,
  TimestampLit,
} from "./ast.js";
import { CqlSyntaxError, type Token, tokenize } from "./lexer.js";

/**
 * Bounds that keep a hostile filter from costing more to parse or run than a page of results. `depth` counts
 * every level of nesting: a parenthesis and a NOT each open one (NOT NOT NOT … is as deep as it is long).
 */
export const CQL_LIMITS = { length: 8192, depth: 32, listItems: 1000, vertices: 10_000 } as const;

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
  "timestamp",
  "date",
  "interval",
  "bbox",
  "point",
  "polygon",
]);

const TEMPORAL_OPS: Record<string, TemporalOp> = {
  t_intersects: "t_intersects",
  t_after: "t_after",
  t_before: "t_before",
};

/**
 * A recursive-descent parser for the CQL2 text subset: boolean logic (AND, OR, NOT, parentheses), comparisons,
 * BETWEEN, IN, LIKE, IS [NOT] NULL, S_INTERSECTS with BBOX/POINT/POLYGON literals, and T_INTERSECTS, T_AFTER,
 * T_BEFORE with TIMESTAMP/DATE/INTERVAL literals. Precedence: NOT binds tighter than AND, AND than OR.
 */
export function parseCql2(text: string): Expr {
  if (text.length > CQL_LIMITS.length) {
    throw new CqlSyntaxError(`filter is longer than ${CQL_LIMITS.length} characters`, CQL_LIMITS.length);
  }
  const parser = new Parser(tokenize(text));
  const expr = parser.orExpr(0);
  parser.expectEnd();
  return expr;
}

class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.i + offset, this.tokens.length - 1)]!;
  }
  private next(): Token {
    const t = this.peek();
    if (t.type !== "end") this.i++;
    return t;
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
  private isPunct(p: "(" | ")" | ","): boolean {
    const t = this.peek();
    return t.type === "punct" && t.value === p;
  }
  private expectPunct(p: "(" | ")" | ","): void {
    if (!this.isPunct(p)) this.fail(`expected '${p}'`);
    this.i++;
  }
  private fail(message: string): never {
    const t = this.peek();
    const found = t.type === "end" ? "end of filter" : `'${"value" in t ? String(t.value) : ""}'`;
    throw new CqlSyntaxError(`${message}, found ${found}`, t.at);
  }
  expectEnd(): void {
    if (this.peek().type !== "end") this.fail("expected end of filter");
  }

  private checkDepth(depth: number): void {
    if (depth > CQL_LIMITS.depth) this.fail(`filter nests deeper than ${CQL_LIMITS.depth} levels`);
  }

  orExpr(depth: number): Expr {
    this.checkDepth(depth);
    const args = [this.andExpr(depth)];
    while (this.acceptKeyword("or")) args.push(this.andExpr(depth));
    return args.length === 1 ? args[0]! : { kind: "or", args };
  }

  private andExpr(depth: number): Expr {
    const args = [this.notExpr(depth)];
    while (this.acceptKeyword("and")) args.push(this.notExpr(depth));
    return args.length === 1 ? args[0]! : { kind: "and", args };
  }

  private notExpr(depth: number): Expr {
    if (this.acceptKeyword("not")) {
      this.checkDepth(depth + 1);
      return { kind: "not", arg: this.notExpr(depth + 1) };
    }
    return this.primary(depth);
  }

  private primary(depth: number): Expr {
    if (this.isPunct("(")) {
      this.i++;
      const inner = this.orExpr(depth + 1);
      this.expectPunct(")");
      return inner;
    }
    const t = this.peek();
    if (t.type === "ident" && !t.quoted) {
      const word = t.value.toLowerCase();
      const fn = this.peek(1);
      const call = fn.type === "punct" && fn.value === "(";
      if (word === "s_intersects" && call) return this.spatial();
      if (word in TEMPORAL_OPS && call) return this.temporal(TEMPORAL_OPS[word]!);
      if (/^[st]_[a-z]+$/.test(word) && call) this.fail(`unsupported function ${t.value.toUpperCase()}`);
      if ((word === "true" || word === "false") && !this.startsPredicateTail(1)) {
        this.i++;
        return { kind: "literal", value: word === "true" };
      }
    }
    return this.predicate();
  }

  /** Whether the token at `offset` continues a predicate (so TRUE there is an operand, not a whole condition). */
  private startsPredicateTail(offset: number): boolean {
    const t = this.peek(offset);
    if (t.type === "op") return true;
    return ["is", "in", "between", "like", "not"].some((w) => this.isKeyword(w, offset));
  }

  private predicate(): Expr {
    const left = this.scalar();
    const t = this.peek();
    if (t.type === "op") {
      this.i++;
      return { kind: "compare", op: t.value as ComparisonOp, left, right: this.scalar() };
    }
    if (this.acceptKeyword("is")) {
      const negated = this.acceptKeyword("not");
      this.expectKeyword("null");
      return { kind: "isNull", negated, value: left };
    }
    const negated = this.acceptKeyword("not");
    if (this.acceptKeyword("between")) {
      const low = this.scalar();
      this.expectKeyword("and");
      return { kind: "between", negated, value: left, low, high: this.scalar() };
    }
    if (this.acceptKeyword("in")) {
      const list = this.parenList(() => this.scalar(), {
        items: CQL_LIMITS.listItems,
        message: `IN lists are limited to ${CQL_LIMITS.listItems} items`,
      });
      return { kind: "in", negated, value: left, list };
    }
    if (this.acceptKeyword("like")) return { kind: "like", negated, value: left, pattern: this.scalar() };
    return this.fail("expected a comparison operator, IS [NOT] NULL, [NOT] BETWEEN, [NOT] IN or [NOT] LIKE");
  }

  private scalar(): Scalar {
    const t = this.peek();
    if (t.type === "string") {
      this.i++;
      return { kind: "string", value: t.value };
    }
    if (t.type === "number") {
      this.i++;
      return { kind: "number", value: t.value };
    }
    if (t.type === "ident") {
      if (t.quoted) {
        this.i++;
        return { kind: "property", name: t.value };
      }
      const word = t.value.toLowerCase();
      if (word === "true" || word === "false") {
        this.i++;
        return { kind: "boolean", value: word === "true" };
      }
      if (word === "timestamp") return this.timestamp();
      if (word === "date") return this.date();
      if (RESERVED.has(word)) this.fail("expected a property name or a literal");
      this.i++;
      return { kind: "property", name: t.value };
    }
    return this.fail("expected a property name or a literal");
  }

  private stringArgument(keyword: string): { value: string; at: number } {
    this.expectKeyword(keyword);
    this.expectPunct("(");
    const t = this.peek();
    if (t.type !== "string") this.fail(`${keyword.toUpperCase()}(…) takes a quoted string`);
    this.i++;
    this.expectPunct(")");
    return { value: (t as { value: string }).value, at: t.at };
  }

  private timestamp(): TimestampLit {
    const { value, at } = this.stringArgument("timestamp");
    const instant = rfc3339(value);
    if (!instant)
      throw new CqlSyntaxError(
        `invalid TIMESTAMP '${value}' (RFC 3339 in ${YEARS}, e.g. 2025-01-31T12:00:00Z)`,
        at,
      );
    return { kind: "timestamp", value: instant };
  }

  private date(): DateLit {
    const { value, at } = this.stringArgument("date");
    const day = dayLit(value);
    if (!day) throw new CqlSyntaxError(`invalid DATE '${value}' (YYYY-MM-DD in ${YEARS})`, at);
    return day;
  }

  private spatial(): Expr {
    this.i++; // S_INTERSECTS
    this.expectPunct("(");
    const a = this.geometry();
    this.expectPunct(",");
    const b = this.geometry();
    this.expectPunct(")");
    return { kind: "s_intersects", args: [a, b] };
  }

  private geometry(): Geometry {
    const t = this.peek();
    if (t.type === "ident" && t.quoted) {
      this.i++;
      return { kind: "property", name: t.value };
    }
    if (this.acceptKeyword("bbox")) {
      const n = this.parenList(() => this.number());
      // The bbox parameter's rules (lib/params/grammar.ts), so BBOX(…) and bbox= cannot disagree.
      const box = checkBbox(n, "BBOX");
      if (typeof box === "string") return this.fail(box);
      return { kind: "bbox", ...box };
    }
    if (this.acceptKeyword("point")) {
      this.expectPunct("(");
      const [lon, lat] = this.position();
      this.expectPunct(")");
      return { kind: "point", lon, lat };
    }
    if (this.acceptKeyword("polygon")) {
      return { kind: "polygon", rings: this.parenList(() => this.ring()) };
    }
    if (t.type === "ident" && !RESERVED.has(t.value.toLowerCase())) {
      this.i++;
      return { kind: "property", name: t.value };
    }
    return this.fail("expected a geometry property or a BBOX, POINT or POLYGON literal");
  }

  private vertices = 0;

  private ring(): [number, number][] {
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

  private position(): [number, number] {
    if (++this.vertices > CQL_LIMITS.vertices)
      this.fail(`geometries are limited to ${CQL_LIMITS.vertices} vertices`);
    const lon = this.number();
    const lat = this.number();
    // An optional third ordinate (height) is accepted and ignored, as for the 6-number bbox.
    if (this.peek().type === "number") this.i++;
    return [lon, lat];
  }

  private number(): number {
    const t = this.peek();
    if (t.type !== "number") this.fail("expected a number");
    this.i++;
    return (t as { value: number }).value;
  }

  private temporal(op: TemporalOp): Expr {
    this.i++; // the function name
    this.expectPunct("(");
    const a = this.temporalOperand();
    this.expectPunct(",");
    const b = this.temporalOperand();
    this.expectPunct(")");
    return { kind: "temporal", op, args: [a, b] };
  }

  private temporalOperand(): Temporal {
    if (this.isKeyword("timestamp")) return this.timestamp();
    if (this.isKeyword("date")) return this.date();
    if (this.acceptKeyword("interval")) {
      this.expectPunct("(");
      const start = this.intervalBound();
      this.expectPunct(",");
      const end = this.intervalBound();
      this.expectPunct(")");
      if (!start && !end) this.fail("an INTERVAL needs at least one bounded end");
      const interval: IntervalLit = {
        kind: "interval",
        ...(start ? { start } : {}),
        ...(end ? { end } : {}),
      };
      const from = start?.kind === "date" ? start.start : start?.value;
      const to = end?.kind === "date" ? end.next : end?.value;
      if (from && to && from > to) this.fail("an INTERVAL must not end before it starts");
      return interval;
    }
    const t = this.peek();
    if (t.type === "ident" && (t.quoted || !RESERVED.has(t.value.toLowerCase()))) {
      this.i++;
      return { kind: "property", name: t.value };
    }
    return this.fail("expected a temporal property or a TIMESTAMP, DATE or INTERVAL literal");
  }

  /** An INTERVAL end: '..' (open), a date or timestamp string, or a TIMESTAMP/DATE literal. */
  private intervalBound(): TimestampLit | DateLit | undefined {
    if (this.isKeyword("timestamp")) return this.timestamp();
    if (this.isKeyword("date")) return this.date();
    const t = this.peek();
    if (t.type !== "string") this.fail("INTERVAL ends are quoted dates, timestamps or '..'");
    this.i++;
    const value = (t as { value: string }).value;
    if (value === "..") return undefined;
    const day = dayLit(value);
    if (day) return day;
    const instant = rfc3339(value);
    if (instant) return { kind: "timestamp", value: instant };
    throw new CqlSyntaxError(
      `invalid INTERVAL end '${value}' (a date or RFC 3339 time in ${YEARS}, or '..')`,
      t.at,
    );
  }
}

/** A DATE: YYYY-MM-DD, a possible day, which covers [start, next) in UTC. */
function dayLit(value: string): DateLit | undefined {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value) ? parseInstant(value) : undefined;
  return day?.start
    ? { kind: "date", start: day.start, next: new Date(day.start.getTime() + 86_400_000) }
    : undefined;
}
