import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const CHILD = fileURLToPath(new URL("./serve-child.ts", import.meta.url));
// node with tsx's loader, not the tsx CLI (which runs the script in a grandchild that a kill would not reach).
const TSX_LOADER = import.meta.resolve("tsx");

export type ServerProcess = { url: string; pid: number; stop(): Promise<void> };

/** Starts the service in a separate real process (tsx, node:http on port 0) with the given environment. */
export async function startServerProcess(
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, ["--import", TSX_LOADER, CHILD], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", LOG_LEVEL: "warn", ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("server process did not start in time")), timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server process exited early with code ${code}`));
    });
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (line) => {
      try {
        const parsed = JSON.parse(line) as { url?: string };
        if (parsed.url) {
          clearTimeout(timer);
          resolve(parsed.url);
        }
      } catch {
        // a log line, not the announcement
      }
    });
  });
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
