import { sql } from "drizzle-orm";
import { http } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client.js";
import { createChainClient } from "../../lib/chains/client.js";
import { chainConfigs } from "../../lib/chains/registry.js";
import { loadConfig } from "../../lib/config.js";
import { attest } from "../../lib/devnet/eas.js";
import type { Devnet } from "../../lib/devnet/index.js";
import { encodeLocationProof } from "../../lib/devnet/location-data.js";
import { type RpcProxy, type RpcProxyOptions, startRpcProxy } from "../../lib/devnet/rpc-proxy.js";
import { createChainSync } from "../../lib/sync/chain-sync.js";
import { syncOptions } from "../../lib/sync/options.js";
import { mine, oneDevnet, startTestDevnet } from "../helpers/anvil.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { endAfterAll } from "../helpers/fixtures.js";

let devnet: Devnet;
let app: TestApp;
const TOTAL = 60;

const devnetChain = (rpcUrl: string) =>
  chainConfigs(loadConfig({ CHAINS: "devnet", RPC_URL_DEVNET: rpcUrl, CONFIRMATIONS_DEVNET: "1" })).find(
    (c) => c.name === "devnet",
  )!;

const engine = (rpcUrl: string, extra: Partial<Parameters<typeof createChainSync>[0]> = {}, options = {}) => {
  const chain = devnetChain(rpcUrl);
  return createChainSync({
    db: app.db,
    chain,
    client: createChainClient(chain, { transport: http(rpcUrl, { retryCount: 0 }) }),
    options: syncOptions(
      { ...loadConfig({}), syncTimeBudgetMs: 20_000, syncBlockBudget: 1_000_000 },
      options,
    ),
    owner: `test-${Math.random()}`,
    ...extra,
  });
};

const counts = async () =>
  (
    await queryRows<{ n: number; distinct_uids: number }>(
      app.db,
      sql`select count(*)::int as n, count(distinct uid)::int as distinct_uids from location_proofs`,
    )
  )[0]!;

/** Every attestation on the devnet is indexed, each once. */
const expectAllIndexed = async () => expect(await counts()).toEqual({ n: TOTAL, distinct_uids: TOTAL });
const reset = () => app.db.execute(sql`truncate location_proofs, sync_state, sync_blocks, sync_runs`);

type RpcCall = Parameters<NonNullable<RpcProxyOptions["intercept"]>>[0];

/** A fault for the proxy: calls of `method` for which `when` holds are answered with the JSON-RPC `error`. */
const answer =
  (method: string, error: { code: number; message: string }, when: (call: RpcCall) => boolean = () => true) =>
  (call: RpcCall) =>
    call.method === method && when(call) ? error : undefined;

/** From empty tables, runs `use` with an RPC proxy (`options`) in front of the devnet, closed after. */
async function throughProxy(
  options: Omit<RpcProxyOptions, "target">,
  use: (proxy: RpcProxy) => Promise<void>,
): Promise<void> {
  await reset();
  const proxy = await startRpcProxy({ target: devnet.rpcUrl, ...options });
  try {
    await use(proxy);
  } finally {
    await proxy.close();
  }
}

beforeAll(async () => {
  devnet = await startTestDevnet();
  app = await createTestApp(oneDevnet(devnet.rpcUrl));
  // Six transactions of ten: six blocks with logs, so commits of ten fall on block boundaries.
  for (let i = 0; i < TOTAL; i += 10) {
    const items = Array.from({ length: 10 }, (_, j) => ({
      data: encodeLocationProof({
        locationType: "DecimalDegrees<string>",
        location: `${i + j}, ${j}`,
        memo: `#${i + j}`,
      }),
    }));
    await attest(devnet.rpcUrl, devnet.eas, items);
  }
  await mine(devnet.rpcUrl, 2);
});
endAfterAll(() => [app, devnet]);

