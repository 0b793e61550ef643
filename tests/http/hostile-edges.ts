import fc from "fast-check";
import type { NewLocationProofRow } from "../../db/schema.js";
import { locationColumns } from "../../lib/location/columns.js";
import { decodeLocation } from "../../lib/location/decode.js";
import { OGC_MAX_LIMIT } from "../../lib/ogc/vocabulary.js";
import { cursorToken } from "../../lib/proofs/cursor.js";
import { MAX_RADIUS_M } from "../../lib/proofs/near.js";
import { SORTABLE_PROPERTIES } from "../../lib/proofs/properties.js";
import { type Order, orderSignature, type SortSpec, sortKeys } from "../../lib/proofs/sort.js";
import { MAX_INSTANT, MIN_INSTANT } from "../../lib/proofs/timestamps.js";
import { LIST_MAX_LIMIT } from "../../lib/v0/list-params.js";

/**
 * The ends of every range the read endpoints accept, and the values the server derives from them, for the hostile
 * input suite: instants at and next to the first and last the service takes (and the days, windows and intervals
 * made of them), coordinates at ±180/±90 and on grid lines, limits and offsets at both ends, cursors holding the
 * extreme value of every sort key's type. The ranges come from the code's own bounds (MIN_INSTANT, MAX_INSTANT,
 * the limits, the sortable properties), so a bound moved there moves here.
 *
 * A request the validators take reaches the database with these values and with what the server works out from
 * them — the next UTC midnight, the day before, the 1° cells of a box, the box 360° east, limit + offset, a cursor's
 * key: the suite checks none of them is a 500.
 */

const DAY = 86_400_000;
const MIN = MIN_INSTANT.getTime();
const MAX = MAX_INSTANT.getTime();

/** Instants at both ends of the range, inside and just outside, and the days and windows around them. */
const EDGE_INSTANTS = [
  MIN - 1,
  MIN,
  MIN + 1,
  MIN + 1000,
  MIN + DAY - 1,
  MIN + DAY,
  MIN + DAY + 1,
  MIN + 2 * DAY,
  MIN + 3 * DAY - 1,
  MAX - 3 * DAY,
  MAX - 2 * DAY,
  MAX - DAY - 1,
  MAX - DAY,
  MAX - DAY + 1,
  MAX - DAY / 2,
  MAX - 1000,
  MAX - 1,
  MAX,
  MAX + 1,
];

/** An instant as text: toISOString, but years past 9999 plain (10000-…), as a client would type them. */
const isoOf = (ms: number) => new Date(ms).toISOString().replace(/^\+0*/, "");

/** The wall-clock text of instant `ms` at UTC offset `minutes` (the same instant), seconds or milliseconds. */
function atOffset(ms: number, minutes: number, withMs: boolean): string {
  const local = isoOf(ms + minutes * 60_000).slice(0, withMs ? 23 : 19);
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

/**
 * One edge instant written one way: ISO with milliseconds; to the second; its UTC date alone (the whole day); the
 * same instant at another offset; its UTC digits with an offset (another instant: past the end at -01:00 on the
 * last day); nine fraction digits; lower case; a space for the T.
 */
export const instantText: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom(...EDGE_INSTANTS),
    fc.constantFrom("ms", "s", "date", "offset", "digits-offset", "nanos", "lower", "space"),
    fc.constantFrom(-840, -60, -1, 60, 840),
  )
  .map(([ms, form, minutes]) => {
    const iso = isoOf(ms);
    switch (form) {
      case "ms":
        return iso;
      case "s":
        return `${iso.slice(0, 19)}Z`;
      case "date":
        return iso.slice(0, iso.indexOf("T"));
      case "offset":
        return atOffset(ms, minutes, true);
      case "digits-offset":
        return `${iso.slice(0, 19)}${minutes < 0 ? "-" : "+"}${String(Math.floor(Math.abs(minutes) / 60)).padStart(2, "0")}:${String(Math.abs(minutes) % 60).padStart(2, "0")}`;
      case "nanos":
        return `${iso.slice(0, 23)}999999Z`;
      case "lower":
        return iso.toLowerCase();
      default:
        return iso.replace("T", " ");
    }
  });

/** An OGC / native `datetime`: an instant, a closed interval or one open on either side, of edge instants. */
export const datetimeText: fc.Arbitrary<string> = fc.oneof(
  instantText,
  instantText.map((a) => `${a}/..`),
  instantText.map((b) => `../${b}`),
  instantText.map((a) => `${a}/`),
  fc.tuple(instantText, instantText).map(([a, b]) => `${a}/${b}`),
);

