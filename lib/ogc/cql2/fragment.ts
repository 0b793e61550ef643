import { SQL, StringChunk } from "drizzle-orm";

/**
 * The compiler's SQL while it is being built: a template's text and its values, as drizzle's sql`` keeps them, but
 * rendered into drizzle's form only once, at the end (`toSql`), as one flat SQL of text chunks and bound values.
 * Drizzle renders a tree of nested sql`` objects level by level, copying every level's parameters into its parent's,
 * so a filter of hundreds of predicates cost more to render than to parse and compile; one flat list of chunks is
 * rendered in one pass. The meaning is drizzle's: a value that is a Fragment or a drizzle SQL is SQL spliced in,
 * any other value is a bound parameter (never text in the SQL).
 */
export class Fragment {
  constructor(
    readonly strings: readonly string[],
    readonly values: readonly unknown[],
  ) {}
}

/** A template of SQL text with bound values (drizzle's sql``). */
export const sql = (strings: TemplateStringsArray, ...values: unknown[]): Fragment =>
  new Fragment(strings, values);

/** Text spliced into the SQL as it is: only ever text of the compiler's own, never a client's. */
export const raw = (text: string): Fragment => new Fragment([text], []);

/** The parts with `separator` between them (drizzle's sql.join). */
export function join(parts: readonly unknown[], separator: string): Fragment {
  const strings = parts.length === 0 ? [""] : ["", ...Array<string>(parts.length - 1).fill(separator), ""];
  return new Fragment(strings, parts);
}

/** The fragment as one drizzle SQL: consecutive text merged into one chunk, the values in order between them. */
export function toSql(fragment: Fragment | SQL): SQL {
  const chunks: unknown[] = [];
  let text = "";
  let onlyParameters = true;
  const put = (chunk: unknown) => {
    chunks.push(new StringChunk(text), chunk);
    text = "";
    if (typeof chunk === "object" && chunk !== null) onlyParameters = false;
  };
  // instanceof, not drizzle's is(): a chunk it misses (another copy of drizzle's classes) is kept whole, which
  // drizzle renders the same; flattening only saves it the work. drizzle keeps `shouldInlineParams` private; a SQL whose parameters are to be inlined is kept whole, so they still are.
  const inlined = (s: SQL) => (s as unknown as { shouldInlineParams: boolean }).shouldInlineParams;
  const drizzle = (s: SQL): void => {
    for (const chunk of s.queryChunks) {
      if (chunk === undefined) continue;
      if (chunk instanceof StringChunk) text += chunk.value.join("");
      else if (chunk instanceof SQL && !inlined(chunk)) drizzle(chunk);
      else put(chunk);
    }
  };
  const value = (v: unknown): void => {
    if (v instanceof Fragment) walk(v);
    else if (v instanceof SQL && !inlined(v)) drizzle(v);
    else put(v);
  };
  const walk = (f: Fragment): void => {
    const { strings, values } = f;
    for (let i = 0; i < values.length; i++) {
      text += strings[i];
      value(values[i]);
    }
    text += strings[values.length];
  };
  value(fragment);
  chunks.push(new StringChunk(text));
  if (!onlyParameters) return new SQL(chunks as SQL["queryChunks"]);
  // Text and plain values only: SQL's constructor looks through its chunks for tables (usedTables), and there are
  // none to find, so the chunks are handed over as drizzle's own append() does.
  const out = new SQL([]);
  out.queryChunks.push(...(chunks as SQL["queryChunks"]));
  return out;
}
