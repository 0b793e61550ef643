import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Whether Debian's varnishd is installed (.ci/run installs it). */
export const hasVarnish = (() => {
  try {
    execFileSync("varnishd", ["-V"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

export type Varnish = { url: string; port: number; dir: string; stop(): void };

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

/**
 * Varnish in front of the origin on `originPort`, with Debian's built-in VCL: only the backend is ours, so what it
 * keeps is what the service's headers say. `-p default_grace=0`: what is served stale is what the service's
 * stale-while-revalidate allows, nothing more. Resolves once it answers /api/ogc through the origin; `dir` is its
 * working directory (varnishstat -n dir).
 */
export async function startVarnish(originPort: number, storage = "64m"): Promise<Varnish> {
  const dir = mkdtempSync(join(tmpdir(), "lpqs-varnish-"));
  const vcl = join(dir, "default.vcl");
  writeFileSync(vcl, `vcl 4.1;\nbackend origin { .host = "127.0.0.1"; .port = "${originPort}"; }\n`);
  const port = await freePort();
  const args = [
    "-F",
    "-j",
    "none",
    "-n",
    dir,
    "-a",
    `127.0.0.1:${port}`,
    "-f",
    vcl,
    "-s",
    `malloc,${storage}`,
  ];
  const child = spawn("varnishd", [...args, "-p", "default_grace=0"], { stdio: "ignore" });
  const stop = () => {
    child.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 150; i++) {
    const up = await fetch(`${url}/api/ogc`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { url, port, dir, stop };
    await new Promise((r) => setTimeout(r, 200));
  }
  stop();
  throw new Error("varnishd did not answer");
}
