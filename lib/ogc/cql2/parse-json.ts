import type { CrsSystem } from "../../crs/systems.js";
import type {
  ArithmeticOp,
  ArrayLit,
  ArrayOperand,
  ComparisonOp,
  Expr,
  Geometry,
  GeometryLit,
  IntervalEnd,
  Position,
  Scalar,
  Temporal,
} from "./ast.js";
import { isArrayOp, isSpatialOp, isTemporalOp } from "./ast.js";
import { filterBboxLit, literalToCrs84 } from "./crs.js";
import { CQL_LIMITS, dateLit, geometryError, intervalEndLit, timestampLit } from "./literals.js";
import { CqlError, type Places, withPlaces } from "./where.js";

/**
 * CQL2 JSON (OGC 21-065r2, the cql2.json schema) into the tree that the text parser builds, so one compiler serves
 * both. Every problem names its place as a JSON pointer (RFC 6901) into the filter.
 */
export function parseCql2Json(text: string, crs?: CrsSystem): Expr {
  if (text.length > CQL_LIMITS.length)
    throw new CqlError(`filter is longer than ${CQL_LIMITS.length} characters`, "character 8193");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    // V8's message names the position ("… in JSON at position 12").
    throw new CqlError(`malformed JSON: ${(error as Error).message}`, "character 1");
  }
  const parser = new JsonParser(crs);
  return withPlaces(parser.expr(json, "", 0), parser.places);
}

type J = unknown;
const isObject = (j: J): j is Record<string, J> => typeof j === "object" && j !== null && !Array.isArray(j);
const has = (o: Record<string, J>, key: string) => Object.hasOwn(o, key);
/** A JSON pointer's next step, with ~ and / escaped. */
const step = (at: string, key: string | number) =>
  `${at}/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`;
const placeAt = (at: string) => (at === "" ? "/" : at);

const COMPARISONS = new Set(["=", "<>", "<", "<=", ">", ">="]);
const ARITHMETIC = new Set(["+", "-", "*", "/", "%", "div", "^"]);
const GEOJSON_TYPES: Record<string, GeometryLit["kind"]> = {
  Point: "point",
  MultiPoint: "multipoint",
  LineString: "linestring",
  MultiLineString: "multilinestring",
  Polygon: "polygon",
  MultiPolygon: "multipolygon",
  GeometryCollection: "geometrycollection",
};

class JsonParser {
  private vertices = 0;
  readonly places: Places = new Map();
  /** crs: filter-crs, the literals' system, turned into CRS84 as they are read (crs.ts) */
  constructor(private readonly crs?: CrsSystem) {}

  private fail(reason: string, at: string): never {
    throw new CqlError(reason, placeAt(at));
  }
  private put<T extends object>(node: T, at: string): T {
    this.places.set(node, placeAt(at));
    return node;
  }
  private deeper(depth: number, at: string): number {
    if (depth + 1 > CQL_LIMITS.depth) this.fail(`filter nests deeper than ${CQL_LIMITS.depth} levels`, at);
    return depth + 1;
  }

  /** `{"op": …, "args": […]}` with its op lowercased (CQL2 JSON spells ops in lowercase; S_… is forgiven). */
  private operation(j: J, at: string): { op: string; args: J[] } | undefined {
    if (!isObject(j) || !has(j, "op")) return undefined;
    if (typeof j.op !== "string") this.fail('"op" must be a string', step(at, "op"));
    if (!Array.isArray(j.args)) this.fail('"args" must be an array', step(at, "args"));
    const extra = Object.keys(j).find((k) => k !== "op" && k !== "args");
    if (extra) this.fail(`unexpected member "${extra}"`, step(at, extra));
    return { op: j.op.toLowerCase(), args: j.args as J[] };
  }

  private arity(args: J[], n: number, op: string, at: string): void {
    if (args.length !== n)
      this.fail(`${op} takes ${n} argument${n === 1 ? "" : "s"}, found ${args.length}`, step(at, "args"));
  }

