import { CqlError } from "./where.js";

/** Tokens of CQL2 text. Keywords are case-insensitive; identifiers keep their case. */
export type Token =
  | { type: "ident"; value: string; quoted: boolean; at: number }
  | { type: "string"; value: string; at: number }
  | { type: "number"; value: number; at: number }
  | { type: "op"; value: "=" | "<>" | "<" | "<=" | ">" | ">="; at: number }
  | { type: "arith"; value: "+" | "-" | "*" | "/" | "%" | "^"; at: number }
  | { type: "punct"; value: "(" | ")" | ","; at: number }
  | { type: "end"; at: number };

export class CqlSyntaxError extends CqlError {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message, `character ${at + 1}`);
  }
}

/** Words after which a value starts (so `BETWEEN -1` reads a negative number). */
const OPERATOR_WORDS = new Set(["and", "or", "not", "between", "in", "like", "is", "div"]);

// Sticky: each is tried at `lastIndex`, so the text is never copied from a token onwards.
const NUMBER = /[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const IDENT = /[A-Za-z_][A-Za-z0-9_.:]*/y;
const SPACE = /\s/y;

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    SPACE.lastIndex = i;
    if (SPACE.test(text)) {
      i++;
      continue;
    }
    if (c === "'") {
      // A string literal; a quote inside is written twice ('O''Brien').
      let value = "";
      let j = i + 1;
      for (;;) {
        if (j >= text.length) throw new CqlSyntaxError("unterminated string literal", i);
        if (text[j] === "'") {
          if (text[j + 1] === "'") {
            value += "'";
            j += 2;
            continue;
          }
          break;
        }
        value += text[j];
        j++;
      }
      // PostgreSQL text cannot hold U+0000; the native parameters reject it too.
      if (value.includes("\u0000"))
        throw new CqlSyntaxError("a string literal must not contain U+0000 (NUL)", i);
      tokens.push({ type: "string", value, at: i });
      i = j + 1;
      continue;
    }
    if (c === '"') {
      const end = text.indexOf('"', i + 1);
      if (end < 0) throw new CqlSyntaxError("unterminated quoted identifier", i);
      if (text.slice(i, end).includes("\u0000"))
        throw new CqlSyntaxError("an identifier must not contain U+0000 (NUL)", i);
      tokens.push({ type: "ident", value: text.slice(i + 1, end), quoted: true, at: i });
      i = end + 1;
      continue;
    }
    if (c === "(" || c === ")" || c === ",") {
      tokens.push({ type: "punct", value: c, at: i });
      i++;
      continue;
    }
    const two = text.slice(i, i + 2);
    if (two === "<>" || two === "<=" || two === ">=") {
      tokens.push({ type: "op", value: two, at: i });
      i += 2;
      continue;
    }
    if (c === "=" || c === "<" || c === ">") {
      tokens.push({ type: "op", value: c, at: i });
      i++;
      continue;
    }
    // A sign belongs to a number where no operand precedes it (`-1`, `x > -1`); after one it is arithmetic (`x -1`).
    const previous = tokens.at(-1);
    const afterOperand =
      previous !== undefined &&
      ((previous.type === "ident" &&
        (previous.quoted || !OPERATOR_WORDS.has(previous.value.toLowerCase()))) ||
        previous.type === "number" ||
        previous.type === "string" ||
        (previous.type === "punct" && previous.value === ")"));
    NUMBER.lastIndex = i;
    const number = afterOperand && (c === "+" || c === "-") ? null : NUMBER.exec(text);
    if (number) {
      const value = Number(number[0]);
      if (!Number.isFinite(value)) throw new CqlSyntaxError(`number out of range: ${number[0]}`, i);
      tokens.push({ type: "number", value, at: i });
      i += number[0].length;
      continue;
    }
    if (c === "+" || c === "-" || c === "*" || c === "/" || c === "%" || c === "^") {
      tokens.push({ type: "arith", value: c, at: i });
      i++;
      continue;
    }
    IDENT.lastIndex = i;
    const ident = IDENT.exec(text);
    if (ident) {
      tokens.push({ type: "ident", value: ident[0], quoted: false, at: i });
      i += ident[0].length;
      continue;
    }
    throw new CqlSyntaxError(`unexpected character '${c}'`, i);
  }
  tokens.push({ type: "end", at: text.length });
  return tokens;
}
