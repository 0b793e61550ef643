import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { setDatabase } from "../../db/client.js";
import { loadConfig, setConfig } from "../../lib/config.js";
import { createRouter, type Router } from "../../lib/local/router.js";
import { ROOT } from "../helpers/app.js";
import { recordingRouter } from "../helpers/contract.js";

/**
 * On Vercel without DATABASE_URL, or with a malformed one, the service answers a clear 503 naming the setting (not
 * a 500 per request): data routes with the standard JSON error, /health with its check, and the log says it once per
 * instance. Routes that need no database keep answering. No database is opened here: that is the point.
 */
let router: Router;
const writes: string[] = [];

beforeAll(() => {
  router = recordingRouter(createRouter(ROOT));
  vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    writes.push(String(chunk));
    return true;
  });
});
afterEach(() => {
  setConfig(undefined);
  setDatabase(undefined);
});
afterAll(() => {
  vi.restoreAllMocks();
});

const get = async (path: string) => {
  const res = await router.handle(new Request(`http://localhost${path}`));
  return { status: res.status, headers: res.headers, body: await res.json() };
};

// First in the file: the process has logged nothing yet.
it("logs a misconfiguration once per instance, not once per request", async () => {
  setConfig(
    loadConfig({ LOG_LEVEL: "error", RATE_LIMIT_PER_MINUTE: "0", VERCEL: "1", DATABASE_URL: "x://y" }),
  );
  writes.length = 0;
  for (let i = 0; i < 5; i++) expect((await get("/api/v0/location-proofs")).status).toBe(503);
  expect((await get("/health")).status).toBe(503);
  expect(writes.filter((w) => w.includes("service misconfigured"))).toHaveLength(1);
});

describe.each([
  ["missing on Vercel", { VERCEL: "1" }, /DATABASE_URL is required on Vercel/],
  [
    "malformed",
    { VERCEL: "1", DATABASE_URL: "mysql://user:secret@db.example/x" },
    /DATABASE_URL must be a postgres/,
  ],
  ["malformed (locally)", { DATABASE_URL: "postgres://" }, /DATABASE_URL must be a postgres/],
])("DATABASE_URL %s", (_name, env, message) => {
  it("data routes answer 503 naming DATABASE_URL; /health names it; the log says it once", async () => {
    setConfig(loadConfig({ LOG_LEVEL: "error", RATE_LIMIT_PER_MINUTE: "0", ...env }));
    setDatabase(undefined);
    writes.length = 0;
    for (const path of [
      "/api/v0/location-proofs",
      "/api/v0/location-proofs/stats",
      "/api/ogc/collections/location-proofs/items",
      "/api/v0/location-proofs",
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(503);
      expect(res.headers.get("content-type")).toMatch(/application\/json/);
      expect(res.body).toMatchObject({ code: "ServiceUnavailable", details: { settings: ["DATABASE_URL"] } });
      expect(res.body.message).toMatch(message);
      // Never the value: it may hold a password.
      expect(JSON.stringify(res.body)).not.toMatch(/secret|db\.example/);
    }
    const health = await get("/health");
    expect(health.status).toBe(503);
    expect(health.body.message).toMatch(message);
    expect(health.body.details.checks.database).toEqual({
      status: "error",
      reason: "not_configured",
      settings: ["DATABASE_URL"],
    });
    // What needs no database still answers.
    expect((await get("/api/v0/config")).status).toBe(200);
    // Once per instance: at most once here (the malformed message may have been logged by an earlier test).
    expect(writes.filter((w) => w.includes("service misconfigured")).length).toBeLessThanOrEqual(1);
    expect(writes.join("")).not.toMatch(/secret/);
  });
});

it("an invalid setting elsewhere is a 503 naming it, not a 500", async () => {
  // getConfig() parses the environment on first use; an invalid value fails every request that needs it.
  setConfig(undefined);
  vi.stubEnv("RATE_LIMIT_PER_MINUTE", "lots");
  try {
    const res = await get("/api/v0/location-proofs");
    expect(res.status).toBe(503);
    expect(res.body.details.settings).toEqual(["RATE_LIMIT_PER_MINUTE"]);
  } finally {
    vi.unstubAllEnvs();
  }
});
