import { afterAll } from "vitest";

/** What a test file starts and ends: an app, a proxy or a server (close), a devnet (stop), sync workers (dispose). */
type Started = { dispose(): Promise<unknown> } | { close(): Promise<unknown> } | { stop(): Promise<unknown> };

/**
 * Ends what the file (or the describe block) started, after its tests, one after the other in the order given: the
 * app before the chain it reads. One that never started (a beforeAll that failed first) is passed over.
 */
export function endAfterAll(started: () => (Started | undefined)[]): void {
  afterAll(async () => {
    for (const s of started()) {
      if (!s) continue;
      if ("dispose" in s) await s.dispose();
      else if ("close" in s) await s.close();
      else await s.stop();
    }
  });
}
