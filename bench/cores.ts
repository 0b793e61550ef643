/**
 * Which CPUs the benchmark's processes run on. Deployed, the database runs on a host of its own and the functions
 * on theirs; on this one machine they share the cores, so a throughput run's rate is bounded by the sum of the
 * server's, PostgreSQL's and the client's CPU per request. `separateCores` pins PostgreSQL (every postgres process,
 * and so the backends the postmaster forks later) to some cores and the application side (the server, the floor
 * and this process, which is the load generator and the SQL client) to the others, so each side's CPU bounds its
 * own share, as with two hosts. It uses `taskset` (util-linux) and changes the machine's PostgreSQL until the
 * returned function (also called at exit) puts every affinity back.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";

/** The pids of every PostgreSQL process on this machine (empty when the server runs elsewhere). */
export function postgresPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() === "postgres") pids.push(Number(entry));
    } catch {
      // The process ended meanwhile.
    }
  }
  return pids;
}

/** The fields of /proc/<pid>/stat after the command name (so [1] is the parent, [11..14] the CPU times). */
export const statOf = (pid: number) =>
  readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ").map(Number);

/** The postmaster among PostgreSQL's processes: the one whose parent is not one of them. */
export function postmasterOf(postgres: number[]): number | undefined {
  return postgres.find((pid) => {
    try {
      return !postgres.includes(statOf(pid)[1]!);
    } catch {
      return false; // ended meanwhile: a backend, not the postmaster
    }
  });
}

const taskset = (...args: string[]) => execFileSync("taskset", args, { encoding: "utf8", stdio: "pipe" });
/** A process's CPU list as taskset prints it ("0,1", "0-3"). */
const cpusOf = (pid: number) => taskset("-c", "-p", String(pid)).trim().split(": ").pop()!;
/** Pins a process and all its threads; a process that ended meanwhile is left out. */
function pin(pid: number, cpus: string): void {
  try {
    taskset("-a", "-c", "-p", cpus, String(pid));
  } catch (error) {
    if (existsProcess(pid)) throw error;
  }
}
const existsProcess = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Why the cores cannot be separated here, or undefined when they can. */
export function cannotSeparate(): string | undefined {
  if (availableParallelism() < 2) return "one CPU";
  if (postgresPids().length === 0) return "PostgreSQL runs on another host";
  try {
    cpusOf(process.pid);
  } catch {
    return "taskset (util-linux) is not available";
  }
  return undefined;
}

/**
 * PostgreSQL on the first half of the CPUs (at least one), `applicationPids` and this process on the rest; returns
 * the function that restores every affinity it changed (the postmaster's too, so later backends inherit it again).
 */
export function separateCores(applicationPids: number[]): {
  database: string;
  application: string;
  restore(): void;
} {
  const n = availableParallelism();
  const half = Math.max(1, Math.floor(n / 2));
  const database = half === 1 ? "0" : `0-${half - 1}`;
  const application = n - half === 1 ? String(half) : `${half}-${n - 1}`;
  const postgres = postgresPids();
  const postmaster = postmasterOf(postgres);
  const before = new Map<number, string>();
  const move = (pid: number, cpus: string) => {
    if (before.has(pid)) return;
    try {
      before.set(pid, cpusOf(pid));
    } catch {
      return; // ended meanwhile
    }
    pin(pid, cpus);
  };
  let restored = false;
  // Interrupted (Ctrl-C, a CI time limit), the machine's PostgreSQL must not stay on half its CPUs.
  const interrupted = (signal: NodeJS.Signals) => {
    restore();
    process.kill(process.pid, signal);
  };
  const restore = () => {
    if (restored) return;
    restored = true;
    process.off("exit", restore);
    process.off("SIGINT", interrupted);
    process.off("SIGTERM", interrupted);
    for (const [pid, cpus] of before) pin(pid, cpus);
    // Backends forked while pinned inherited the database's CPUs: they get the postmaster's original list back.
    const original = postmaster === undefined ? undefined : before.get(postmaster);
    if (original) for (const pid of postgresPids()) if (!before.has(pid)) pin(pid, original);
  };
  process.once("exit", restore);
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);
  try {
    for (const pid of postgres) move(pid, database);
    for (const pid of [...applicationPids, process.pid]) move(pid, application);
  } catch (error) {
    restore();
    throw error;
  }
  return { database, application, restore };
}
