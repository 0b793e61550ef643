import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/*
 * PROJ's own command line, cs2cs (Debian's proj-bin; .ci/run installs it), the outside truth for lib/crs. PROJ runs
 * with a data directory that holds only its database (proj.db), so no grid file is found and it does what the
 * service does: the datum shifts without grids. Its axis order is the authority's, as the service's is.
 */

const searchPaths = execFileSync("projinfo", ["--searchpaths"]).toString().trim().split("\n");
const projDb = searchPaths
  .map((d) => join(d, "proj.db"))
  .find((f) => {
    try {
      execFileSync("test", ["-f", f]);
      return true;
    } catch {
      return false;
    }
  });
if (!projDb) throw new Error("proj.db not found: install Debian's proj-bin (apt-get install proj-bin)");
const dataDir = mkdtempSync(join(tmpdir(), "proj-no-grids-"));
copyFileSync(projDb, join(dataDir, "proj.db"));

/** cs2cs over many points at once: input and output in each CRS's own axis order. */
export function cs2cs(from: string, to: string, points: number[][]): number[][] {
  const input = points.map((p) => `${p[0]} ${p[1]}`).join("\n");
  const out = execFileSync("cs2cs", ["-f", "%.9f", from, to], {
    input: `${input}\n`,
    env: { ...process.env, PROJ_DATA: dataDir, PROJ_LIB: dataDir, PROJ_NETWORK: "OFF" },
  })
    .toString()
    .trim()
    .split("\n");
  return out.map((line) => line.trim().split(/\s+/).slice(0, 2).map(Number));
}