const LONGITUDES = [
  -180, -179.999999, -179.5, -179, -177, -1, -0.5, 0, 0.5, 1, 2, 177, 179, 179.5, 179.999999, 180,
];
const LATITUDES = [-90, -89.999999, -89, -87, -1, 0, 1, 87, 89, 89.999999, 90];
/** Coordinates just outside the range, and texts the grammar takes that are edge values too. */
const COORDINATE_TEXTS = [
  "180.000001",
  "-180.000001",
  "90.000001",
  "-90.000001",
  "-0",
  "1e-400",
  "1.8e2",
  "-9e1",
];
const HEIGHTS = ["-1.7976931348623157e308", "0", "1.7976931348623157e308", "1e309"];

const lon = fc.oneof(
  { arbitrary: fc.constantFrom(...LONGITUDES).map(String), weight: 8 },
  {
    arbitrary: fc.constantFrom(...COORDINATE_TEXTS),
    weight: 1,
  },
);
const lat = fc.oneof(
  { arbitrary: fc.constantFrom(...LATITUDES).map(String), weight: 8 },
  {
    arbitrary: fc.constantFrom(...COORDINATE_TEXTS),
    weight: 1,
  },
);

/**
 * A bbox of edge coordinates: any two longitudes (west > east crosses the antimeridian), two latitudes usually in
 * order, boxes on and between grid lines (the 1° cells a count adds up), and the 3D form with extreme heights.
 */
export const bboxText = (allow3d: boolean): fc.Arbitrary<string> =>
  fc
    .tuple(lon, lat, lon, lat, fc.constantFrom(...HEIGHTS), fc.constantFrom(...HEIGHTS), fc.boolean())
    .map(([x0, y0, x1, y1, z0, z1, threeD]) => {
      const [s, n] = Number(y0) <= Number(y1) || y0 === y1 ? [y0, y1] : [y1, y0];
      return allow3d && threeD ? `${x0},${s},${z0},${x1},${n},${z1}` : `${x0},${s},${x1},${n}`;
    });

/** A proximity centre (`near=lon,lat`) of edge coordinates: the poles, the antimeridian, just outside the range. */
export const nearText: fc.Arbitrary<string> = fc.tuple(lon, lat).map(([x, y]) => `${x},${y}`);

/**
 * A radius at both ends of (0, MAX_RADIUS_M]: the smallest positive doubles, a metre, half the Earth's circumference
 * and just past it, and texts the number grammar takes (which reach the distance test and the circle's box).
 */
export const radiusText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "5e-324",
    "1e-300",
    "0.000001",
    "1",
    "1000",
    "50000",
    String(MAX_RADIUS_M - 1),
    String(MAX_RADIUS_M),
    `${MAX_RADIUS_M}.000001`,
    "0",
    "-0",
    "1e309",
  ),
  fc.double({ min: Number.MIN_VALUE, max: MAX_RADIUS_M, noNaN: true }).map(String),
);

const SAFE = Number.MAX_SAFE_INTEGER;
/** Offsets at both ends of [0, MAX_SAFE_INTEGER] and around the suite's data size, and just past the end. */
export const offsetText: fc.Arbitrary<string> = fc.constantFrom(
  "0",
  "1",
  "9",
  "10",
  "99",
  "100",
  "127",
  "128",
  "129",
  "999",
  "1000",
  String(SAFE - 1001),
  String(SAFE - 1),
  String(SAFE),
  String(SAFE + 1),
  "9223372036854775807",
  "9".repeat(16),
  "9".repeat(17),
);

export const limitText = (max: number): fc.Arbitrary<string> =>
  fc.constantFrom(
    "0",
    "1",
    "2",
    String(max - 1),
    String(max),
    String(max + 1),
    "999999999",
    "1000000000",
    "9".repeat(17),
  );

const SORTABLE = SORTABLE_PROPERTIES.map((q) => q.name);
/** A sortby of one or two sortable properties, either direction. */
export const sortbyText: fc.Arbitrary<string> = fc
  .uniqueArray(fc.tuple(fc.constantFrom(...SORTABLE), fc.boolean()), {
    minLength: 1,
    maxLength: 2,
    selector: ([field]) => field,
  })
  .map((items) => items.map(([field, descending]) => `${descending ? "-" : ""}${field}`).join(","));

