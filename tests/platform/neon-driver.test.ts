import { neonConfig } from "@neondatabase/serverless";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type DbHandle, setDatabase } from "../../db/client.js";
import { locationProofs } from "../../db/schema.js";
import { loadConfig, setConfig } from "../../lib/config.js";
import { createRouter } from "../../lib/local/router.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { ROOT } from "../helpers/app.js";
import { recordingRouter } from "../helpers/contract.js";
import { openTestDb, usingPostgres } from "../helpers/test-db.js";
import { startWsBridge, type WsBridge } from "../helpers/ws-bridge.js";

// The production driver against a real server, through a WebSocket bridge like Neon's (tests/helpers/ws-bridge.ts).
describe.skipIf(!usingPostgres())(
  "the Neon serverless driver (through a WebSocket bridge to PostgreSQL)",
  () => {
    let bridge: WsBridge;
    let testDb: DbHandle & { url?: string };
    let neon: DbHandle;

    beforeAll(async () => {
      testDb = await openTestDb();
      const url = new URL(testDb.url!);
      bridge = await startWsBridge({ host: url.hostname, port: Number(url.port || 5432) });
      neon = await connect(bridge.via(testDb.url!), "neon");
    });
    afterAll(async () => {
      await neon?.close();
      await testDb?.close();
      await bridge?.close();
    });

    it("runs with the driver's production settings (TLS WebSocket on 443, pipelined password), checked by the endpoint", async () => {
      // Nothing but the WebSocket class (the `ws` production uses, trusting the bridge's certificate) is configured.
      expect(neonConfig.useSecureWebSocket).toBe(true);
      expect(neonConfig.pipelineConnect).toBe("password");
      expect(neonConfig.pipelineTLS).toBe(false);
      expect(neonConfig.coalesceWrites).toBe(true);
      expect(neonConfig.wsProxy).toBeTypeOf("function");
      expect((neonConfig.wsProxy as (host: string, port: number) => string)(bridge.host, 5432)).toBe(
        `${bridge.host}/v2`,
      );
      // The endpoint checks the password the driver sends, as Neon's does.
      const wrong = new URL(bridge.via(testDb.url!));
      wrong.password = "not-the-password";
      const refused = await connect(wrong.toString(), "neon");
      try {
        await expect(refused.db.execute(sql`select 1`)).rejects.toMatchObject({
          cause: { code: "28P01" },
        });
      } finally {
        await refused.close();
      }
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
        const res = await recordingRouter(createRouter(ROOT)).handle(
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
