import type { Config } from "../config.js";
import { ConfigError } from "../config.js";
import { EAS_DEPLOYMENTS, type EasDeployment } from "./eas-deployments.js";
import { LOCATION_SCHEMA_UID } from "./schema.js";

/**
 * The chains the service knows, as plain data. Deliberately free of viem: read routes (e.g. /api/v0/config) import
 * this, and importing viem/chains would dominate their cold start (docs/architecture.md, "Cold start").
 */
export type ChainDefinition = {
  name: string;
  chainId: number;
  displayName: string;
  eas: `0x${string}`;
  schemaRegistry: `0x${string}`;
  /** the v0.1 location-proof schema, known by its UID (other location schemas are discovered: lib/sync/schemas.ts) */
  schemaUid: `0x${string}`;
  /** first block whose attestations are indexed (START_BLOCK_<CHAIN>) */
  startBlock: number;
  /**
   * first block whose SchemaRegistry `Registered` events are read (SCHEMA_START_BLOCK_<CHAIN>): the registry's own
   * deployment, so that a location schema registered before `startBlock` is still recognised.
   */
  schemaStartBlock: number;
  /** blocks behind the head that count as final enough to index */
  confirmations: number;
  /** public RPC endpoints used when RPC_URL_<CHAIN> is not set */
  publicRpcUrls: string[];
  /** the Multicall3 contract's address, null where none is deployed (reads then go as JSON-RPC batches) */
  multicall3: `0x${string}` | null;
  /** the package's deployment records this network's addresses come from (null: a devnet or a network from the
   *  environment) */
  deployment: string | null;
};

export const MULTICALL3_ADDRESS = "0xcA11bde05977b3631167028862bE2a173976CA11";

/**
 * zkSync Era's Multicall3: the canonical address is not reachable there (its deployer's nonce-based CREATE address
 * differs on an EraVM chain), so Multicall3 was deployed at its own address (Multicall3's README, "Deployments").
 */
export const ZKSYNC_MULTICALL3_ADDRESS = "0xF9cda624FBC7e059355ce98a31693d299FACd963";

const SCHEMA_UID = LOCATION_SCHEMA_UID as `0x${string}`;

/**
 * The networks the package deploys on and the service leaves out, with why. The package still ships their records;
 * tests/platform/networks.test.ts checks that every record is either a network below or here.
 */
export const RETIRED_DEPLOYMENTS: Record<string, string> = {
  "base-goerli": "Goerli testnets were shut down in 2024 (replaced by Sepolia)",
  "linea-goerli": "Goerli testnets were shut down in 2024 (replaced by Sepolia)",
  "optimism-goerli": "Goerli testnets were shut down in 2024 (replaced by Sepolia)",
};

/** What the package's deployment records do not say about a network: chosen here, per network. */
type NetworkFacts = {
  name: string;
  /** the directory of the network's records in the package (deployments/<deployment>) */
  deployment: keyof typeof EAS_DEPLOYMENTS;
  displayName: string;
  confirmations: number;
  publicRpcUrls: string[];
  /** first block of attestations, when an upstream names a later one than the registry's deployment */
  startBlock?: number;
  /** first block of Registered events, where the record has no receipt and genesis is not right */
  schemaStartBlock?: number;
  multicall3?: `0x${string}` | null;
  /** synced on Vercel when CHAINS is not set */
  byDefault?: boolean;
};

