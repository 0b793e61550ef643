import type { Hex } from "viem";
import { DEVNET_CHAINS } from "../../lib/chains/registry.js";
import { rpcCall } from "../../lib/devnet/anvil.js";
import { attest, revoke } from "../../lib/devnet/eas.js";
import { type Devnet, freePort, startDevnet } from "../../lib/devnet/index.js";

/**
 * A devnet of its own for one test file, on a free port, mining one block per transaction (deterministic); `chainId`
 * picks the second local chain (devnet2's) for tests of several chains.
 */
export async function startTestDevnet(options: { seed?: boolean; chainId?: number } = {}): Promise<Devnet> {
  return startDevnet({
    port: await freePort(),
    blockTimeSeconds: 0,
    seed: options.seed ?? false,
    ...(options.chainId ? { chainId: options.chainId } : {}),
  });
}

/** The local chains' ids by name (devnet, devnet2). */
export const DEVNET_IDS = Object.fromEntries(DEVNET_CHAINS.map((d) => [d.name, d.chainId])) as Record<
  string,
  number
>;

/** A JSON-RPC call to the test's devnet (the one the benchmarks use too). */
export const rpc = rpcCall;

export const mine = (rpcUrl: string, blocks = 1) => rpc(rpcUrl, "anvil_mine", [`0x${blocks.toString(16)}`]);

export const blockNumber = async (rpcUrl: string) =>
  Number(BigInt(await rpc<string>(rpcUrl, "eth_blockNumber")));

export const AUTH = { authorization: "Bearer test-secret" };

/**
 * The reorg tests' chain: proof A, the fork point, then proof B and A's revocation after it, so that a reorg past the
 * fork point orphans B and the revocation and leaves A. `data(memo)` encodes each proof. Returns A's uid and the
 * fork point's block number.
 */
export async function attestAcrossFork(
  devnet: Devnet,
  data: (memo: string) => Hex,
): Promise<{ a: Hex; forkPoint: number }> {
  const [a] = await attest(devnet.rpcUrl, devnet.eas, [{ data: data("A") }]);
  await mine(devnet.rpcUrl, 1);
  const forkPoint = await blockNumber(devnet.rpcUrl);
  await attest(devnet.rpcUrl, devnet.eas, [{ data: data("B") }]);
  await revoke(devnet.rpcUrl, devnet.eas, [a!]);
  return { a: a!, forkPoint };
}

/** The environment of an app that syncs the local chain at this RPC URL (the devnet's, or a proxy's in front of it). */
export const oneDevnet = (rpcUrl: string, more: Record<string, string> = {}): Record<string, string> => ({
  CRON_SECRET: "test-secret",
  CHAINS: "devnet",
  RPC_URL_DEVNET: rpcUrl,
  ...more,
});

/** The environment of an app that syncs both local chains, at these RPC URLs (devnet's, devnet2's). */
export const bothDevnets = (devnetUrl: string, devnet2Url: string): Record<string, string> => ({
  CRON_SECRET: "test-secret",
  CHAINS: "devnet,devnet2",
  RPC_URL_DEVNET: devnetUrl,
  RPC_URL_DEVNET2: devnet2Url,
});
