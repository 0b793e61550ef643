import type { AddressInfo } from "node:net";
import { createConnection } from "node:net";
import { neonConfig } from "@neondatabase/serverless";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { connect, type DbHandle, setDatabase } from "../db/client.js";
import { locationProofs } from "../db/schema.js";
import { loadConfig, setConfig } from "../lib/config.js";
import { createRouter } from "../lib/local/router.js";
import { insertProofs, sampleProofs } from "../lib/local/sample-proofs.js";
import { ROOT } from "./helpers/app.js";
import { openTestDb, usingPostgres } from "./helpers/test-db.js";

// Production talks to Neon through @neondatabase/serverless (WebSocket Pool, which has transactions). Neon's proxy is
// a WebSocket→TCP bridge in front of PostgreSQL; this test puts a small bridge of the same kind in front of the
// machine's PostgreSQL, so the exact driver code path that runs in production is exercised against a real server.
describe.skipIf(!usingPostgres())(
  "the Neon serverless driver (through a WebSocket bridge to PostgreSQL)",
  () => {
    let bridge: WebSocketServer;
    let pgTarget: { host: string; port: number };
    let testDb: DbHandle & { url?: string };
    let neon: DbHandle;

    beforeAll(async () => {
      testDb = await openTestDb();
      const url = new URL(testDb.url!);
      pgTarget = { host: url.hostname, port: Number(url.port || 5432) };
      bridge = new WebSocketServer({ host: "127.0.0.1", port: 0 });
      bridge.on("connection", (ws) => {
        const tcp = createConnection(pgTarget);
        ws.on("message", (data: Buffer) => tcp.write(data));
        tcp.on("data", (data) => ws.send(data));
        ws.on("close", () => tcp.destroy());
        tcp.on("close", () => ws.close());
        tcp.on("error", () => ws.close());
      });
      await new Promise<void>((resolve) => bridge.once("listening", resolve));
      const port = (bridge.address() as AddressInfo).port;
      neonConfig.wsProxy = () => `127.0.0.1:${port}/v1`;
      neonConfig.useSecureWebSocket = false;
      neonConfig.pipelineTLS = false;
      neonConfig.pipelineConnect = false;
      neon = await connect(testDb.url!, "neon");
    });
    afterAll(async () => {
      await neon?.close();
      await testDb?.close();
      await new Promise((resolve) => bridge?.close(resolve));
    });

    it("reads, writes and runs transactions", async () => {
      expect(neon.kind).toBe("neon");
      await insertProofs(neon.db, sampleProofs({ count: 30, seed: 2 }));
      await expect(
        neon.db.transaction(async (tx) => {
          await tx.delete(locationProofs);
          throw new Error("roll back");
        }),
      ).rejects.toThrow("roll back");
      const rows = await neon.db.select().from(locationProofs);
      expect(rows).toHaveLength(30);
    });

    it("serves the API", async () => {
      setConfig(loadConfig({ LOG_LEVEL: "silent", RATE_LIMIT_PER_MINUTE: "0" }));
      setDatabase(neon);
      try {
        const res = await createRouter(ROOT).handle(
          new Request("http://localhost/api/v0/location-proofs?includeRevoked=true&limit=5"),
        );
        expect(res.status).toBe(200);
        const body = (await res.json()) as { pagination: { total: number } };
        expect(body.pagination.total).toBe(30);
      } finally {
        setDatabase(undefined);
        setConfig(undefined);
      }
    });
  },
);
