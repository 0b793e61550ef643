/** The public chains of the registry (lib/chains/registry.ts), in its order: what the tests expect it to serve. */
export const PUBLIC_CHAINS = ["arbitrum", "base", "celo", "sepolia", "optimism", "base-sepolia"];
