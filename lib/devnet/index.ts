import { existsSync } from "node:fs";
import { createServer } from "node:net";
import type { Address, Hex } from "viem";
import { DEVNET_CHAIN_ID } from "../chains/registry.js";
import { spawnAnvil } from "./anvil.js";
import { deployEas } from "./eas.js";
import { seedLocationProtocol } from "./protocol-seed.js";
import { seedDevnet } from "./seed.js";

export type DevnetOptions = {
  port: number;
  /** Keep the chain across restarts (anvil --state), e.g. .data/devnet-state.json next to the PGlite database. */
  statePath?: string;
  /**
   * Write the sample proofs (only on a fresh chain; a restored one already has them): the v0.1 set and the Location
   * Protocol records of the devnet's other schemas (lib/devnet/protocol-seed.ts).
   */
  seed?: boolean;
  /** Seconds between blocks (default 1: confirmations advance without traffic); 0 = one block per transaction. */
  blockTimeSeconds?: number;
  /** default: the first devnet's chain id (lib/chains/registry.ts DEVNET_CHAINS) */
  chainId?: number;
};

export type Devnet = {
  rpcUrl: string;
  chainId: number;
  eas: Address;
  schemaRegistry: Address;
  schemaUid: Hex;
  /** uids of the location attestations the seeder wrote, every one to be indexed (empty when not seeded or restored) */
  seeded: Hex[];
  /** attestations the seeder wrote of a schema that is not about locations (never indexed) */
  seededOthers: number;
  stop(): Promise<void>;
};

/**
 * A local chain with EAS, the v0.1 location-proof schema and Multicall3 (and, seeded, the devnet's other schemas and
 * their records), for `npm run dev`, tests and benches. Loopback only; anvil dies with this process.
 */
export async function startDevnet(options: DevnetOptions): Promise<Devnet> {
  const restored = options.statePath !== undefined && existsSync(options.statePath);
  const chainId = options.chainId ?? DEVNET_CHAIN_ID;
  const anvil = await spawnAnvil({
    port: options.port,
    chainId,
    blockTimeSeconds: options.blockTimeSeconds ?? 1,
    ...(options.statePath ? { statePath: options.statePath } : {}),
  });
  try {
    const deployment = await deployEas(anvil.rpcUrl);
    const seeded: Hex[] = [];
    let others = 0;
    if (options.seed && !restored) {
      seeded.push(...(await seedDevnet(anvil.rpcUrl, deployment.eas)).uids);
      const lp = await seedLocationProtocol(anvil.rpcUrl, deployment);
      const { review, ...location } = lp.bySchema;
      seeded.push(...Object.values(location).flat());
      others = review.length;
    }
    return { rpcUrl: anvil.rpcUrl, chainId, ...deployment, seeded, seededOthers: others, stop: anvil.stop };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}

/** A free TCP port on loopback (tests run in parallel; 8545 may be taken). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}
