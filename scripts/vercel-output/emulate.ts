import { type ChildProcess, spawn } from "node:child_process";
import {
  cpSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { globSync } from "tinyglobby";
import { buildInto, HANDLER } from "../build-output.js";

/** The repository root. */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * The deployable output, for the tests that check what ships: BUILD_OUTPUT when CI points it at what the real
 * `vercel build` wrote, else a fresh `npm run build` into a temporary directory. Either way the tests get a copy
 * outside the repository, where no node_modules up the tree can supply a file a function forgot to bring.
 */
export function builtOutputCopy(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "vercel-output-"));
  for (let d = dir; d !== dirname(d); d = dirname(d)) {
    if (existsSync(join(d, "node_modules")))
      throw new Error(`${d}/node_modules would let functions resolve packages`);
  }
  const given = process.env.BUILD_OUTPUT;
  if (given) cpSync(given, dir, { recursive: true });
  else buildInto(ROOT, dir);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Starts scripts/vercel-output/server.ts over an output directory on the given Node, with only `env` (and
 * `nodeArgs`, e.g. --cpu-prof, before the script). `pid` lets a benchmark read the server's CPU time.
 */
export function serveOutput(
  output: string,
  node: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<ServedProcess> {
  const options = functionNodeOptions(output);
  return serveScript(
    join(ROOT, "scripts/vercel-output/server.ts"),
    [output],
    node,
    { ...(options ? { NODE_OPTIONS: options } : {}), ...env },
    nodeArgs,
  );
}

/**
 * The NODE_OPTIONS the output's functions are started with on Vercel (their `.vc-config.json` environment), so that
 * the one process serving them all runs as each of them would; flags given on the command line (`nodeArgs`) take
 * precedence, as Node gives them. Functions that asked for different options could not share one process.
 * SERVED_NODE_OPTIONS, where set, stands in for them (empty: V8's defaults), for a benchmark that compares.
 */
function functionNodeOptions(output: string): string | undefined {
  const instead = process.env.SERVED_NODE_OPTIONS;
  if (instead !== undefined) return instead || undefined;
  const values = new Set(
    globSync("functions/**/.vc-config.json", { cwd: output, dot: true }).map(
      (file) =>
        (JSON.parse(readFileSync(join(output, file), "utf8")) as { environment?: Record<string, string> })
          .environment?.NODE_OPTIONS ?? "",
    ),
  );
  if (values.size > 1)
    throw new Error(`the functions ask for different NODE_OPTIONS: ${[...values].join(" | ")}`);
  return [...values][0] || undefined;
}

export type ServedProcess = { url: string; version: string; pid: number; stop(): Promise<void> };

/** Bundles `entry` with everything it imports into one ES module for Node 24 at `outfile`. */
async function bundleForNode(entry: string, outfile: string): Promise<void> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node24",
    logLevel: "silent",
    external: ["pg-native"],
    // Bundled CommonJS (node-postgres) may require() Node's built-ins.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
  });
}

/**
 * An output of one Node function at `/<name>`, bundled from `entry` (a module exporting Web handlers, e.g. bench's
 * function floor), for serveOutput: served like the service's functions, by the same emulation.
 */
export async function singleFunctionOutput(
  entry: string,
  name: string,
): Promise<{ dir: string; remove(): void }> {
  const dir = mkdtempSync(join(tmpdir(), "function-output-"));
  const func = join(dir, "functions", `${name}.func`);
  mkdirSync(join(dir, "static"), { recursive: true });
  mkdirSync(func, { recursive: true });
  writeFileSync(join(dir, "config.json"), JSON.stringify({ version: 3, routes: [{ handle: "filesystem" }] }));
  writeFileSync(
    join(func, ".vc-config.json"),
    JSON.stringify({ runtime: "nodejs24.x", handler: HANDLER, launcherType: "Nodejs" }),
  );
  await bundleForNode(entry, join(func, HANDLER));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Bundles a server script (one that prints `listening <port> node <version>`) next to the system's temporary files
 * and runs it on the given Node with only `env`: the output server, or bench:scale's floor server.
 */
export async function serveScript(
  entry: string,
  args: string[],
  node: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<ServedProcess> {
  const script = join(mkdtempSync(join(tmpdir(), "served-")), "server.mjs");
  await bundleForNode(entry, script);
  const child: ChildProcess = spawn(node, [...nodeArgs, script, ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  // SERVED_STDOUT=FILE keeps what the server prints (for example V8's --trace-gc lines, from a benchmark's Node flags).
  if (process.env.SERVED_STDOUT) child.stdout?.pipe(createWriteStream(process.env.SERVED_STDOUT));
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening \d+ node v[\d.]+/.exec(out);
      if (m) resolve(m[0]);
    });
    child.on("exit", (code) => reject(new Error(`${entry} exited (${code}): ${stderr}`)));
  });
  const [, port, , version] = line.split(" ");
  return {
    url: `http://127.0.0.1:${port}`,
    version: version!,
    pid: child.pid!,
    stop: async () => {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill();
      // A --cpu-prof profile is written as the process exits.
      if (child.exitCode === null) await exited;
      rmSync(dirname(script), { recursive: true, force: true });
      if (stderr.trim()) console.log(`${entry} stderr:\n${stderr.slice(0, 4000)}`);
    },
  };
}
