import { describe, expect, it } from "vitest";
import { driverFor } from "../../db/client.js";
import { chainConfigs } from "../../lib/chains/registry.js";
import { ConfigError, loadConfig, requireDatabaseUrl } from "../../lib/config.js";
import { PUBLIC_CHAINS } from "../helpers/chains.js";

describe("configuration", () => {
  it("has sensible defaults", () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      dataDir: ".data",
      databaseUrl: undefined,
      rateLimitPerMinute: 100,
      devnetPort: 8545,
      onVercel: false,
    });
  });
  it.each([
    [{ PORT: "abc" }, /PORT: PORT must be a whole number/],
    [{ PORT: "70000" }, /PORT must be at most 65535/],
    [{ LOG_LEVEL: "loud" }, /LOG_LEVEL must be one of/],
    [{ DATABASE_DRIVER: "sqlite" }, /DATABASE_DRIVER must be pg or neon/],
    [{ PUBLIC_BASE_URL: "not a url" }, /PUBLIC_BASE_URL must be an absolute URL/],
    [{ RATE_LIMIT_PER_MINUTE: "-1" }, /RATE_LIMIT_PER_MINUTE/],
    [{ REDIS_URL: "http://x" }, /REDIS_URL must start with redis/],
    [{ UPSTASH_REDIS_REST_URL: "https://x.upstash.io" }, /must be set together/],
  ])("rejects %o with a message naming the variable", (env, message) => {
    expect(() => loadConfig(env as Record<string, string>)).toThrow(ConfigError);
    expect(() => loadConfig(env as Record<string, string>)).toThrow(message);
  });
  it("`vercel dev` (VERCEL=1, VERCEL_ENV=development) is local development, not production", () => {
    const config = loadConfig({ VERCEL: "1", VERCEL_ENV: "development" });
    expect(config.onVercel).toBe(false);
    expect(loadConfig({ VERCEL: "1", VERCEL_ENV: "preview", DATABASE_URL: "postgres://x/y" }).onVercel).toBe(
      true,
    );
  });
  // A DATABASE_URL problem does not stop the configuration (routes without a database keep working); whoever opens
  // the database gets a ConfigError naming it (data routes answer 503: tests/faults/misconfiguration.test.ts).
  it.each([
    [{ DATABASE_URL: "mysql://x" }, /DATABASE_URL must be a postgres/],
    [{ DATABASE_URL: "postgres://" }, /DATABASE_URL must be a postgres/],
    [{ DATABASE_URL: "postgres://a b@[x/y" }, /DATABASE_URL must be a postgres/],
    [{ VERCEL: "1" }, /DATABASE_URL is required on Vercel/],
  ])("refuses to open the database for %o, naming DATABASE_URL", (env, message) => {
    const config = loadConfig(env as Record<string, string>);
    expect(config.databaseUrl).toBeUndefined();
    expect(() => requireDatabaseUrl(config)).toThrow(message);
    try {
      requireDatabaseUrl(config);
    } catch (error) {
      expect((error as ConfigError).settings).toEqual(["DATABASE_URL"]);
      expect((error as Error).message).not.toContain("mysql://x");
    }
  });
  it.each([
    [
      { DATABASE_URL: "postgres://h/db", DATABASE_READ_URL: "postgres://r1/db, mysql://r2" },
      /DATABASE_READ_URL must be a postgres/,
    ],
    [{ DATABASE_READ_URL: "postgres://r1/db" }, /DATABASE_READ_URL needs DATABASE_URL/],
  ])("refuses the read replicas for %o, naming DATABASE_READ_URL, and keeps the primary", (env, message) => {
    const config = loadConfig(env as Record<string, string>);
    expect(config.databaseReadUrls).toEqual([]);
    expect(config.databaseReadProblem).toMatch(message);
    expect(config.databaseReadProblem).not.toContain("mysql://r2");
  });
  it("reads several replicas from DATABASE_READ_URL, in order", () => {
    const config = loadConfig({
      DATABASE_URL: "postgres://h/db",
      DATABASE_READ_URL: " postgres://r1/db ,postgres://r2/db,",
    });
    expect(config.databaseReadUrls).toEqual(["postgres://r1/db", "postgres://r2/db"]);
    expect(config.databaseReadProblem).toBeUndefined();
  });
  it("names the variables of an invalid environment", () => {
    try {
      loadConfig({ PORT: "abc", LOG_LEVEL: "loud" });
      expect.unreachable();
    } catch (error) {
      expect((error as ConfigError).settings).toEqual(["PORT", "LOG_LEVEL"]);
    }
  });
  it("reads the database budgets", () => {
    expect(loadConfig({}).database).toEqual({
      connectTimeoutMs: 3000,
      statementTimeoutMs: 4000,
      syncStatementTimeoutMs: 8000,
    });
    expect(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: "2500" }).database.statementTimeoutMs).toBe(2500);
    expect(() => loadConfig({ DATABASE_CONNECT_TIMEOUT_MS: "0" })).toThrow(/DATABASE_CONNECT_TIMEOUT_MS/);
  });
  it("strips a trailing slash from PUBLIC_BASE_URL", () => {
    expect(loadConfig({ PUBLIC_BASE_URL: "https://x.org/" }).publicBaseUrl).toBe("https://x.org");
  });
});

