/**
 * Instructions the server executes per request: `npm run bench:instructions [-- options]`.
 *
 * On this shared machine a timing moves by tens of per cent from one run to the next; the number of instructions a
 * process executes does not. The built functions are served on Node 24 as deployed, under valgrind's callgrind (every
 * instruction of every thread, the garbage collector's included), on bench:scale's database of 1,000,000 synthetic
 * proofs (loaded when absent or of another day, and kept, as `bench:scale -- --keep` does). Each request type is sent
 * N1 sequential keep-alive requests in one run and N2 in another; the difference of the two totals over N2 - N1 is
 * the count per request, start-up and warm-up left out. A page that allocates more varies more from run to run, with
 * when the collector runs. Counts are not time for everything: valgrind hides the CPU's SHA extensions, so a hash
 * (the ETag's SHA-1) counts far more instructions here than its share of real CPU (docs/performance.md,
 * "Instructions per request").
 *
 * Beside the service, the same count for bench:scale's two floors (bench/statements.ts), replaying the statements the
 * service issued for the request and answering its bytes: the function floor, a function in the Web signature
 * served by the same emulation (what the stack costs with no work of the service's), and the bare node:http floor.
 *
 * Options: --requests N1,N2 (500,2000), --rows N (1,000,000), --only NAMES (a comma list of the request names
 * printed). BUILD_OUTPUT=<dir> measures that built output instead of building the working tree, e.g. to compare two
 * commits. Needs valgrind (Debian's `valgrind` package).
 */
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtOutputCopy, serveOutput } from "../scripts/vercel-output/emulate.js";
import {
  benchArgs,
  benchDatabase,
  benchDatabaseUrl,
  getOk,
  requireNode24,
  SCALE_DB,
  servedEnv,
} from "./common.js";
import { lpad, pad } from "./figures.js";
import { connectInProcess, ITEMS, type Recorded, startFloors, statementsOf, V0 } from "./statements.js";

const ARGS = benchArgs({ numbers: { rows: 1_000_000 }, texts: ["requests", "only"] });
const [N1, N2] = (ARGS.requests ?? "500,2000").split(",").map(Number) as [number, number];
const ONLY = ARGS.only?.split(",");
const NODE24 = requireNode24();
const DB_URL = benchDatabaseUrl(SCALE_DB);

const REQUESTS = [
  { name: "ogc default page (10)", path: ITEMS },
  { name: "v0 default page (100)", path: V0 },
].filter((r) => !ONLY || ONLY.includes(r.name));

/** The process's total instructions, from a callgrind output file. */
const totalOf = (file: string) => {
  const m = /^(?:summary|totals): (\d+)/m.exec(readFileSync(file, "utf8"));
  if (!m) throw new Error(`${file}: no instruction total`);
  return Number(m[1]);
};

const callgrind = (file: string) => ["-q", "--tool=callgrind", `--callgrind-out-file=${file}`, NODE24];

/** Sends `n` sequential keep-alive GETs to each url. */
async function send(urls: string[], n: number): Promise<void> {
  for (const url of urls) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let i = 0; i < n; i++) await getOk(url, agent);
    } finally {
      agent.destroy();
    }
  }
}

/** Each file's total, the files removed. */
function totals(files: string[]): number[] {
  try {
    return files.map(totalOf);
  } finally {
    for (const file of files) rmSync(file, { force: true });
  }
}

/** The instructions of the service's server that started, answered `n` requests for `path`, and stopped. */
async function serviceInstructions(output: string, path: string, n: number): Promise<number> {
  const file = join(tmpdir(), `callgrind.${process.pid}.service.${n}`);
  const server = await serveOutput(output, "valgrind", servedEnv(DB_URL), callgrind(file));
  try {
    await send([`${server.url}${path}`], n);
  } finally {
    // The output server exits on SIGTERM; callgrind writes its file as the process ends.
    await server.stop();
  }
  return totals([file])[0]!;
}

/** The same for the two floors (bench/statements.ts), replaying what the service issued and answered for `path`. */
async function floorInstructions(recorded: Recorded, path: string, n: number): Promise<[number, number]> {
  const file = (name: string) => join(tmpdir(), `callgrind.${process.pid}.${name}.${n}`);
  const floors = await startFloors(DB_URL, "valgrind", (name) => callgrind(file(name)));
  try {
    await floors.set(recorded);
    await send([floors.bare.urlFor(path), floors.fn.urlFor(path)], n);
  } finally {
    await floors.stop();
  }
  return totals([file("bare"), file("function")]) as [number, number];
}

async function main() {
  try {
    execFileSync("valgrind", ["--version"], { stdio: "ignore" });
  } catch {
    throw new Error("valgrind not found: apt-get install valgrind");
  }
  if (!(N2 > N1 && N1 > 0)) throw new Error("--requests N1,N2 with 0 < N1 < N2");
  await benchDatabase(SCALE_DB, ARGS.rows, true);
  // The service's handlers run in this process too, to record the statements the floors replay.
  const handle = await connectInProcess(DB_URL);
  const output = builtOutputCopy();
  try {
    console.log(
      `bench:instructions: built functions on Node 24 under callgrind, ${ARGS.rows.toLocaleString("en")} proofs, ${N1} then ${N2} sequential requests`,
    );
    console.log(
      `${pad("request", 28)} ${lpad("service", 10)} ${lpad("function floor", 15)} ${lpad("bare floor", 11)}  instructions per request`,
    );
    const perRequest = (a: number, b: number) =>
      `${Math.round((b - a) / (N2 - N1) / 1000).toLocaleString("en")}k`;
    for (const r of REQUESTS) {
      const recorded = await statementsOf(r.path);
      const [a, b] = [
        await serviceInstructions(output.dir, r.path, N1),
        await serviceInstructions(output.dir, r.path, N2),
      ];
      const [fa, fb] = [
        await floorInstructions(recorded, r.path, N1),
        await floorInstructions(recorded, r.path, N2),
      ];
      console.log(
        `${pad(r.name, 28)} ${lpad(perRequest(a, b), 10)} ${lpad(perRequest(fa[1], fb[1]), 15)} ${lpad(perRequest(fa[0], fb[0]), 11)}`,
      );
    }
  } finally {
    output.remove();
    await handle.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