// Confirmations: how deep a reorg the chain has shown. Ethereum L1s: 12 (sepolia 6, as before). OP Stack and other
// rollups whose sequencer does not reorg its own blocks: 12. Arbitrum: 20 (fast blocks). Polygon PoS: 64 (deep reorgs
// before its 2025 finality upgrade). Telos: BFT finality, 6. zkSync Era: 12.
// Start blocks: the Astral SDK's config/EAS-config.json ("deploymentBlock" of the v0.1 schema) where it names one;
// elsewhere the SchemaRegistry's deployment block from the records, or genesis for predeploys.
const NETWORKS: readonly NetworkFacts[] = [
  {
    name: "mainnet",
    deployment: "mainnet",
    displayName: "Ethereum",
    confirmations: 12,
    publicRpcUrls: ["https://ethereum-rpc.publicnode.com"],
    byDefault: true,
  },
  {
    name: "arbitrum",
    deployment: "arbitrum-one",
    displayName: "Arbitrum One",
    confirmations: 20,
    publicRpcUrls: ["https://arb1.arbitrum.io/rpc"],
    startBlock: 243446573,
    byDefault: true,
  },
  {
    name: "arbitrum-nova",
    deployment: "arbitrum-nova",
    displayName: "Arbitrum Nova",
    confirmations: 20,
    publicRpcUrls: ["https://nova.arbitrum.io/rpc"],
  },
  {
    name: "arbitrum-sepolia",
    deployment: "arbitrum-sepolia",
    displayName: "Arbitrum Sepolia",
    confirmations: 20,
    publicRpcUrls: ["https://sepolia-rollup.arbitrum.io/rpc"],
  },
  {
    name: "base",
    deployment: "base",
    displayName: "Base",
    confirmations: 12,
    publicRpcUrls: ["https://mainnet.base.org"],
    startBlock: 25903221,
    byDefault: true,
  },
  {
    // No upstream names a first location-proof block here: indexing starts at genesis, where the predeploys
    // already exist (set START_BLOCK_BASE_SEPOLIA to skip history).
    name: "base-sepolia",
    deployment: "base-sepolia",
    displayName: "Base Sepolia",
    confirmations: 6,
    publicRpcUrls: ["https://sepolia.base.org"],
    byDefault: true,
  },
  {
    name: "celo",
    deployment: "celo",
    displayName: "Celo",
    confirmations: 12,
    publicRpcUrls: ["https://forno.celo.org"],
    startBlock: 26901063,
    byDefault: true,
  },
  {
    name: "ink",
    deployment: "ink",
    displayName: "Ink",
    confirmations: 12,
    publicRpcUrls: ["https://rpc-gel.inkonchain.com"],
  },
  {
    name: "linea",
    deployment: "linea",
    displayName: "Linea",
    confirmations: 12,
    publicRpcUrls: ["https://rpc.linea.build"],
  },
  {
    // The SchemaRegistry is an OP Stack predeploy introduced with Bedrock: no Registered event precedes OP Mainnet's
    // Bedrock block.
    name: "optimism",
    deployment: "optimism",
    displayName: "OP Mainnet",
    confirmations: 12,
    publicRpcUrls: ["https://mainnet.optimism.io"],
    startBlock: 142210865,
    schemaStartBlock: 105235063,
    byDefault: true,
  },
  {
    name: "optimism-sepolia",
    deployment: "optimism-sepolia",
    displayName: "OP Sepolia",
    confirmations: 12,
    publicRpcUrls: ["https://sepolia.optimism.io"],
  },
  {
    name: "polygon",
    deployment: "polygon",
    displayName: "Polygon PoS",
    confirmations: 64,
    publicRpcUrls: ["https://polygon-rpc.com"],
  },
  {
    name: "polygon-amoy",
    deployment: "polygon-amoy",
    displayName: "Polygon Amoy",
    confirmations: 64,
    publicRpcUrls: ["https://rpc-amoy.polygon.technology"],
  },
  {
    name: "scroll",
    deployment: "scroll",
    displayName: "Scroll",
    confirmations: 12,
    publicRpcUrls: ["https://rpc.scroll.io"],
  },
  {
    name: "scroll-sepolia",
    deployment: "scroll-sepolia",
    displayName: "Scroll Sepolia",
    confirmations: 12,
    publicRpcUrls: ["https://sepolia-rpc.scroll.io"],
  },
  {
    name: "sepolia",
    deployment: "sepolia",
    displayName: "Sepolia",
    confirmations: 6,
    publicRpcUrls: ["https://ethereum-sepolia-rpc.publicnode.com", "https://rpc.sepolia.org"],
    startBlock: 6269763,
    byDefault: true,
  },
  {
    name: "soneium",
    deployment: "soneium",
    displayName: "Soneium",
    confirmations: 12,
    publicRpcUrls: ["https://rpc.soneium.org"],
  },
  {
    name: "telos",
    deployment: "telos",
    displayName: "Telos EVM",
    confirmations: 6,
    publicRpcUrls: ["https://rpc.telos.net"],
  },
  {
    name: "unichain",
    deployment: "unichain",
    displayName: "Unichain",
    confirmations: 12,
    publicRpcUrls: ["https://mainnet.unichain.org"],
  },
  {
    // zkSync Era (EraVM): Multicall3 at its own address; eth_getLogs, eth_call at a block number and the
    // latest/number tags behave as elsewhere (the engine uses no safe/finalized tag). Its records carry no receipt,
    // so discovery starts at genesis (set SCHEMA_START_BLOCK_ZKSYNC / START_BLOCK_ZKSYNC to skip history).
    name: "zksync",
    deployment: "zksync",
    displayName: "zkSync Era",
    confirmations: 12,
    publicRpcUrls: ["https://mainnet.era.zksync.io"],
    multicall3: ZKSYNC_MULTICALL3_ADDRESS,
  },
];