  expr(j: J, at: string, depth: number): Expr {
    if (typeof j === "boolean") return this.put({ kind: "literal", value: j }, at);
    const o = this.operation(j, at);
    if (!o) return this.fail('expected a condition: {"op": …, "args": […]} or true/false', at);
    const { op, args } = o;
    const d = this.deeper(depth, at);
    const arg = (k: number) => step(step(at, "args"), k);
    if (op === "and" || op === "or") {
      if (args.length < 2)
        this.fail(`${op} takes at least 2 arguments, found ${args.length}`, step(at, "args"));
      return this.put({ kind: op, args: args.map((a, k) => this.expr(a, arg(k), d)) }, at);
    }
    if (op === "not") {
      this.arity(args, 1, op, at);
      return this.put({ kind: "not", arg: this.expr(args[0], arg(0), d) }, at);
    }
    if (COMPARISONS.has(op)) {
      this.arity(args, 2, op, at);
      return this.put(
        {
          kind: "compare",
          op: op as ComparisonOp,
          left: this.scalar(args[0], arg(0), d),
          right: this.scalar(args[1], arg(1), d),
        },
        at,
      );
    }
    switch (op) {
      case "like":
        this.arity(args, 2, op, at);
        return this.put(
          { kind: "like", value: this.scalar(args[0], arg(0), d), pattern: this.scalar(args[1], arg(1), d) },
          at,
        );
      case "between":
        this.arity(args, 3, op, at);
        return this.put(
          {
            kind: "between",
            value: this.scalar(args[0], arg(0), d),
            low: this.scalar(args[1], arg(1), d),
            high: this.scalar(args[2], arg(2), d),
          },
          at,
        );
      case "in": {
        this.arity(args, 2, op, at);
        const list = args[1];
        if (!Array.isArray(list) || list.length === 0)
          this.fail("IN takes a non-empty array of values", arg(1));
        if (list.length > CQL_LIMITS.listItems)
          this.fail(`IN lists are limited to ${CQL_LIMITS.listItems} items`, arg(1));
        return this.put(
          {
            kind: "in",
            value: this.scalar(args[0], arg(0), d),
            list: list.map((item, k) => this.scalar(item, step(arg(1), k), d)),
          },
          at,
        );
      }
      case "isnull":
        this.arity(args, 1, op, at);
        return this.put({ kind: "isNull", value: this.nullable(args[0], arg(0), d) }, at);
    }
    // The spatial, temporal and array predicates: two operands of one kind each.
    const two = <A>(read: (j: J, at: string) => A): [A, A] => {
      this.arity(args, 2, op, at);
      return [read(args[0], arg(0)), read(args[1], arg(1))];
    };
    if (isSpatialOp(op))
      return this.put({ kind: "spatial", op, args: two((j, p) => this.geometry(j, p)) }, at);
    if (isTemporalOp(op))
      return this.put({ kind: "temporal", op, args: two((j, p) => this.temporal(j, p)) }, at);
    if (isArrayOp(op))
      return this.put({ kind: "array", op, args: two((j, p) => this.arrayOperand(j, p, d)) }, at);
    return this.fail(`unknown operator "${o.op}"`, step(at, "op"));
  }

  private property(j: Record<string, J>, at: string): Scalar & { kind: "property" } {
    if (typeof j.property !== "string") this.fail('"property" must be a string', step(at, "property"));
    if ((j.property as string).includes("\u0000"))
      this.fail("a property name must not contain U+0000 (NUL)", step(at, "property"));
    return this.put({ kind: "property", name: j.property as string }, at);
  }

  /** IS NULL takes any value, a geometry included. */
  private nullable(j: J, at: string, depth: number): Scalar | Geometry {
    if (isObject(j) && (has(j, "type") || has(j, "bbox"))) return this.geometry(j, at);
    return this.scalar(j, at, depth);
  }

  scalar(j: J, at: string, depth: number): Scalar {
    if (typeof j === "string") {
      if (j.includes("\u0000")) this.fail("a string must not contain U+0000 (NUL)", at);
      return this.put({ kind: "string", value: j }, at);
    }
    if (typeof j === "number") {
      // JSON.parse reads 1e309 as Infinity; a number must be one PostgreSQL and the text encoding can hold.
      if (!Number.isFinite(j)) this.fail("number out of range", at);
      return this.put({ kind: "number", value: j }, at);
    }
    if (typeof j === "boolean") return this.put({ kind: "boolean", value: j }, at);
    if (isObject(j)) {
      if (has(j, "property")) return this.property(j, at);
      if (has(j, "timestamp")) return this.instant(j, at);
      if (has(j, "date")) return this.day(j, at);
      const o = this.operation(j, at);
      if (o) {
        const d = this.deeper(depth, at);
        const arg = (k: number) => step(step(at, "args"), k);
        if (o.op === "casei" || o.op === "accenti") {
          this.arity(o.args, 1, o.op, at);
          return this.put({ kind: o.op, arg: this.scalar(o.args[0], arg(0), d) }, at);
        }
        if (ARITHMETIC.has(o.op)) {
          this.arity(o.args, 2, o.op, at);
          return this.put(
            {
              kind: "arith",
              op: o.op as ArithmeticOp,
              left: this.scalar(o.args[0], arg(0), d),
              right: this.scalar(o.args[1], arg(1), d),
            },
            at,
          );
        }
        return this.fail(
          `"${o.op}" is not a value here (expected a property, a literal, CASEI, ACCENTI or arithmetic)`,
          step(at, "op"),
        );
      }
      if (has(j, "function")) this.fail("functions are not served (see /conformance)", at);
    }
    return this.fail(
      "expected a value: a string, a number, a boolean, a property, a timestamp or a date",
      at,
    );
  }

  private instant(j: Record<string, J>, at: string) {
    if (typeof j.timestamp !== "string") this.fail('"timestamp" must be a string', step(at, "timestamp"));
    const lit = timestampLit(j.timestamp as string);
    if (typeof lit === "string") this.fail(lit, step(at, "timestamp"));
    return this.put(lit, at);
  }

  private day(j: Record<string, J>, at: string) {
    if (typeof j.date !== "string") this.fail('"date" must be a string', step(at, "date"));
    const lit = dateLit(j.date as string);
    if (typeof lit === "string") this.fail(lit, step(at, "date"));
    return this.put(lit, at);
  }

