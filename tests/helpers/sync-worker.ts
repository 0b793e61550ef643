import { type ChildProcess, spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/**
 * A sync worker in a process of its own (tests/helpers/serve-sync-child.ts), for tests that SIGKILL it. It is
 * bundled once with esbuild and run by plain node: it starts in a fraction of tsx's time, and it is one process —
 * the tsx CLI would run the script in a grandchild that a SIGKILL to it does not reach. The bundle lives under
 * node_modules/.cache so its package imports resolve from the project.
 */
const CHILD = fileURLToPath(new URL("./serve-sync-child.ts", import.meta.url));

export type SyncWorker = {
  child: ChildProcess;
  /** resolves once the worker printed its ready line */
  ready: Promise<void>;
  /** every line it printed (JSON: one per run, and with `steps` one per engine step) */
  lines: string[];
  /** resolves with the first printed line (now or later) that satisfies `test`; rejects after `ms` */
  waitForLine(test: (line: string) => boolean, ms: number): Promise<string>;
  /** SIGKILL: no cleanup, no finally, a transaction possibly open; resolves when the process is gone */
  kill(): Promise<void>;
};

export type SyncWorkers = {
  start(env: {
    dbUrl: string;
    rpcUrl: string;
    options: object;
    steps?: boolean;
    /** a second chain to sync at the same time (devnet2) */
    rpcUrl2?: string;
    /** more of the worker's environment (serve-sync-child.ts names what it reads) */
    env?: Record<string, string>;
  }): SyncWorker;
  /** kills what still runs and deletes the bundle */
  dispose(): Promise<void>;
};

export async function buildSyncWorkers(): Promise<SyncWorkers> {
  const bundle = fileURLToPath(
    new URL(`../../node_modules/.cache/lpqs-tests/sync-worker-${process.pid}.mjs`, import.meta.url),
  );
  const { build } = await import("esbuild");
  await build({
    entryPoints: [CHILD],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    outfile: bundle,
    logLevel: "silent",
  });
  const live = new Set<ChildProcess>();

  function start(env: Parameters<SyncWorkers["start"]>[0]): SyncWorker {
    const child = spawn(process.execPath, [bundle], {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        LOG_LEVEL: "silent",
        LPQS_DB: env.dbUrl,
        RPC_URL_DEVNET: env.rpcUrl,
        ...(env.rpcUrl2 ? { RPC_URL_DEVNET2: env.rpcUrl2, CHAINS: "devnet,devnet2" } : {}),
        SYNC_OPTIONS: JSON.stringify(env.options),
        ...(env.steps ? { SYNC_STEPS: "1" } : {}),
        ...env.env,
      },
      stdio: ["pipe", "pipe", "inherit"],
    });
    live.add(child);
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    void exited.then(() => live.delete(child));
    const lines: string[] = [];
    const waiters = new Set<(line: string) => void>();
    createInterface({ input: child.stdout! }).on("line", (line) => {
      lines.push(line);
      for (const w of waiters) w(line);
    });
    const waitForLine = (test: (line: string) => boolean, ms: number) =>
      new Promise<string>((resolve, reject) => {
        const found = lines.find(test);
        if (found !== undefined) return resolve(found);
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`sync worker: no such line within ${ms} ms (last: ${lines.at(-1) ?? "none"})`));
        }, ms);
        const waiter = (line: string) => {
          if (!test(line)) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(line);
        };
        waiters.add(waiter);
      });
    const ready = Promise.race([
      waitForLine((l) => l.includes('"ready"'), 30_000).then(() => undefined),
      exited.then(() => {
        throw new Error(`sync worker exited early (${child.exitCode})`);
      }),
    ]);
    ready.catch(() => {}); // awaited by the caller; never an unhandled rejection if it is not
    return {
      child,
      ready,
      lines,
      waitForLine,
      kill: async () => {
        child.kill("SIGKILL");
        await exited;
      },
    };
  }

  return {
    start,
    dispose: async () => {
      for (const child of live) child.kill("SIGKILL");
      await rm(bundle, { force: true });
    },
  };
}
