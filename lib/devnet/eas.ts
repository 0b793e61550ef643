import { createRequire } from "node:module";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  getAddress,
  getContractAddress,
  type Hex,
  http,
  parseEventLogs,
  zeroAddress,
  zeroHash,
} from "viem";
import { easAbi } from "../chains/eas-abi.js";
import { MULTICALL3_ADDRESS } from "../chains/registry.js";
import { LOCATION_SCHEMA, LOCATION_SCHEMA_UID } from "../chains/schema.js";

/** anvil's first two default accounts (unlocked, so eth_sendTransaction needs no key here). */
export const DEVNET_ACCOUNTS: readonly Address[] = [
  "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
  "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
];

type Artifact = { abi: readonly unknown[]; bytecode: Hex };

/** EAS artifacts from the dev-only eas-contracts package; loaded lazily so nothing deployed ever needs it. */
export function easArtifact(name: "EAS" | "SchemaRegistry"): Artifact {
  const require = createRequire(import.meta.url);
  return require(`@ethereum-attestation-service/eas-contracts/artifacts/contracts/${name}.sol/${name}.json`);
}

/**
 * Clients of one local anvil, whichever chain id it runs (the devnets differ only in that): writes pass
 * `chain: null`, so the node fills in its own chain id.
 */
export function devnetClients(rpcUrl: string, account: Address = DEVNET_ACCOUNTS[0]!) {
  const transport = http(rpcUrl, { timeout: 60_000 });
  const publicClient = createPublicClient({ transport, cacheTime: 0, pollingInterval: 50 });
  const walletClient = createWalletClient({ transport, account });
  return { publicClient, walletClient };
}

type Clients = ReturnType<typeof devnetClients>;

/**
 * Waits for a receipt by polling (viem's waitForTransactionReceipt sometimes hangs against anvil), mining a block
 * when the devnet mines on a timer so that setup does not wait for the next tick.
 */
