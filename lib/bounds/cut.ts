import * as bound from "./limits.js";

/**
 * A record's values as a list carries them (the bounds of limits.ts, which lists apply in SQL: bounded-sql.ts), for
 * a representation of one record that is read by people rather than programs: the item's HTML page. Its JSON keeps
 * every value whole; a page of several megabytes of one value would only cost the server's memory and the browser's.
 * Returns the values and the names of those it cut.
 */
export function cutToListBounds(values: Record<string, unknown>): {
  values: Record<string, unknown>;
  cut: string[];
} {
  const out: Record<string, unknown> = { ...values };
  const cut: string[] = [];
  for (const name of bound.TEXT_FIELDS) {
    const v = out[name];
    if (typeof v !== "string" || v.length <= bound.TEXT_CHARS) continue;
    // Characters as the database counts them (code points, as `left` does), never half of a surrogate pair.
    const head = Array.from(v.slice(0, 2 * bound.TEXT_CHARS + 2));
    if (head.length > bound.TEXT_CHARS) {
      out[name] = head.slice(0, bound.TEXT_CHARS).join("");
      cut.push(name);
    }
  }
  for (const [names, bytes] of [
    [bound.JSON_FIELDS, bound.JSON_BYTES],
    [bound.GEOMETRY_FIELDS, bound.GEOMETRY_BYTES],
  ] as const) {
    for (const name of names) {
      const v = out[name];
      if (v !== null && typeof v === "object" && jsonBytesOver(v, bytes)) {
        out[name] = null;
        cut.push(name);
      }
    }
  }
  return { values: out, cut };
}

/** Whether a value's JSON text passes `bytes` (UTF-8), without building more than the text itself. */
const jsonBytesOver = (v: object, bytes: number): boolean => {
  const text = JSON.stringify(v);
  return text.length > bytes || Buffer.byteLength(text, "utf8") > bytes;
};