describe("restart mid-range", () => {
  it("a run killed between batches loses nothing and duplicates nothing when the next run resumes", async () => {
    await reset();
    let commits = 0;
    const first = await engine(
      devnet.rpcUrl,
      {
        afterCommit: () => {
          if (++commits === 2) throw new Error("killed");
        },
      },
      { commitSize: 10 },
    ).run("manual");
    expect(first.status).toBe("error");
    expect(first.error).toContain("killed");
    const partial = await counts();
    expect(partial.n).toBe(20);
    const [state] = await queryRows<{ cursor_block: number }>(
      app.db,
      sql`select cursor_block from sync_state`,
    );
    expect(Number(state!.cursor_block)).toBeGreaterThan(0);

    const second = await engine(devnet.rpcUrl, {}, { commitSize: 10 }).run("manual");
    expect(second).toMatchObject({ status: "ok", attestations: TOTAL - 20 });
    expect(second.fromBlock).toBe(Number(state!.cursor_block) + 1);
    await expectAllIndexed();
  });

  it("a failing provider mid-range leaves the cursor at the last commit; the next run completes", async () => {
    let calls = 0;
    // The third Multicall3 read fails like an overloaded provider.
    const intercept = answer("eth_call", { code: -32603, message: "upstream timeout" }, () => ++calls === 3);
    await throughProxy({ intercept }, async (proxy) => {
      const first = await engine(
        proxy.url,
        {},
        { commitSize: 10, readBatchSize: 10, readConcurrency: 1 },
      ).run("manual");
      expect(first.status).toBe("error");
      expect((await counts()).n).toBe(20);
      proxy.options.intercept = undefined;
      const second = await engine(proxy.url, {}, { commitSize: 10 }).run("manual");
      expect(second.status).toBe("ok");
      await expectAllIndexed();
    });
  });

  it("the time budget stops a run early with status partial; the next run continues", async () => {
    await reset();
    const first = await engine(devnet.rpcUrl, {}, { timeBudgetMs: 1, initialRange: 2 }).run("manual");
    expect(first.status).toBe("partial");
    const second = await engine(devnet.rpcUrl).run("manual");
    expect(second.status).toBe("ok");
    await expectAllIndexed();
  });

  it("a busy range stops at a block boundary when the time budget is spent", async () => {
    await reset();
    let slow = true;
    const first = await engine(
      devnet.rpcUrl,
      {
        afterCommit: async () => {
          if (slow) await new Promise((r) => setTimeout(r, 400));
        },
      },
      { timeBudgetMs: 300, commitSize: 10, initialRange: 1000 },
    ).run("manual");
    expect(first.status).toBe("partial");
    expect(first.attestations).toBeGreaterThan(0);
    expect(first.attestations).toBeLessThan(TOTAL);
    slow = false;
    expect((await engine(devnet.rpcUrl).run("manual")).status).toBe("ok");
    await expectAllIndexed();
  });

  it("continues from the cursor as it stands when the lease is taken, not as first read (no skipped blocks)", async () => {
    await reset();
    expect((await engine(devnet.rpcUrl).run("manual")).status).toBe("ok");
    const [mid] = await queryRows<{ b: number }>(
      app.db,
      sql`select block_number::int as b from location_proofs order by block_number offset 25 limit 1`,
    );
    const rewoundTo = mid!.b;
    let gone = 0;
    // Between this run's state read and its lease, another writer rewinds (a reorg) and releases.
    const result = await engine(devnet.rpcUrl, {
      beforeLease: async () => {
        const [d] = await queryRows<{ n: number }>(
          app.db,
          sql`with d as (delete from location_proofs where block_number > ${rewoundTo} returning 1)
              select count(*)::int as n from d`,
        );
        gone = d!.n;
        await app.db.execute(sql`delete from sync_blocks where block_number > ${rewoundTo}`);
        await app.db.execute(
          sql`update sync_state set cursor_block = ${rewoundTo}, cursor_block_time = null`,
        );
      },
    }).run("manual");
    expect(gone).toBeGreaterThan(0);
    expect(result).toMatchObject({ status: "ok", fromBlock: rewoundTo + 1, attestations: gone });
    await expectAllIndexed();
  });

  it("shouldStop ends a run after the batch in flight, like the time budget; the next run continues", async () => {
    await reset();
    let stop = false;
    const first = await engine(
      devnet.rpcUrl,
      {
        afterCommit: () => {
          stop = true;
        },
      },
      { commitSize: 10, shouldStop: () => stop },
    ).run("manual");
    expect(first).toMatchObject({ status: "partial", attestations: 10 });
    expect((await counts()).n).toBe(10);
    expect((await engine(devnet.rpcUrl).run("manual")).status).toBe("ok");
    await expectAllIndexed();
  });

  it("the block budget bounds one invocation", async () => {
    await reset();
    const first = await engine(devnet.rpcUrl, {}, { blockBudget: 3 }).run("manual");
    expect(first).toMatchObject({ status: "partial", fromBlock: 0, toBlock: 2 });
  });
});