const fromRecords = (n: NetworkFacts): ChainDefinition => {
  const record: EasDeployment = EAS_DEPLOYMENTS[n.deployment];
  const registryBlock = n.schemaStartBlock ?? record.registryBlock ?? 0;
  return {
    name: n.name,
    chainId: record.chainId,
    displayName: n.displayName,
    eas: record.eas,
    schemaRegistry: record.schemaRegistry,
    schemaUid: SCHEMA_UID,
    startBlock: n.startBlock ?? registryBlock,
    schemaStartBlock: registryBlock,
    confirmations: n.confirmations,
    publicRpcUrls: n.publicRpcUrls,
    multicall3: n.multicall3 === undefined ? MULTICALL3_ADDRESS : n.multicall3,
    deployment: n.deployment,
  };
};

// Local anvil started by `npm run dev` and the tests. Its contract addresses are deterministic because the dev
// deployer deploys them from anvil's first account at nonces 0 and 1 on a fresh chain.
const DEVNET: ChainDefinition = {
  name: "devnet",
  chainId: 31337,
  displayName: "Local devnet (anvil)",
  eas: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512",
  schemaRegistry: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  schemaUid: SCHEMA_UID,
  startBlock: 0,
  schemaStartBlock: 0,
  confirmations: 2,
  publicRpcUrls: [],
  multicall3: MULTICALL3_ADDRESS,
  deployment: null,
};

export const CHAIN_DEFINITIONS: readonly ChainDefinition[] = [
  ...NETWORKS.map(fromRecords),
  DEVNET,
  // A second local anvil (its own chain id, same deterministic addresses), so that `npm run dev` and the tests
  // sync several chains at once.
  { ...DEVNET, name: "devnet2", chainId: 31338, displayName: "Local devnet 2 (anvil)" },
];

export const CHAIN_NAMES = CHAIN_DEFINITIONS.map((c) => c.name);

/** The local anvils (lib/devnet), by name: their chain ids, and the RPC port of each relative to DEVNET_PORT. */
export const DEVNET_CHAINS = [
  { name: "devnet", portOffset: 0 },
  { name: "devnet2", portOffset: 1 },
].map((d) => ({ ...d, chainId: CHAIN_DEFINITIONS.find((c) => c.name === d.name)!.chainId }));

/** The first local anvil's chain id (what lib/devnet starts it with unless told otherwise). */
export const DEVNET_CHAIN_ID = DEVNET_CHAINS[0]!.chainId;

/**
 * What Vercel syncs when CHAINS is not set: the networks where location proofs are attested today (the Astral SDK
 * writes on arbitrum, base, celo, sepolia, optimism and base-sepolia; Astral's compute service resolves on mainnet).
 * The others sync when CHAINS names them (or CHAINS=all): docs/location-protocol.md, "Chains".
 */
export const PUBLIC_CHAIN_NAMES = NETWORKS.filter((n) => n.byDefault).map((n) => n.name);

/** Every public network (CHAINS=all). */
export const ALL_PUBLIC_CHAIN_NAMES = NETWORKS.map((n) => n.name);

/** A chain as configured: its definition with environment overrides applied. */
export type ChainConfig = ChainDefinition & { rpcUrls: string[]; enabled: boolean };

const envKey = (name: string) => name.toUpperCase().replace(/[^A-Z0-9]/g, "_");

/**
 * Applies RPC_URL_<CHAIN> (comma-separated for a fallback list), START_BLOCK_<CHAIN>, SCHEMA_START_BLOCK_<CHAIN>,
 * CONFIRMATIONS_<CHAIN> and CHAINS (which chains are synced; default: the two local devnets locally, the default
 * public networks on Vercel; `all` names every public network). A name in CHAINS the registry does not know is a
 * network defined by the environment alone (environmentChain): adding an EVM chain with EAS takes no code.
 * The result lists the registry's chains, then the environment's, in that order.
 */
