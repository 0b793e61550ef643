import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Cron } from "croner";
import { log } from "../log.js";

/**
 * Runs the vercel.json crons in-process the way the platform does: an HTTP GET of the path with
 * `Authorization: Bearer $CRON_SECRET` (no header when no secret is configured; the call comes from loopback).
 */
export function startCrons(options: { root: string; baseUrl: string; cronSecret?: string }): {
  stop(): void;
} {
  const vercel = JSON.parse(readFileSync(join(options.root, "vercel.json"), "utf8")) as {
    crons?: { path: string; schedule: string }[];
  };
  const jobs = (vercel.crons ?? []).map(
    ({ path, schedule }) =>
      new Cron(schedule, { protect: true }, async () => {
        await callCron(options.baseUrl, path, options.cronSecret);
      }),
  );
  return {
    stop: () => {
      for (const job of jobs) job.stop();
    },
  };
}

export async function callCron(baseUrl: string, path: string, cronSecret?: string): Promise<void> {
  const started = performance.now();
  try {
    const res = await fetch(new URL(path, baseUrl), {
      headers: cronSecret ? { authorization: `Bearer ${cronSecret}` } : {},
    });
    await res.arrayBuffer();
    log(res.ok ? "info" : "warn", "cron", {
      path,
      status: res.status,
      ms: Math.round(performance.now() - started),
    });
  } catch (error) {
    log("error", "cron failed", { path, error: error instanceof Error ? error.message : String(error) });
  }
}
