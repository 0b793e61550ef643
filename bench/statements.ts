// The statements a request issues, recorded from the same code in this process, and the two floors that replay
// them (bench/floor-replay.ts): for bench:scale and bench:instructions. The caller connects the in-process
// database first (connectInProcess), as the service's handlers then run here.
import { fileURLToPath } from "node:url";
import pg from "pg";
import { GET as shapesGET } from "../api/ogc/collections/location-proof-shapes/items/index.js";
import { GET as itemsGET } from "../api/ogc/collections/location-proofs/items/index.js";
import { GET as listGET } from "../api/v0/location-proofs/index.js";
import { connect, type DbHandle, setDatabase } from "../db/client.js";
import { loadConfig, setConfig } from "../lib/config.js";
import {
  type ServedProcess,
  serveOutput,
  serveScript,
  singleFunctionOutput,
} from "../scripts/vercel-output/emulate.js";

export const V0 = "/api/v0/location-proofs";
export const ITEMS = "/api/ogc/collections/location-proofs/items";
export const SHAPES = "/api/ogc/collections/location-proof-shapes/items";

export type Statement = { config: unknown; params: unknown };
export type Recorded = { statements: Statement[]; body: Buffer };

/** The service's handlers, in this process, on `databaseUrl` (node-postgres, quiet, no rate limit). */
export async function connectInProcess(databaseUrl: string): Promise<DbHandle> {
  setConfig(loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: "silent", RATE_LIMIT_PER_MINUTE: "0" }));
  const handle = await connect(databaseUrl, "pg");
  setDatabase(handle);
  return handle;
}

let recording: Statement[] | undefined;
const originalQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  if (recording && args[0] !== undefined) recording.push({ config: args[0], params: args[1] });
  return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
} as typeof pg.Client.prototype.query;

const handlerFor = (path: string) =>
  path.startsWith(SHAPES) ? shapesGET : path.startsWith(ITEMS) ? itemsGET : listGET;

/** The statements the service issues for `path` once warm (its count remembered), and the bytes it answers. */
export async function statementsOf(path: string): Promise<Recorded> {
  const handler = handlerFor(path);
  for (let i = 0; i < 3; i++) await (await handler(new Request(`http://bench${path}`))).arrayBuffer();
  recording = [];
  const res = await handler(new Request(`http://bench${path}`));
  const body = Buffer.from(await res.arrayBuffer());
  const recorded = recording;
  recording = undefined;
  if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  return { statements: recorded, body };
}

export async function replay(client: pg.ClientBase, statements: Statement[]): Promise<void> {
  for (const s of statements) {
    await (client.query as (c: unknown, p: unknown) => Promise<unknown>)(s.config, s.params);
  }
}

export type Floor = ServedProcess & { urlFor(path: string): string };

/**
 * The two floors on `node` (a command, e.g. valgrind, with `nodeArgs`): the bare node:http server
 * (bench/floor-server.ts) and the function floor (bench/floor-function.ts) served by the service's emulation.
 */
export async function startFloors(
  databaseUrl: string,
  node: string,
  nodeArgs: (name: "bare" | "function") => string[] = () => [],
): Promise<{ bare: Floor; fn: Floor; set(recorded: Recorded): Promise<void>; stop(): Promise<void> }> {
  const env = { DATABASE_URL: databaseUrl };
  const output = await singleFunctionOutput(
    fileURLToPath(new URL("floor-function.ts", import.meta.url)),
    "floor",
  );
  const served = await Promise.all([
    serveScript(fileURLToPath(new URL("floor-server.ts", import.meta.url)), [], node, env, nodeArgs("bare")),
    serveOutput(output.dir, node, env, nodeArgs("function")),
  ]);
  // The bare floor answers any path; the function floor's route is its own (/floor), given the same query string.
  const bare: Floor = { ...served[0], urlFor: (path) => `${served[0].url}${path}` };
  const fn: Floor = { ...served[1], urlFor: (path) => `${served[1].url}/floor${path.replace(/^[^?]*/, "")}` };
  return {
    bare,
    fn,
    /** What both floors replay and answer for the following requests. */
    async set(recorded) {
      for (const floor of [bare, fn]) {
        const res = await fetch(floor.urlFor("/"), {
          method: "PUT",
          body: JSON.stringify({ statements: recorded.statements, body: recorded.body.toString("base64") }),
        });
        if (res.status !== 204) throw new Error(`floor ${floor.url}: ${res.status} ${await res.text()}`);
      }
    },
    async stop() {
      await Promise.all([bare.stop(), fn.stop()]);
      output.remove();
    },
  };
}
