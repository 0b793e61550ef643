import { hash } from "node:crypto";
import type { ProofRow } from "./rows.js";
import { type Cursor, type Order, orderSignature, type SortKey, sortKeys } from "./sort.js";
import { inTimestampRange } from "./timestamps.js";

/**
 * The `cursor` of next/prev links: the sort key of the row a page continues from, opaque to clients.
 *
 * Token: base64url(JSON [1, "n"|"p", order signature, position, ...key values]) "." base64url(first 9 bytes of
 * SHA-256(domain, payload)). In an order that puts located features first, the key values start with the row's
 * part (lib/proofs/count.ts, countParts). The checksum is not keyed: a cursor holds nothing secret and grants nothing (it only
 * names a position in the public order, and its values reach SQL as typed bound parameters, each checked here), so
 * a signing secret would buy no protection, only a setting to manage and links that die when it rotates. What the
 * check does buy: a cursor that was cut, garbled or edited by hand is a 400 naming `cursor`, never a silently wrong
 * page; one made for another sort order is refused too.
 */

const VERSION = 1;
const DOMAIN = "location-proof-query-service cursor v1\u0000";
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** One-shot hashing: a Hash object per link (create, two updates, digest) cost more than the hashing itself. */
const checksum = (payload: string) =>
  hash("sha256", DOMAIN + payload, "buffer")
    .subarray(0, 9)
    .toString("base64url");

/**
 * The cursor that continues after (`next`) or before (`prev`) `row`, of part `part`, in an order as planned
 * (lib/proofs/plan.ts: its keys and signature).
 */
export function encodeCursor(
  { order, keys, signature }: { order: Order; keys: SortKey[]; signature: string },
  direction: Cursor["direction"],
  row: ProofRow,
  position: number,
  part = 0,
) {
  // The position is a hint (see Cursor), and one past MAX_SAFE_INTEGER (a page after a cursor that claimed the
  // largest) would make a link decodeCursor refuses: it is capped there.
  const values = keys.map((k) => k.value(row));
  return cursorToken(
    signature,
    direction,
    Math.min(position, Number.MAX_SAFE_INTEGER),
    order.located?.length ? [part, ...values] : values,
  );
}

/**
 * The token of a cursor as given: what encodeCursor writes for a row, and what a test writes to try values no row
 * holds (decodeCursor checks every value, whoever made the token).
 */
export function cursorToken(
  signature: string,
  direction: Cursor["direction"],
  position: number,
  values: unknown[],
): string {
  const payload = JSON.stringify([VERSION, direction === "next" ? "n" : "p", signature, position, ...values]);
  return `${Buffer.from(payload).toString("base64url")}.${checksum(payload)}`;
}

/**
 * Whether a key value is one the cursor can hold: what the key's column could hold and PostgreSQL takes as a
 * bound parameter of its type. A timestamp must be the exact text of an instant in the accepted range (2025-02-30
 * passes the pattern and `new Date`, which rolls it over, but not the database); a string must not hold NUL, which
 * no text column can.
 */
function validValue(k: SortKey, value: unknown): boolean {
  if (value === null) return k.nullable;
  switch (k.type) {
    case "timestamp": {
      if (typeof value !== "string" || !ISO_MS.test(value)) return false;
      const at = new Date(value);
      return !Number.isNaN(at.getTime()) && at.toISOString() === value && inTimestampRange(at);
    }
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return Number.isSafeInteger(value);
    default:
      return typeof value === "string" && value.length <= 256 && !value.includes("\u0000");
  }
}

/**
 * The cursor a token names for this order, or the reason it names none (for a 400 naming `cursor`). `keys` and
 * `signature` are the order's (sortKeys, orderSignature), as a plan has them already.
 */
export function decodeCursor(
  token: string,
  order: Order,
  keys = sortKeys(order.sort),
  signature = orderSignature(order),
): Cursor | { problem: string } {
  const garbled = {
    problem:
      "cursor is not a cursor this service made (cut, garbled or edited): follow the next/prev links as given",
  };
  const [body, tag, ...more] = token.split(".");
  if (!body || !tag || more.length) return garbled;
  const payload = Buffer.from(body, "base64url").toString("utf8");
  if (Buffer.from(payload).toString("base64url") !== body || checksum(payload) !== tag) return garbled;
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return garbled;
  }
  if (!Array.isArray(parsed) || parsed[0] !== VERSION || (parsed[1] !== "n" && parsed[1] !== "p"))
    return garbled;
  if (parsed[2] !== signature) {
    return {
      problem: `cursor belongs to another sort order (${String(parsed[2])}); this request sorts by ${signature}: follow the links of this order, or start again without cursor`,
    };
  }
  const position: unknown = parsed[3];
  // A located-first order's values start with the row's part: one of 2^n (n: the located dimensions).
  const parts = order.located?.length ? 2 ** order.located.length : 0;
  const part: unknown = parts ? parsed[4] : 0;
  const values = parsed.slice(parts ? 5 : 4);
  if (!Number.isSafeInteger(position) || (position as number) < 0) return garbled;
  if (!Number.isSafeInteger(part) || (part as number) < 0 || (part as number) >= Math.max(parts, 1))
    return garbled;
  if (values.length !== keys.length || !keys.every((k, i) => validValue(k, values[i]))) return garbled;
  return {
    direction: parsed[1] === "n" ? "next" : "prev",
    position: position as number,
    ...(parts ? { part: part as number } : {}),
    values,
  };
}
