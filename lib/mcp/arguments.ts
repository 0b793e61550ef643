import { ApiError, badParameter } from "../http/errors.js";

/** How an argument's JSON value becomes the native API's parameter text. */
export type ArgumentKind = "text" | "list" | "number" | "boolean";

/**
 * A tool's arguments as the native API's query parameters: a list (an array, or already comma-separated text) is
 * joined with commas, a number or a boolean written as text. The native validators then take or refuse each value
 * (lib/http/query.ts, parseEntries), so a tool argument means exactly what the same query parameter means. A name the
 * tool does not take, or a value of the wrong JSON type, is refused here, naming it.
 */
export function nativeParameters(
  args: Record<string, unknown> | undefined,
  kinds: Record<string, ArgumentKind>,
): Record<string, string> {
  const raw: Record<string, string> = {};
  const allowed = Object.keys(kinds);
  for (const [name, value] of Object.entries(args ?? {})) {
    const kind = kinds[name];
    if (!kind) {
      throw new ApiError(
        400,
        "UnknownParameter",
        `Unknown argument '${name}'. Allowed: ${allowed.length ? allowed.join(", ") : "none"}`,
        { parameter: name },
      );
    }
    if (value === undefined || value === null) continue;
    raw[name] = text(name, kind, value);
  }
  return raw;
}

function text(name: string, kind: ArgumentKind, value: unknown): string {
  const scalar = (v: unknown) => typeof v === "string" || (typeof v === "number" && Number.isFinite(v));
  switch (kind) {
    case "list":
      if (Array.isArray(value) && value.length > 0 && value.every(scalar)) return value.join(",");
      if (typeof value === "string") return value;
      throw badParameter(
        name,
        `${name} must be a non-empty array of strings (or one comma-separated string)`,
      );
    case "number":
      if (typeof value === "number" && Number.isFinite(value)) return String(value);
      if (typeof value === "string") return value;
      throw badParameter(name, `${name} must be a number`);
    case "boolean":
      if (typeof value === "boolean") return String(value);
      throw badParameter(name, `${name} must be true or false`);
    case "text":
      if (typeof value === "string") return value;
      throw badParameter(name, `${name} must be a string`);
  }
}
