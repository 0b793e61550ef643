/**
 * The cost of quiet networks (issue #36): every public network of the registry configured (CHAINS=all), each behind
 * a loopback proxy that adds 100 ms to every HTTP request like a remote provider, none with anything new. One anvil
 * stands in for all of them: the SchemaRegistry's, EAS's and Multicall3's runtime code is placed at each network's
 * own addresses (anvil_setCode), so the engine reads each network at the addresses of its deployment records.
 *
 * Prints the RPC requests (HTTP requests, and the JSON-RPC calls in them) per run per quiet network (goal ≤ 2
 * requests) and the wall time of one cron run over all of them (goal ≤ 3 s).
 */
import { cpus, loadavg } from "node:os";
import type { Db } from "../db/client.js";
import { chainConfigs, MULTICALL3_ADDRESS } from "../lib/chains/registry.js";
import { loadConfig, setConfig } from "../lib/config.js";
import { rpcCall } from "../lib/devnet/anvil.js";
import type { Devnet } from "../lib/devnet/index.js";
import { type RpcProxy, startRpcProxy } from "../lib/devnet/rpc-proxy.js";
import { createSyncService } from "../lib/sync/service.js";

const LATENCY_MS = 100;
const RUNS = 5;

const envKey = (name: string) => name.toUpperCase().replace(/[^A-Z0-9]/g, "_");

export async function quietNetworks(
  db: Db,
  devnet: Devnet,
): Promise<{ worstMs: number; maxRequests: number }> {
  const networks = chainConfigs(loadConfig({ CHAINS: "all", LOG_LEVEL: "silent" })).filter((c) => c.enabled);
  const code = (address: string) => rpcCall<string>(devnet.rpcUrl, "eth_getCode", [address, "latest"]);
  const [eas, registry, multicall] = await Promise.all([
    code(devnet.eas),
    code(devnet.schemaRegistry),
    code(MULTICALL3_ADDRESS),
  ]);
  const place = (address: string, runtime: string) =>
    rpcCall(devnet.rpcUrl, "anvil_setCode", [address, runtime]);
  for (const n of networks) {
    await place(n.eas, eas);
    await place(n.schemaRegistry, registry);
    if (n.multicall3) await place(n.multicall3, multicall);
  }
  const head = Number(BigInt(await rpcCall<string>(devnet.rpcUrl, "eth_blockNumber")));
  const proxies = new Map<string, RpcProxy>();
  const env: Record<string, string> = { CHAINS: "all", LOG_LEVEL: "silent", SYNC_TIME_BUDGET_MS: "20000" };
  for (const n of networks) {
    const proxy = await startRpcProxy({ target: devnet.rpcUrl, delayMs: LATENCY_MS });
    proxies.set(n.name, proxy);
    const key = envKey(n.name);
    env[`RPC_URL_${key}`] = proxy.url;
    // Synced from the devnet's head: the bench is about the runs after the history.
    env[`START_BLOCK_${key}`] = String(head);
    env[`SCHEMA_START_BLOCK_${key}`] = String(head);
  }
  const config = loadConfig(env);
  setConfig(config);
  const service = createSyncService({ db, config });
  const deepest = Math.max(...networks.map((n) => n.confirmations));
  const mine = (blocks: number) => rpcCall(devnet.rpcUrl, "anvil_mine", [`0x${blocks.toString(16)}`]);
  try {
    await mine(deepest + 5);
    // Catch up to the head (the first runs start each network's cursors).
    for (let i = 0; i < 5; i++) {
      const report = (await service.cron()).report;
      if (report.chains.every((c) => c.status === "ok")) break;
    }
    const walls: number[] = [];
    const requests: number[] = [];
    const calls: number[] = [];
    const chainMs: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      await mine(5);
      for (const p of proxies.values()) {
        p.requests = 0;
        p.calls = {};
      }
      const t = performance.now();
      const { report } = await service.cron();
      walls.push(performance.now() - t);
      const now = Number(BigInt(await rpcCall<string>(devnet.rpcUrl, "eth_blockNumber")));
      for (const c of report.chains) {
        const n = networks.find((x) => x.name === c.chain)!;
        if (c.status !== "ok" || c.attestations !== 0 || c.cursor_block !== now - n.confirmations)
          throw new Error(`${c.chain}: ${c.status} ${c.error ?? ""} cursor ${c.cursor_block}, head ${now}`);
        const p = proxies.get(c.chain)!;
        if (c.rpc_requests !== p.requests)
          throw new Error(`${c.chain}: counted ${c.rpc_requests}, proxy ${p.requests}`);
        requests.push(p.requests);
        chainMs.push(c.duration_ms);
        calls.push(Object.values(p.calls).reduce((a, b) => a + b, 0));
      }
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const maxRequests = Math.max(...requests);
    const worstMs = Math.max(...walls);
    console.log(
      [
        `quiet networks: ${networks.length} networks (CHAINS=all), +${LATENCY_MS} ms per RPC request, ${RUNS} cron runs:`,
        `RPC requests per run per quiet network: max ${maxRequests}, mean ${mean(requests).toFixed(2)} (goal ≤ 2);`,
        `JSON-RPC calls in them: mean ${mean(calls).toFixed(2)} per network per run;`,
        `one cron run over ${networks.length} networks: median ${(walls.sort((a, b) => a - b)[Math.floor(walls.length / 2)]! / 1000).toFixed(2)} s,`,
        `worst ${(worstMs / 1000).toFixed(2)} s (goal ≤ 3 s); one network's run within it: median`,
        `${chainMs.sort((a, b) => a - b)[Math.floor(chainMs.length / 2)]} ms, of which ${2 * LATENCY_MS} ms are the two round trips`,
        `(load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores)`,
      ].join(" "),
    );
    return { worstMs, maxRequests };
  } finally {
    for (const p of proxies.values()) await p.close();
  }
}
