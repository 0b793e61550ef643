/**
 * Instructions the server executes per request: `npm run bench:instructions [-- options]`.
 *
 * On this shared machine a timing moves by tens of per cent from one run to the next; the number of instructions a
 * process executes does not. The built functions are served on Node 24 as deployed, under valgrind's callgrind (every
 * instruction of every thread, the garbage collector's included), on bench:scale's database of 1,000,000 synthetic
 * proofs (loaded when absent or of another day, and kept, as `bench:scale -- --keep` does). Each request type is sent
 * N1 sequential keep-alive requests in one run and N2 in another; the difference of the two totals over N2 - N1 is
 * the count per request, start-up and warm-up left out. The OGC page's count repeats to about 1 %; a page that
 * allocates more varies more (the native page by up to a tenth), with when the collector runs.
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
import { builtOutputCopy, serveOutput } from "../tests/helpers/vercel-output.js";
import {
  benchDatabase,
  benchDatabaseUrl,
  getOk,
  lpad,
  option,
  pad,
  requireNode24,
  SCALE_DB,
  servedEnv,
  textOption,
} from "./common.js";

const [N1, N2] = (textOption("--requests") ?? "500,2000").split(",").map(Number) as [number, number];
const ROWS = option("--rows", 1_000_000);
const ONLY = textOption("--only")?.split(",");
const NODE24 = requireNode24();

const REQUESTS = [
  { name: "ogc default page (10)", path: "/api/ogc/collections/location-proofs/items" },
  { name: "v0 default page (100)", path: "/api/v0/location-proofs" },
].filter((r) => !ONLY || ONLY.includes(r.name));

/** The process's total instructions, from a callgrind output file. */
const totalOf = (file: string) => {
  const m = /^(?:summary|totals): (\d+)/m.exec(readFileSync(file, "utf8"));
  if (!m) throw new Error(`${file}: no instruction total`);
  return Number(m[1]);
};

/** The instructions of a server that started, answered `n` requests for `path` one after another, and stopped. */
async function instructions(output: string, path: string, n: number): Promise<number> {
  const file = join(tmpdir(), `callgrind.${process.pid}.${n}`);
  const server = await serveOutput(output, "valgrind", servedEnv(benchDatabaseUrl(SCALE_DB)), [
    "-q",
    "--tool=callgrind",
    `--callgrind-out-file=${file}`,
    NODE24,
  ]);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (let i = 0; i < n; i++) await getOk(`${server.url}${path}`, agent);
  } finally {
    agent.destroy();
    // The output server exits on SIGTERM; callgrind writes its file as the process ends.
    await server.stop();
  }
  try {
    return totalOf(file);
  } finally {
    rmSync(file, { force: true });
  }
}

async function main() {
  try {
    execFileSync("valgrind", ["--version"], { stdio: "ignore" });
  } catch {
    throw new Error("valgrind not found: apt-get install valgrind");
  }
  if (!(N2 > N1 && N1 > 0)) throw new Error("--requests N1,N2 with 0 < N1 < N2");
  await benchDatabase(SCALE_DB, ROWS, true);
  const output = builtOutputCopy();
  try {
    console.log(
      `bench:instructions: built functions on Node 24 under callgrind, ${ROWS.toLocaleString("en")} proofs, ${N1} then ${N2} sequential requests`,
    );
    console.log(`${pad("request", 28)} ${lpad("instructions per request", 25)}`);
    for (const r of REQUESTS) {
      const [a, b] = [await instructions(output.dir, r.path, N1), await instructions(output.dir, r.path, N2)];
      console.log(
        `${pad(r.name, 28)} ${lpad(`${Math.round((b - a) / (N2 - N1) / 1000).toLocaleString("en")}k`, 25)}`,
      );
    }
  } finally {
    output.remove();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