describe("chains", () => {
  it("selects chains with CHAINS and applies per-chain overrides", () => {
    const chains = chainConfigs(
      loadConfig({
        CHAINS: "sepolia, base",
        RPC_URL_SEPOLIA: "http://a.example, http://b.example",
        START_BLOCK_BASE: "123",
      }),
    );
    const byName = Object.fromEntries(chains.map((c) => [c.name, c]));
    expect(byName.sepolia).toMatchObject({
      enabled: true,
      rpcUrls: ["http://a.example", "http://b.example"],
    });
    expect(byName.base).toMatchObject({ enabled: true, startBlock: 123 });
    expect(byName.devnet!.enabled).toBe(false);
  });
  it("defaults to the two local devnets locally and the public chains on Vercel", () => {
    const local = chainConfigs(loadConfig({})).filter((c) => c.enabled);
    expect(local.map((c) => c.name)).toEqual(["devnet", "devnet2"]);
    // The second devnet listens one port above the first.
    expect(local.map((c) => c.rpcUrls[0])).toEqual(["http://127.0.0.1:8545", "http://127.0.0.1:8546"]);
    const vercel = chainConfigs(loadConfig({ VERCEL: "1", DATABASE_URL: "postgres://x/y" })).filter(
      (c) => c.enabled,
    );
    expect(vercel.map((c) => c.name)).toEqual(PUBLIC_CHAINS);
  });
  it("rejects unknown chains and bad numbers", () => {
    expect(() => chainConfigs(loadConfig({ CHAINS: "goerli" }))).toThrow(
      /unknown chain goerli; known: .*; or define it with CHAIN_ID_GOERLI, EAS_ADDRESS_GOERLI/,
    );
    expect(() => chainConfigs(loadConfig({ CHAINS: "Not A Chain!" }))).toThrow(/unknown chain not a chain!/);
    expect(() => chainConfigs(loadConfig({ START_BLOCK_CELO: "x" }))).toThrow(/START_BLOCK_CELO/);
    expect(() => chainConfigs(loadConfig({ SCHEMA_START_BLOCK_OPTIMISM: "-1" }))).toThrow(
      /SCHEMA_START_BLOCK_OPTIMISM/,
    );
  });
});

describe("database driver choice", () => {
  it("uses Neon's driver for Neon hosts and node-postgres otherwise", () => {
    expect(driverFor("postgres://u:p@ep-cool-1.eu-central-1.aws.neon.tech/db")).toBe("neon");
    expect(driverFor("postgres://postgres@127.0.0.1:5432/test")).toBe("pg");
    expect(driverFor("postgres://postgres@127.0.0.1:5432/test", "neon")).toBe("neon");
  });
});