export function chainConfigs(config: Config): ChainConfig[] {
  const selected = (
    config.chains ?? (config.onVercel ? PUBLIC_CHAIN_NAMES : DEVNET_CHAINS.map((d) => d.name))
  ).flatMap((name) => (name === "all" ? ALL_PUBLIC_CHAIN_NAMES : [name]));
  const extra = [...new Set(selected.filter((name) => !CHAIN_NAMES.includes(name)))];
  const definitions = [...CHAIN_DEFINITIONS, ...extra.map((name) => environmentChain(config.env, name))];
  return definitions.map((def) => {
    const key = envKey(def.name);
    const rpc = config.env[`RPC_URL_${key}`]?.trim();
    const devnet = DEVNET_CHAINS.find((d) => d.name === def.name);
    const rpcUrls = rpc
      ? rpc
          .split(",")
          .map((u) => u.trim())
          .filter(Boolean)
      : devnet
        ? [`http://127.0.0.1:${config.devnetPort + devnet.portOffset}`]
        : def.publicRpcUrls;
    return {
      ...def,
      rpcUrls,
      startBlock: intOverride(config.env, `START_BLOCK_${key}`, def.startBlock),
      schemaStartBlock: intOverride(config.env, `SCHEMA_START_BLOCK_${key}`, def.schemaStartBlock),
      confirmations: intOverride(config.env, `CONFIRMATIONS_${key}`, def.confirmations),
      enabled: selected.includes(def.name),
    };
  });
}

/** The names of the chains chainConfigs lists (the registry's and the environment's), without validating them. */
export function knownChainNames(env: Record<string, string | undefined>): string[] {
  const named = (env.CHAINS ?? "")
    .split(",")
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== "all" && !CHAIN_NAMES.includes(c) && /^[a-z0-9][a-z0-9-]{0,39}$/.test(c));
  return [...CHAIN_NAMES, ...new Set(named)];
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * A network the registry does not know, named in CHAINS and defined by CHAIN_ID_<CHAIN>, EAS_ADDRESS_<CHAIN>,
 * SCHEMA_REGISTRY_ADDRESS_<CHAIN> and RPC_URL_<CHAIN> (required), DISPLAY_NAME_<CHAIN> and MULTICALL3_<CHAIN> (an
 * address, or `none`; default the canonical address). Start blocks and confirmations take the usual overrides
 * (default 0 and 12).
 */
function environmentChain(env: Record<string, string | undefined>, name: string): ChainDefinition {
  const key = envKey(name);
  const required = [
    `CHAIN_ID_${key}`,
    `EAS_ADDRESS_${key}`,
    `SCHEMA_REGISTRY_ADDRESS_${key}`,
    `RPC_URL_${key}`,
  ];
  const missing = required.filter((k) => !env[k]?.trim());
  if (!/^[a-z0-9][a-z0-9-]{0,39}$/.test(name) || missing.length) {
    throw new ConfigError(
      `CHAINS: unknown chain ${name}; known: ${CHAIN_NAMES.join(", ")}, all` +
        (/^[a-z0-9][a-z0-9-]{0,39}$/.test(name) ? `; or define it with ${missing.join(", ")}` : ""),
      ["CHAINS", ...missing],
    );
  }
  const address = (k: string) => {
    const raw = env[k]!.trim();
    if (!ADDRESS.test(raw)) throw new ConfigError(`${k} must be an address (0x + 40 hex digits)`, [k]);
    return raw as `0x${string}`;
  };
  const multicall = env[`MULTICALL3_${key}`]?.trim();
  const chainId = intOverride(env, `CHAIN_ID_${key}`, 0);
  if (chainId < 1)
    throw new ConfigError(`CHAIN_ID_${key} must be a positive whole number`, [`CHAIN_ID_${key}`]);
  return {
    name,
    chainId,
    displayName: env[`DISPLAY_NAME_${key}`]?.trim() || name,
    eas: address(`EAS_ADDRESS_${key}`),
    schemaRegistry: address(`SCHEMA_REGISTRY_ADDRESS_${key}`),
    schemaUid: SCHEMA_UID,
    startBlock: 0,
    schemaStartBlock: 0,
    confirmations: 12,
    publicRpcUrls: [],
    multicall3: !multicall ? MULTICALL3_ADDRESS : multicall === "none" ? null : address(`MULTICALL3_${key}`),
    deployment: null,
  };
}

/**
 * The networks this deployment syncs, by name and display name, for what people read (pages, lists): from the
 * registry and the environment, never a list typed elsewhere. Empty when the configuration is broken (the routes
 * that need it say so themselves).
 */
export function syncedNetworks(config: Config): { name: string; displayName: string }[] {
  try {
    return chainConfigs(config)
      .filter((c) => c.enabled)
      .map((c) => ({ name: c.name, displayName: c.displayName }));
  } catch {
    return [];
  }
}

function intOverride(env: Record<string, string | undefined>, key: string, fallback: number): number {
  const raw = env[key]?.trim();
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${key} must be a whole number`, [key]);
  return Number(raw);
}
