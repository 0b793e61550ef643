import type { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import type { TestApp } from "./app.js";
import { usingPostgres } from "./test-db.js";

/**
 * The test's database as a child process can reach it, for tests that kill a writer of their own (SIGKILL, a real
 * one): on the PostgreSQL pass the test's database; on the embedded pass the test's in-memory PGlite, served over
 * PostgreSQL's wire protocol by @electric-sql/pglite-socket (the child connects with node-postgres, as to a server).
 */
export async function shareDb(
  app: TestApp,
): Promise<{ url: string; settled(): Promise<void>; stop(): Promise<void> }> {
  const url = (app.handle as { url?: string }).url;
  if (usingPostgres()) return { url: url!, settled: async () => {}, stop: async () => {} };
  const client = (app.handle as unknown as { client: PGlite }).client;
  const server = new PGLiteSocketServer({ db: client, host: "127.0.0.1", port: 0, maxConnections: 16 });
  await server.start();
  const address = (server as unknown as { server: { address(): { port: number } } }).server.address();
  return {
    url: `postgres://postgres@127.0.0.1:${address.port}/postgres`,
    /**
     * PGlite is one session: the socket server rolls a dead client's open transaction back when it notices the
     * closed socket. Wait for that before the test's own statements, which would otherwise run inside it.
     */
    settled: async () => {
      const deadline = Date.now() + 10_000;
      while (client.isInTransaction()) {
        if (Date.now() > deadline) throw new Error("the killed client's transaction was never rolled back");
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    stop: () => server.stop(),
  };
}