export const parseSortText = (text: string | undefined): SortSpec[] | undefined =>
  text?.split(",").map((item) => ({ field: item.replace(/^-/, ""), descending: item.startsWith("-") }));

/** Extreme values of each key type a cursor holds, valid or not (decodeCursor must refuse the invalid ones). */
const TIMESTAMP_VALUES = [
  null,
  isoOf(MIN),
  isoOf(MIN + 1),
  isoOf(MAX),
  isoOf(MAX - 1),
  isoOf(MIN - 1),
  isoOf(MAX + 1),
  "0001-01-01T00:00:00Z",
  "2025-02-30T00:00:00.000Z",
];
const NUMBER_VALUES = [
  null,
  0,
  -180,
  180,
  -90,
  90,
  1.7976931348623157e308,
  -1.7976931348623157e308,
  5e-324,
  -5e-324,
  1e-300,
];
const INTEGER_VALUES = [null, 0, -1, 1, SAFE, -SAFE, SAFE + 1, 2 ** 63, 1.5, "1"];
const STRING_VALUES = [
  null,
  "",
  "\u0000",
  "a\u0000b",
  "'",
  "\\",
  "%",
  "\ud800",
  "é",
  "0x".padEnd(66, "f"),
  "a".repeat(256),
  "a".repeat(257),
  7,
];

/** A part index of a located-first order, at and past both ends (decodeCursor must refuse the invalid ones). */
const PART_VALUES = [0, 1, 3, 4, -1, 1.5, null, "0"];

/**
 * A cursor for `order` holding edge values: a checksum that matches (so it reaches the value checks), a direction,
 * a position from 0 to past MAX_SAFE_INTEGER, in a located-first order a part index, and for each sort key a value
 * of its type at an extreme, null, or of the wrong type.
 */
export const cursorText = (order: Order): fc.Arbitrary<string> => {
  const keys = sortKeys(order.sort);
  const valueFor = (type: string) =>
    fc.constantFrom<unknown>(
      ...(type === "timestamp"
        ? TIMESTAMP_VALUES
        : type === "number"
          ? NUMBER_VALUES
          : type === "integer"
            ? INTEGER_VALUES
            : STRING_VALUES),
    );
  return fc
    .tuple(
      fc.constantFrom<"next" | "prev">("next", "prev"),
      fc.constantFrom(0, 1, 120, SAFE - 1, SAFE, SAFE + 1, -1),
      fc.constantFrom<unknown>(...PART_VALUES),
      fc.tuple(...keys.map((k) => valueFor(k.type))),
    )
    .map(([direction, position, part, values]) =>
      cursorToken(
        orderSignature(order),
        direction,
        position,
        order.located?.length ? [part, ...values] : values,
      ),
    );
};

/**
 * Proofs at the ends of every range a stored value can take, added to the suite's data so that pages, counts and
 * cursors made from real rows meet them too: event and attestation times at the first and last instants, points at
 * the four corners of the world and on the antimeridian, no event time, block numbers at both ends.
 */
export function edgeProofs(template: NewLocationProofRow): NewLocationProofRow[] {
  const point = (x: number, y: number) => {
    const location = `${x}, ${y}`;
    const locationType = "DecimalDegrees<string>";
    return {
      location,
      locationType,
      ...locationColumns(decodeLocation({ locationType, location, srs: "EPSG:4326" })),
    };
  };
  const uid = (i: number) => `0x${"e".repeat(62)}${i.toString(16).padStart(2, "0")}`;
  const cases: Partial<NewLocationProofRow>[] = [
    { eventTimestamp: MIN_INSTANT, attestationTime: MIN_INSTANT, ...point(-180, -90), blockNumber: 0 },
    { eventTimestamp: MAX_INSTANT, attestationTime: MAX_INSTANT, ...point(180, 90), blockNumber: SAFE },
    { eventTimestamp: new Date(MIN + DAY - 1), ...point(-180, 90) },
    { eventTimestamp: new Date(MAX - DAY + 1), ...point(180, -90) },
    { eventTimestamp: null, eventTimestampRaw: "0", ...point(0, 0) },
    { eventTimestamp: MAX_INSTANT, ...point(179.999999, 0), revoked: true },
  ];
  return cases.map((c, i) => ({ ...template, uid: uid(i), memo: `edge proof ${i}`, ...c }));
}

export const LIMITS = { list: LIST_MAX_LIMIT, items: OGC_MAX_LIMIT };
