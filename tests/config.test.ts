import { describe, expect, it } from "vitest";
import { driverFor } from "../db/client.js";
import { chainConfigs } from "../lib/chains/registry.js";
import { ConfigError, loadConfig } from "../lib/config.js";

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
    [{ DATABASE_URL: "mysql://x" }, /DATABASE_URL must start with postgres/],
    [{ DATABASE_DRIVER: "sqlite" }, /DATABASE_DRIVER must be pg or neon/],
    [{ PUBLIC_BASE_URL: "not a url" }, /PUBLIC_BASE_URL must be an absolute URL/],
    [{ RATE_LIMIT_PER_MINUTE: "-1" }, /RATE_LIMIT_PER_MINUTE/],
    [{ REDIS_URL: "http://x" }, /REDIS_URL must start with redis/],
    [{ UPSTASH_REDIS_REST_URL: "https://x.upstash.io" }, /must be set together/],
    [{ VERCEL: "1" }, /DATABASE_URL is required on Vercel/],
  ])("rejects %o with a message naming the variable", (env, message) => {
    expect(() => loadConfig(env as Record<string, string>)).toThrow(ConfigError);
    expect(() => loadConfig(env as Record<string, string>)).toThrow(message);
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
  it("defaults to devnet locally and the public chains on Vercel", () => {
    const local = chainConfigs(loadConfig({})).filter((c) => c.enabled);
    expect(local.map((c) => c.name)).toEqual(["devnet"]);
    const vercel = chainConfigs(loadConfig({ VERCEL: "1", DATABASE_URL: "postgres://x/y" })).filter(
      (c) => c.enabled,
    );
    expect(vercel.map((c) => c.name)).toEqual(["arbitrum", "base", "celo", "sepolia"]);
  });
  it("rejects unknown chains and bad numbers", () => {
    expect(() => chainConfigs(loadConfig({ CHAINS: "mainnet" }))).toThrow(/unknown chain\(s\) mainnet/);
    expect(() => chainConfigs(loadConfig({ START_BLOCK_CELO: "x" }))).toThrow(/START_BLOCK_CELO/);
  });
});

describe("database driver choice", () => {
  it("uses Neon's driver for Neon hosts and node-postgres otherwise", () => {
    expect(driverFor("postgres://u:p@ep-cool-1.eu-central-1.aws.neon.tech/db")).toBe("neon");
    expect(driverFor("postgres://postgres@127.0.0.1:5432/test")).toBe("pg");
    expect(driverFor("postgres://postgres@127.0.0.1:5432/test", "neon")).toBe("neon");
  });
});