export async function receiptOf(clients: Clients, hash: Hex) {
  for (let i = 0; i < 600; i++) {
    const receipt = await clients.publicClient.getTransactionReceipt({ hash }).catch(() => undefined);
    if (receipt) {
      if (receipt.status !== "success") throw new Error(`transaction ${hash} reverted`);
      return receipt;
    }
    if (i === 2) await clients.publicClient.request({ method: "evm_mine" as never, params: [] as never });
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no receipt for ${hash}`);
}

export type EasDeployment = { eas: Address; schemaRegistry: Address; schemaUid: Hex };

/**
 * Deploys SchemaRegistry (nonce 0) and EAS (nonce 1) from anvil's first account, so their addresses are the
 * deterministic ones in lib/chains/registry.ts, places Multicall3 at its canonical address and registers the
 * location-proof schema. Idempotent: a devnet restored from --state already has them.
 */
export async function deployEas(rpcUrl: string): Promise<EasDeployment> {
  const clients = devnetClients(rpcUrl);
  const { publicClient, walletClient } = clients;
  await placeMulticall3(clients);
  const nonce = await publicClient.getTransactionCount({ address: DEVNET_ACCOUNTS[0]! });
  const registryArtifact = easArtifact("SchemaRegistry");
  const easContract = easArtifact("EAS");
  let schemaRegistry: Address;
  let eas: Address;
  if (nonce === 0) {
    const r1 = await receiptOf(
      clients,
      await walletClient.deployContract({
        abi: registryArtifact.abi,
        bytecode: registryArtifact.bytecode,
        args: [],
        chain: null,
      }),
    );
    schemaRegistry = r1.contractAddress!;
    const r2 = await receiptOf(
      clients,
      await walletClient.deployContract({
        abi: easContract.abi,
        bytecode: easContract.bytecode,
        args: [schemaRegistry],
        chain: null,
      }),
    );
    eas = r2.contractAddress!;
  } else {
    // Restored state: the contracts are where nonces 0 and 1 put them.
    schemaRegistry = getContractAddress({ from: DEVNET_ACCOUNTS[0]!, nonce: 0n });
    eas = getContractAddress({ from: DEVNET_ACCOUNTS[0]!, nonce: 1n });
    if (!(await publicClient.getCode({ address: eas })))
      throw new Error("devnet state has no EAS at its address");
  }
  const existing = (await publicClient.readContract({
    address: schemaRegistry,
    abi: registryArtifact.abi,
    functionName: "getSchema",
    args: [LOCATION_SCHEMA_UID],
  })) as { uid: Hex };
  if (existing.uid === zeroHash) {
    await receiptOf(
      clients,
      await walletClient.writeContract({
        address: schemaRegistry,
        abi: registryArtifact.abi,
        functionName: "register",
        args: [LOCATION_SCHEMA, zeroAddress, true],
        chain: null,
      }),
    );
  }
  return { eas: getAddress(eas), schemaRegistry: getAddress(schemaRegistry), schemaUid: LOCATION_SCHEMA_UID };
}

/** Multicall3 is not on anvil: run its creation code in an eth_call to get the runtime code, then anvil_setCode. */
async function placeMulticall3({ publicClient }: Clients): Promise<void> {
  if (await publicClient.getCode({ address: MULTICALL3_ADDRESS })) return;
  const { readFileSync } = await import("node:fs");
  const require = createRequire(import.meta.url);
  // viem ships Multicall3's creation code (for deployless calls) but does not export it.
  const file = require.resolve("viem").replace(/_cjs[/\\]index\.js$/, "_esm/constants/contracts.js");
  const creation = /multicall3Bytecode\s*=\s*'(0x[0-9a-f]+)'/.exec(readFileSync(file, "utf8"))?.[1];
  if (!creation) throw new Error("Multicall3 bytecode not found in viem");
  const { data } = await publicClient.call({ data: creation as Hex });
  if (!data) throw new Error("Multicall3 creation code returned no runtime code");
  await publicClient.request({
    method: "anvil_setCode" as never,
    params: [MULTICALL3_ADDRESS, data] as never,
  });
}

/** One attestation request: schema data plus optional recipient. */
/** expirationTime: seconds since the epoch, 0 (the default) for none. */
export type AttestItem = { data: Hex; recipient?: Address; expirationTime?: bigint };

/**
 * Writes attestations through EAS.multiAttest, `chunk` per transaction, and returns their uids in order.
 * Works against any EAS deployment (the devnet's or a fork).
 */
export async function attest(
  rpcUrl: string,
  eas: Address,
  items: AttestItem[],
  options: { from?: Address; chunk?: number; schemaUid?: Hex; gasPerAttestation?: bigint } = {},
): Promise<Hex[]> {
  const clients = devnetClients(rpcUrl, options.from);
  const chunk = options.chunk ?? 250;
  const hashes: Hex[] = [];
  for (let i = 0; i < items.length; i += chunk) {
    const data = items.slice(i, i + chunk).map((it) => ({
      recipient: it.recipient ?? zeroAddress,
      expirationTime: it.expirationTime ?? 0n,
      revocable: true,
      refUID: zeroHash,
      data: it.data,
      value: 0n,
    }));
    hashes.push(
      await clients.walletClient.writeContract({
        address: eas,
        abi: easArtifact("EAS").abi,
        functionName: "multiAttest",
        args: [[{ schema: options.schemaUid ?? LOCATION_SCHEMA_UID, data }]],
        chain: null,
        // A known upper bound skips eth_estimateGas, which executes the whole transaction once more.
        ...(options.gasPerAttestation
          ? { gas: options.gasPerAttestation * BigInt(data.length) + 1_000_000n }
          : {}),
      }),
    );
  }
  const uids: Hex[] = [];
  for (const hash of hashes) {
    const receipt = await receiptOf(clients, hash);
    for (const log of parseEventLogs({ abi: easAbi, logs: receipt.logs, eventName: "Attested" })) {
      uids.push(log.args.uid);
    }
  }
  return uids;
}

/** Revokes attestations (one multiRevoke transaction); returns the block number it landed in. */
export async function revoke(
  rpcUrl: string,
  eas: Address,
  uids: Hex[],
  options: { from?: Address; schemaUid?: Hex } = {},
): Promise<bigint> {
  const clients = devnetClients(rpcUrl, options.from);
  const hash = await clients.walletClient.writeContract({
    address: eas,
    abi: easArtifact("EAS").abi,
    functionName: "multiRevoke",
    args: [
      [{ schema: options.schemaUid ?? LOCATION_SCHEMA_UID, data: uids.map((uid) => ({ uid, value: 0n })) }],
    ],
    chain: null,
  });
  const receipt = await receiptOf(clients, hash);
  return receipt.blockNumber;
}

/**
 * EAS's record of an off-chain attestation on chain: `revokeOffchain(uid)` by `from` (the attester, for a revocation
 * that counts), or `timestamp(uid)`. Returns the block it was mined in.
 */
export async function offchainOnChain(
  rpcUrl: string,
  eas: Address,
  what: "revokeOffchain" | "timestamp",
  uid: Hex,
  options: { from?: Address } = {},
): Promise<bigint> {
  const clients = devnetClients(rpcUrl, options.from);
  const hash = await clients.walletClient.writeContract({
    address: eas,
    abi: easArtifact("EAS").abi,
    functionName: what,
    args: [uid],
    chain: null,
  });
  const receipt = await receiptOf(clients, hash);
  return receipt.blockNumber;
}
