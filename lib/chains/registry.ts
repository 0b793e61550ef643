import type { Config } from "../config.js";
import { ConfigError } from "../config.js";
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
  /** whether a Multicall3 contract is known to exist at the canonical address */
  multicall3: boolean;
};

export const MULTICALL3_ADDRESS = "0xcA11bde05977b3631167028862bE2a173976CA11";

const SCHEMA_UID = LOCATION_SCHEMA_UID as `0x${string}`;

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
  multicall3: true,
};

export const CHAIN_DEFINITIONS: readonly ChainDefinition[] = [
  {
    name: "arbitrum",
    chainId: 42161,
    displayName: "Arbitrum One",
    eas: "0xbD75f629A22Dc1ceD33dDA0b68c546A1c035c458",
    schemaRegistry: "0xA310da9c5B885E7fb3fbA9D66E9Ba6Df512b78eB",
    schemaUid: SCHEMA_UID,
    startBlock: 243446573,
    schemaStartBlock: 64528375,
    confirmations: 20,
    publicRpcUrls: ["https://arb1.arbitrum.io/rpc"],
    multicall3: true,
  },
  {
    name: "base",
    chainId: 8453,
    displayName: "Base",
    eas: "0x4200000000000000000000000000000000000021",
    schemaRegistry: "0x4200000000000000000000000000000000000020",
    schemaUid: SCHEMA_UID,
    startBlock: 25903221,
    schemaStartBlock: 0,
    confirmations: 12,
    publicRpcUrls: ["https://mainnet.base.org"],
    multicall3: true,
  },
  {
    name: "celo",
    chainId: 42220,
    displayName: "Celo",
    eas: "0x72E1d8ccf5299fb36fEfD8CC4394B8ef7e98Af92",
    schemaRegistry: "0x5ece93bE4BDCF293Ed61FA78698B594F2135AF34",
    schemaUid: SCHEMA_UID,
    startBlock: 26901063,
    schemaStartBlock: 24646038,
    confirmations: 12,
    publicRpcUrls: ["https://forno.celo.org"],
    multicall3: true,
  },
  {
    name: "sepolia",
    chainId: 11155111,
    displayName: "Sepolia",
    eas: "0xC2679fBD37d54388Ce493F1DB75320D236e1815e",
    schemaRegistry: "0x0a7E2Ff54e76B8E6659aedc9103FB21c038050D0",
    schemaUid: SCHEMA_UID,
    startBlock: 6269763,
    schemaStartBlock: 2958569,
    confirmations: 6,
    publicRpcUrls: ["https://ethereum-sepolia-rpc.publicnode.com", "https://rpc.sepolia.org"],
    multicall3: true,
  },
  {
    // Start block: the first v0.1 block the Astral SDK lists for Optimism (its config/EAS-config.json,
    // "deploymentBlock"). The SchemaRegistry is an OP Stack predeploy introduced with Bedrock: no Registered event
    // precedes OP Mainnet's Bedrock block.
    name: "optimism",
    chainId: 10,
    displayName: "OP Mainnet",
    eas: "0x4200000000000000000000000000000000000021",
    schemaRegistry: "0x4200000000000000000000000000000000000020",
    schemaUid: SCHEMA_UID,
    startBlock: 142210865,
    schemaStartBlock: 105235063,
    confirmations: 12,
    publicRpcUrls: ["https://mainnet.optimism.io"],
    multicall3: true,
  },
  {
    // No upstream names a first location-proof block here: indexing starts at genesis, where the predeploys
    // already exist (set START_BLOCK_BASE_SEPOLIA to skip history).
    name: "base-sepolia",
    chainId: 84532,
    displayName: "Base Sepolia",
    eas: "0x4200000000000000000000000000000000000021",
    schemaRegistry: "0x4200000000000000000000000000000000000020",
    schemaUid: SCHEMA_UID,
    startBlock: 0,
    schemaStartBlock: 0,
    confirmations: 6,
    publicRpcUrls: ["https://sepolia.base.org"],
    multicall3: true,
  },
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
 * The public chains: what Vercel syncs when CHAINS is not set — every chain where location proofs are attested
 * (optimism and base-sepolia too: the SDK writes there, and Astral's records API runs on base-sepolia).
 */
export const PUBLIC_CHAIN_NAMES = ["arbitrum", "base", "celo", "sepolia", "optimism", "base-sepolia"];

/** A chain as configured: its definition with environment overrides applied. */
export type ChainConfig = ChainDefinition & { rpcUrls: string[]; enabled: boolean };

const envKey = (name: string) => name.toUpperCase().replace(/[^A-Z0-9]/g, "_");

/**
 * Applies RPC_URL_<CHAIN> (comma-separated for a fallback list), START_BLOCK_<CHAIN>, SCHEMA_START_BLOCK_<CHAIN>,
 * CONFIRMATIONS_<CHAIN> and CHAINS (which chains are synced; default: the two local devnets locally, every public
 * chain on Vercel).
 */
export function chainConfigs(config: Config): ChainConfig[] {
  const selected = config.chains ?? (config.onVercel ? PUBLIC_CHAIN_NAMES : DEVNET_CHAINS.map((d) => d.name));
  const unknown = selected.filter((name) => !CHAIN_NAMES.includes(name));
  if (unknown.length) {
    throw new ConfigError(
      `CHAINS: unknown chain(s) ${unknown.join(", ")}; known: ${CHAIN_NAMES.join(", ")}`,
      ["CHAINS"],
    );
  }
  return CHAIN_DEFINITIONS.map((def) => {
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

function intOverride(env: Record<string, string | undefined>, key: string, fallback: number): number {
  const raw = env[key]?.trim();
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${key} must be a whole number`, [key]);
  return Number(raw);
}
