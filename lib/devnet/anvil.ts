import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { DEVNET_CHAIN_ID } from "../chains/registry.js";

export type AnvilOptions = {
  port: number;
  /** Seconds between blocks; 0 = mine one block per transaction (automine, deterministic for tests). */
  blockTimeSeconds: number;
  /** Persist the chain across restarts (anvil --state, dumped every few seconds and on exit). */
  statePath?: string;
  gasLimit?: bigint;
  /** default: the first devnet's (lib/chains/registry.ts) */
  chainId?: number;
};

export type AnvilProcess = { rpcUrl: string; stop(): Promise<void> };

/**
 * The anvil binary of the platform package. The @foundry-rs/anvil wrapper's own fallback path is broken in 1.7.1,
 * so the binary is spawned directly.
 */
export function anvilBinary(): string {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve("@foundry-rs/anvil-linux-amd64/package.json");
  return join(dirname(pkg), "bin", "anvil");
}

/**
 * Starts anvil on loopback and waits until it answers. anvil outlives its parent unless told otherwise, so it runs
 * under a tiny shell that kills it when our end of its stdin closes — which also happens when this process is
 * killed with SIGKILL, where no exit handler runs.
 */
export async function spawnAnvil(options: AnvilOptions): Promise<AnvilProcess> {
  const args = [
    "--host",
    "127.0.0.1",
    "--port",
    String(options.port),
    "--chain-id",
    String(options.chainId ?? DEVNET_CHAIN_ID),
    "--gas-limit",
    String(options.gasLimit ?? 1_000_000_000n),
    "--silent",
  ];
  if (options.blockTimeSeconds > 0) args.push("--block-time", String(options.blockTimeSeconds));
  if (options.statePath) args.push("--state", options.statePath, "--state-interval", "5");
  const child: ChildProcess = spawn(
    "sh",
    [
      "-c",
      '"$0" "$@" & pid=$!; trap "kill $pid" TERM INT; read _; kill $pid; wait $pid',
      anvilBinary(),
      ...args,
    ],
    { stdio: ["pipe", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr = (stderr + String(chunk)).slice(-2000);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  const rpcUrl = `http://127.0.0.1:${options.port}`;
  const stop = async () => {
    process.removeListener("exit", killOnExit);
    if (child.exitCode === null) {
      child.stdin?.end();
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  };
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`anvil exited: ${stderr.trim() || `code ${child.exitCode}`}`);
    try {
      const res = await fetch(rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      });
      if (res.ok) return { rpcUrl, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`anvil did not answer on ${rpcUrl} within 20 s: ${stderr.trim()}`);
}

/** One JSON-RPC call to a node: its result, or an error that names the method and carries the node's message. */
export async function rpcCall<T = unknown>(
  rpcUrl: string,
  method: string,
  params: unknown[] = [],
): Promise<T> {
  const res = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}
