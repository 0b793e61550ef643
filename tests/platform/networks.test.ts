import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readDeploymentRecords } from "../../lib/chains/deployment-records.js";
import { EAS_DEPLOYMENTS, EAS_PACKAGE_VERSION } from "../../lib/chains/eas-deployments.js";
import {
  CHAIN_DEFINITIONS,
  chainConfigs,
  MULTICALL3_ADDRESS,
  PUBLIC_CHAIN_NAMES,
  RETIRED_DEPLOYMENTS,
  ZKSYNC_MULTICALL3_ADDRESS,
} from "../../lib/chains/registry.js";
import { loadConfig } from "../../lib/config.js";
import { ROOT } from "../helpers/app.js";
import { ALL_NETWORKS, PUBLIC_CHAINS } from "../helpers/chains.js";

/**
 * The network table against the deployment records of @ethereum-attestation-service/eas-contracts, read from the
 * installed package's files: an upgrade that moves an address, adds a network or drops one fails here.
 */
const records = readDeploymentRecords(ROOT);
const publicNetworks = CHAIN_DEFINITIONS.filter((c) => c.deployment !== null);

describe("the network table and the package's deployment records", () => {
  it("the generated table is the package's records (npm run generate:networks after an upgrade)", () => {
    expect(EAS_PACKAGE_VERSION).toBe(records[0]!.packageVersion);
    expect(EAS_DEPLOYMENTS).toEqual(
      Object.fromEntries(records.map(({ network, packageVersion: _v, ...rest }) => [network, rest])),
    );
  });

  it("every listed network has the records' chain id, EAS and SchemaRegistry, and starts discovery at the registry", () => {
    expect(publicNetworks.map((c) => c.name)).toEqual(ALL_NETWORKS);
    for (const chain of publicNetworks) {
      const record = records.find((r) => r.network === chain.deployment);
      expect(record, chain.name).toBeDefined();
      expect({ chainId: chain.chainId, eas: chain.eas, registry: chain.schemaRegistry }, chain.name).toEqual({
        chainId: record!.chainId,
        eas: record!.eas,
        registry: record!.schemaRegistry,
      });
      if (record!.registryBlock !== null)
        expect(chain.schemaStartBlock, chain.name).toBe(record!.registryBlock);
      // Attestations never start before discovery: a schema is known before its first attestation is read.
      expect(chain.startBlock, chain.name).toBeGreaterThanOrEqual(chain.schemaStartBlock);
      expect(chain.publicRpcUrls.length, chain.name).toBeGreaterThan(0);
      for (const url of chain.publicRpcUrls) expect(url, chain.name).toMatch(/^https:\/\//);
      expect(chain.confirmations, chain.name).toBeGreaterThan(0);
    }
  });

  it("every live record is a network; the retired Goerli networks are the ones left out", () => {
    const listed = new Set(publicNetworks.map((c) => c.deployment));
    const left = records.filter((r) => !listed.has(r.network)).map((r) => r.network);
    expect(left).toEqual(Object.keys(RETIRED_DEPLOYMENTS).sort());
    expect(left).toEqual(["base-goerli", "linea-goerli", "optimism-goerli"]);
    expect(publicNetworks).toHaveLength(20);
    // Chain ids are unique: the store keys proofs by (chain id, uid).
    expect(new Set(CHAIN_DEFINITIONS.map((c) => c.chainId)).size).toBe(CHAIN_DEFINITIONS.length);
  });

  it("Multicall3: the canonical address everywhere but zkSync Era, which has its own", () => {
    for (const chain of publicNetworks) {
      expect(chain.multicall3, chain.name).toBe(
        chain.name === "zksync" ? ZKSYNC_MULTICALL3_ADDRESS : MULTICALL3_ADDRESS,
      );
    }
  });

  it("Vercel syncs the default networks unless CHAINS says otherwise; CHAINS=all names every public network", () => {
    expect(PUBLIC_CHAIN_NAMES).toEqual(PUBLIC_CHAINS);
    const all = chainConfigs(loadConfig({ CHAINS: "all" })).filter((c) => c.enabled);
    expect(all.map((c) => c.name)).toEqual(ALL_NETWORKS);
    const some = chainConfigs(loadConfig({ CHAINS: "zksync,telos" })).filter((c) => c.enabled);
    expect(some.map((c) => c.name)).toEqual(["telos", "zksync"]);
  });
});

describe("a network defined by the environment alone", () => {
  const env = {
    CHAINS: "devnet,my-l3",
    CHAIN_ID_MY_L3: "777777",
    EAS_ADDRESS_MY_L3: "0x1111111111111111111111111111111111111111",
    SCHEMA_REGISTRY_ADDRESS_MY_L3: "0x2222222222222222222222222222222222222222",
    RPC_URL_MY_L3: "https://rpc.my-l3.example",
    START_BLOCK_MY_L3: "100",
  };

  it("is configured from its variables and listed after the registry's networks", () => {
    const chains = chainConfigs(loadConfig(env));
    const mine = chains.at(-1)!;
    expect(mine).toMatchObject({
      name: "my-l3",
      displayName: "my-l3",
      chainId: 777777,
      eas: env.EAS_ADDRESS_MY_L3,
      schemaRegistry: env.SCHEMA_REGISTRY_ADDRESS_MY_L3,
      rpcUrls: ["https://rpc.my-l3.example"],
      startBlock: 100,
      schemaStartBlock: 0,
      multicall3: MULTICALL3_ADDRESS,
      enabled: true,
      deployment: null,
    });
    expect(chains.filter((c) => c.enabled).map((c) => c.name)).toEqual(["devnet", "my-l3"]);
    const none = chainConfigs(loadConfig({ ...env, MULTICALL3_MY_L3: "none" })).at(-1)!;
    expect(none.multicall3).toBeNull();
  });

  it("names each missing or bad variable", () => {
    const { RPC_URL_MY_L3: _r, ...withoutRpc } = env;
    expect(() => chainConfigs(loadConfig(withoutRpc))).toThrow(/define it with RPC_URL_MY_L3$/);
    expect(() => chainConfigs(loadConfig({ ...env, EAS_ADDRESS_MY_L3: "0x12" }))).toThrow(
      /EAS_ADDRESS_MY_L3 must be an address/,
    );
    expect(() => chainConfigs(loadConfig({ ...env, CHAIN_ID_MY_L3: "0" }))).toThrow(/CHAIN_ID_MY_L3/);
    expect(() => chainConfigs(loadConfig({ ...env, MULTICALL3_MY_L3: "yes" }))).toThrow(/MULTICALL3_MY_L3/);
  });
});

describe("docs/location-protocol.md", () => {
  it("its chains table is the registry's", () => {
    const text = readFileSync(join(ROOT, "docs/location-protocol.md"), "utf8");
    const rows = [
      ...text.matchAll(
        /^\| `([a-z0-9-]+)` \| (\d+) \| `(0x[0-9a-fA-F]{40})` \| `(0x[0-9a-fA-F]{40})` \| (\d+) \| (\d+) \| (\d+) \| ([^|]+) \| ([^|]+) \|/gm,
      ),
    ];
    expect(
      rows.map(([, name, id, eas, registry, start, discovery, confirmations, multicall, byDefault]) => ({
        name,
        id: Number(id),
        eas,
        registry,
        start: Number(start),
        discovery: Number(discovery),
        confirmations: Number(confirmations),
        multicall: multicall!.trim(),
        byDefault: byDefault!.trim(),
      })),
    ).toEqual(
      CHAIN_DEFINITIONS.map((c) => ({
        name: c.name,
        id: c.chainId,
        eas: c.eas,
        registry: c.schemaRegistry,
        start: c.startBlock,
        discovery: c.schemaStartBlock,
        confirmations: c.confirmations,
        multicall: c.multicall3 === MULTICALL3_ADDRESS ? "canonical" : `\`${c.multicall3}\``,
        byDefault:
          c.deployment === null
            ? "local only"
            : PUBLIC_CHAIN_NAMES.includes(c.name)
              ? "yes"
              : "when `CHAINS` names it",
      })),
    );
  });
});
