import { fileURLToPath } from "node:url";
import { afterAll, beforeAll } from "vitest";
import { type DbHandle, setDatabase } from "../../db/client.js";
import type { NewLocationProofRow } from "../../db/schema.js";
import { loadConfig, setConfig } from "../../lib/config.js";
import { createRouter } from "../../lib/local/router.js";
import { insertProofs } from "../../lib/local/sample-proofs.js";
import { recordingRouter } from "./contract.js";
import { openTestDb } from "./test-db.js";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export type TestApp = {
  db: DbHandle["db"];
  handle: DbHandle;
  /** A request through the real routing (the api/ tree and vercel.json), no network. */
  request(path: string, init?: RequestInit): Promise<Response>;
  get(path: string, init?: RequestInit): Promise<{ status: number; headers: Headers; body: any }>;
  /** The CORS preflight a browser on another origin sends before `method` on `path`. */
  preflight(path: string, method: string): Promise<Response>;
  close(): Promise<void>;
};

export const TEST_BASE = "http://localhost:3000";

/** A fresh database and the router over it, with the configuration the test asks for. */
export async function createTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const handle = await openTestDb();
  setConfig(loadConfig({ LOG_LEVEL: "silent", RATE_LIMIT_PER_MINUTE: "0", ...env }));
  setDatabase(handle);
  // Every answer is checked against the API documents after the file (tests/helpers/contract.ts).
  const router = recordingRouter(createRouter(ROOT));
  const request = (path: string, init?: RequestInit) =>
    router.handle(new Request(new URL(path, TEST_BASE), init));
  return {
    db: handle.db,
    handle,
    request,
    async get(path, init) {
      const res = await request(path, init);
      const text = await res.text();
      let body: any = text;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        // not JSON (HTML pages); leave as text
      }
      return { status: res.status, headers: res.headers, body };
    },
    preflight: (path, method) =>
      request(path, {
        method: "OPTIONS",
        headers: { origin: "https://example.org", "access-control-request-method": method },
      }),
    async close() {
      setDatabase(undefined);
      setConfig(undefined);
      await handle.close();
    },
  };
}

/**
 * A test app holding `rows`, opened before the file's tests and closed after them: `use` receives it (a file keeps
 * it in its own `let app`).
 */
export function appWith(rows: NewLocationProofRow[], use: (app: TestApp) => void): void {
  let opened: TestApp | undefined;
  beforeAll(async () => {
    opened = await createTestApp();
    await insertProofs(opened.db, rows);
    use(opened);
  });
  afterAll(() => opened?.close());
}
