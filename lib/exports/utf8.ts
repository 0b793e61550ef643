/**
 * Texts as one UTF-8 buffer, each preceded by the byte `before` and followed by `after` when given: the buffer is
 * sized by each text's byte length and each text is written into it in place. Joining a batch into one string and
 * encoding that copies every text twice (V8 flattens the joined string before it can encode it) and makes a
 * string as large as the batch; a download pushes every byte of its rows through here.
 */
export function utf8Texts(texts: readonly string[], before?: number, after?: number): Uint8Array {
  const extra = (before === undefined ? 0 : 1) + (after === undefined ? 0 : 1);
  let total = 0;
  for (const text of texts) total += Buffer.byteLength(text, "utf8") + extra;
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (const text of texts) {
    if (before !== undefined) out[at++] = before;
    at += out.write(text, at, "utf8");
    if (after !== undefined) out[at++] = after;
  }
  return out;
}
