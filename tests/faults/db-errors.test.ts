import { DrizzleQueryError } from "drizzle-orm/errors";
import { describe, expect, it } from "vitest";
import { DatabaseTimeoutError, databaseErrorOf, isDatabaseOutage } from "../../db/errors.js";
import { errorResponse } from "../../lib/http/respond.js";
import { errorFields } from "../../lib/log.js";

/** The one classification of database failures: an outage is a 503 with Retry-After, anything else stays a 500. */
const pgError = (code: string, message: string) =>
  Object.assign(new Error(message), { code, severity: "ERROR" });
const wrapped = (cause: unknown) =>
  new DrizzleQueryError("select secret from t where x = $1", ["p"], cause as Error);

describe("database errors", () => {
  it.each([
    ["statement timeout (57014)", pgError("57014", "canceling statement due to statement timeout")],
    ["connection failure (08006)", pgError("08006", "connection failure")],
    ["too many connections (53300)", pgError("53300", "sorry, too many clients already")],
    ["server shutting down (57P01)", pgError("57P01", "terminating connection due to administrator command")],
    ["refused", Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" })],
    ["pool wait", new Error("timeout exceeded when trying to connect")],
    ["lost connection", new Error("Connection terminated unexpectedly")],
    ["our deadline", new DatabaseTimeoutError("no answer")],
    [
      // What Neon's driver rejects with when its WebSocket cannot connect: the event, the socket's error inside.
      "a WebSocket ErrorEvent (Neon's endpoint refused)",
      {
        type: "error",
        message: "connect ECONNREFUSED 127.0.0.1:443",
        error: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:443"), { code: "ECONNREFUSED" }),
      },
    ],
  ])("%s is an outage, also wrapped by Drizzle", (_name, error) => {
    expect(isDatabaseOutage(error)).toBe(true);
    expect(isDatabaseOutage(wrapped(error))).toBe(true);
    const res = errorResponse(wrapped(error));
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
  });

  it.each([
    ["unique violation", pgError("23505", "duplicate key value violates unique constraint")],
    ["syntax error", pgError("42601", "syntax error at or near")],
    ["a bug", new TypeError("x is undefined")],
  ])("%s is not an outage (500)", async (_name, error) => {
    expect(isDatabaseOutage(wrapped(error))).toBe(false);
    const res = errorResponse(wrapped(error));
    expect(res.status).toBe(500);
    expect(await res.text()).not.toMatch(/secret|duplicate|syntax/);
  });

  it("logs the driver's code and message under Drizzle's wrapper", () => {
    const error = wrapped(pgError("57014", "canceling statement due to statement timeout"));
    expect(databaseErrorOf(error)).toEqual({
      code: "57014",
      message: "canceling statement due to statement timeout",
    });
    expect(errorFields(error)).toMatchObject({
      message: expect.stringContaining("Failed query"),
      cause: { code: "57014", severity: "ERROR", message: "canceling statement due to statement timeout" },
    });
  });
});