describe("providers that refuse large eth_getLogs ranges", () => {
  it("follows the range a provider suggests (Alchemy's message) and still indexes everything", async () => {
    await throughProxy({ maxLogRange: 4, refusal: "suggest" }, async (proxy) => {
      const result = await engine(proxy.url, {}, { initialRange: 1000 }).run("manual");
      expect(result.status).toBe("ok");
      expect(proxy.refusals).toBeGreaterThan(0);
      await expectAllIndexed();
      const [state] = await queryRows<{ range_size: number }>(app.db, sql`select range_size from sync_state`);
      // The accepted size is remembered for the next invocation (and grows again after clean successes).
      expect(state!.range_size).toBeLessThan(1000);
    });
  });

  it("halves the range on a refusal without a suggestion", async () => {
    await throughProxy({ maxLogRange: 3, refusal: "plain" }, async (proxy) => {
      const result = await engine(proxy.url, {}, { initialRange: 64 }).run("manual");
      expect(result.status).toBe("ok");
      expect(proxy.refusals).toBeGreaterThan(0);
      await expectAllIndexed();
    });
  });

  it("a rate-limited eth_getLogs fails the run without shrinking the stored range", async () => {
    let limited = 0;
    const intercept = answer(
      "eth_getLogs",
      { code: 429, message: "Too Many Requests" },
      () => ++limited === 1,
    );
    await throughProxy({ intercept }, async (proxy) => {
      await engine(proxy.url, {}, { blockBudget: 1 }).run("manual"); // creates the state row
      await app.db.execute(sql`update sync_state set range_size = 64, cursor_block = null`);
      await app.db.execute(sql`truncate location_proofs, sync_blocks`);
      limited = 0;
      const first = await engine(proxy.url, {}, { initialRange: 64 }).run("manual");
      expect(first.status).toBe("error");
      expect(first.error).toMatch(/too many requests|rate limit|429/i);
      expect(limited).toBe(1); // no halving retries
      const rangeSize = async () =>
        (await queryRows<{ range_size: number }>(app.db, sql`select range_size from sync_state`))[0]!
          .range_size;
      expect(await rangeSize()).toBe(64);
      proxy.options.intercept = answer("eth_getLogs", {
        code: -32005,
        message: "daily request rate limit reached",
      });
      expect((await engine(proxy.url, {}, { initialRange: 64 }).run("manual")).status).toBe("error");
      expect(await rangeSize()).toBe(64);
      proxy.options.intercept = undefined;
      expect((await engine(proxy.url, {}, { initialRange: 64 }).run("manual")).status).toBe("ok");
      expect(await rangeSize()).toBeGreaterThanOrEqual(64);
      await expectAllIndexed();
    });
  });

  it("reads attestations in Multicall3 batches, never one request per attestation", async () => {
    await throughProxy({}, async (proxy) => {
      const result = await engine(proxy.url).run("manual");
      expect(result).toMatchObject({ status: "ok", attestations: TOTAL });
      expect(proxy.calls.eth_call).toBe(1);
      expect(proxy.requests).toBeLessThanOrEqual(5);
    });
  });

  it("splits a Multicall3 batch that runs out of gas until the halves fit", async () => {
    // A node whose eth_call gas cap fits ~8 getAttestation reads: larger batches fail with geth's message.
    const intercept = answer(
      "eth_call",
      { code: -32000, message: "gas required exceeds allowance (50000000)" },
      (c) => ((c.params?.[0] as { data?: string } | undefined)?.data ?? "").length > 2 + 8 * 300,
    );
    await throughProxy({ intercept }, async (proxy) => {
      const result = await engine(proxy.url, {}, { readBatchSize: 100 }).run("manual");
      expect(result.status).toBe("ok");
      await expectAllIndexed();
      expect(proxy.calls.eth_call).toBeGreaterThan(8);
    });
  });

  it("without Multicall3, reads go as JSON-RPC batches: one HTTP request per 100 reads", async () => {
    await throughProxy({}, async (proxy) => {
      const chain = { ...devnetChain(proxy.url), multicall3: null };
      const result = await createChainSync({
        db: app.db,
        chain,
        client: createChainClient(chain, { jsonRpcBatch: true }),
        options: syncOptions({ ...loadConfig({}), syncTimeBudgetMs: 20_000, syncBlockBudget: 1_000_000 }),
        owner: "no-multicall",
      }).run("manual");
      expect(result).toMatchObject({ status: "ok", attestations: TOTAL });
      expect(proxy.calls.eth_call).toBe(TOTAL);
      expect(proxy.requests).toBeLessThanOrEqual(5);
      await expectAllIndexed();
    });
  });
});