  private temporal(j: J, at: string): Temporal {
    if (isObject(j)) {
      if (has(j, "property")) return this.property(j, at);
      if (has(j, "timestamp")) return this.instant(j, at);
      if (has(j, "date")) return this.day(j, at);
      if (has(j, "interval")) {
        const ends = j.interval;
        if (!Array.isArray(ends) || ends.length !== 2)
          this.fail('"interval" takes an array of 2 ends', step(at, "interval"));
        const [start, end] = (ends as J[]).map((e, k) => this.intervalEnd(e, step(step(at, "interval"), k)));
        const from =
          start!.kind === "date" ? start!.start : start!.kind === "timestamp" ? start!.value : undefined;
        const to = end!.kind === "date" ? end!.next : end!.kind === "timestamp" ? end!.value : undefined;
        if (from && to && from > to) this.fail("an INTERVAL must not end before it starts", at);
        return this.put({ kind: "interval", start: start!, end: end! }, at);
      }
    }
    return this.fail("expected a temporal value: a property, a timestamp, a date or an interval", at);
  }

  private intervalEnd(j: J, at: string): IntervalEnd {
    if (typeof j === "string") {
      const end = intervalEndLit(j);
      if (typeof end === "string") this.fail(end, at);
      return this.put(end, at);
    }
    if (isObject(j)) {
      if (has(j, "property")) return this.property(j, at);
      if (has(j, "timestamp")) return this.instant(j, at);
      if (has(j, "date")) return this.day(j, at);
    }
    return this.fail("an INTERVAL end is a date or timestamp string, '..', or a property", at);
  }

  private geometry(j: J, at: string): Geometry {
    if (isObject(j) && has(j, "property")) return this.property(j, at);
    if (isObject(j) && has(j, "bbox")) {
      const n = j.bbox;
      if (!Array.isArray(n) || !n.every((x) => typeof x === "number"))
        this.fail('"bbox" takes an array of 4 or 6 numbers', step(at, "bbox"));
      const box = filterBboxLit(n as number[], this.crs);
      if (typeof box === "string") this.fail(box, step(at, "bbox"));
      return this.put(box, at);
    }
    const g = this.geoJson(j, at, 0);
    const problem = literalToCrs84(g, this.crs) ?? geometryError(g);
    if (problem) this.fail(`invalid geometry: ${problem}`, at);
    return g;
  }

  /** A GeoJSON geometry (RFC 7946). */
  private geoJson(j: J, at: string, depth: number): GeometryLit {
    if (!isObject(j) || typeof j.type !== "string" || !(j.type in GEOJSON_TYPES))
      return this.fail(
        "expected a geometry: a property, a bbox or a GeoJSON geometry (Point, LineString, Polygon, Multi…, GeometryCollection)",
        at,
      );
    const kind = GEOJSON_TYPES[j.type]!;
    if (kind === "geometrycollection") {
      if (!Array.isArray(j.geometries)) this.fail('"geometries" must be an array', step(at, "geometries"));
      const d = this.deeper(depth, at);
      return this.put(
        {
          kind,
          geometries: (j.geometries as J[]).map((g, k) =>
            this.geoJson(g, step(step(at, "geometries"), k), d),
          ),
        },
        at,
      );
    }
    const c = step(at, "coordinates");
    const levels = {
      point: 0,
      multipoint: 1,
      linestring: 1,
      multilinestring: 2,
      polygon: 2,
      multipolygon: 3,
    }[kind];
    return this.put({ kind, coordinates: this.coordinates(j.coordinates, c, levels) } as GeometryLit, at);
  }

  private coordinates(j: J, at: string, levels: number): unknown {
    if (levels === 0) return this.position(j, at);
    if (!Array.isArray(j) || j.length === 0)
      return this.fail("expected a non-empty array of coordinates", at);
    return j.map((x, k) => this.coordinates(x, step(at, k), levels - 1));
  }

  private position(j: J, at: string): Position {
    if (++this.vertices > CQL_LIMITS.vertices)
      this.fail(`geometries are limited to ${CQL_LIMITS.vertices} vertices`, at);
    if (!Array.isArray(j) || j.length < 2 || j.length > 3 || !j.every((x) => typeof x === "number"))
      this.fail("a position is an array of 2 or 3 numbers", at);
    return [(j as number[])[0]!, (j as number[])[1]!];
  }

  private arrayOperand(j: J, at: string, depth: number): ArrayOperand {
    if (Array.isArray(j)) return this.array(j, at, depth);
    if (isObject(j) && has(j, "property")) return this.property(j, at);
    return this.fail("expected an array or an array property", at);
  }

  private array(j: J[], at: string, depth: number): ArrayLit {
    const d = this.deeper(depth, at);
    if (j.length > CQL_LIMITS.listItems) this.fail(`arrays are limited to ${CQL_LIMITS.listItems} items`, at);
    return this.put(
      {
        kind: "array",
        items: j.map((x, k) =>
          Array.isArray(x) ? this.array(x, step(at, k), d) : this.scalar(x, step(at, k), d),
        ),
      },
      at,
    );
  }
}
