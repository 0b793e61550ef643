/**
 * The public networks of the registry (lib/chains/registry.ts), in its order, written out: what the tests expect it
 * to serve, so that a network dropped or renamed by mistake fails a test.
 */
export const ALL_NETWORKS = [
  "mainnet",
  "arbitrum",
  "arbitrum-nova",
  "arbitrum-sepolia",
  "base",
  "base-sepolia",
  "celo",
  "ink",
  "linea",
  "optimism",
  "optimism-sepolia",
  "polygon",
  "polygon-amoy",
  "scroll",
  "scroll-sepolia",
  "sepolia",
  "soneium",
  "telos",
  "unichain",
  "zksync",
];

/** The ones synced on Vercel when CHAINS is not set. */
export const PUBLIC_CHAINS = ["mainnet", "arbitrum", "base", "base-sepolia", "celo", "optimism", "sepolia"];
