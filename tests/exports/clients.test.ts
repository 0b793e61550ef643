import { execFile } from "node:child_process";
import { request as httpRequest } from "node:http";
import type { Server } from "node:net";
import { setTimeout as delay } from "node:timers/promises";
import { promisify } from "node:util";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, setConfig } from "../../lib/config.js";
import { serve } from "../../lib/local/http-server.js";
import { createRouter } from "../../lib/local/router.js";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import { appWith, ROOT, TEST_BASE, type TestApp } from "../helpers/app.js";
import { usingPostgres } from "../helpers/test-db.js";

// Downloads read by outside clients over HTTP, from the local server (which streams a body as Vercel's Node runtime
// does): GDAL straight from the URL, and a client that goes away in the middle.
//
// GDAL reads them through /vsicurl_streaming/, the sequential twin of /vsicurl/: /vsicurl/ is a random-access file
// system that needs the file's size (Content-Length) and range requests, which a body generated as it is sent has
// not (GDAL then reports "HEAD did not provide file size" and opens nothing).

const run = promisify(execFile);
let app: TestApp;
let server: Server;
let base = "";
// Enough rows that a download outgrows the socket buffers between the server and a client that stops reading.
const rows = sampleProofs({
  count: Number(process.env.LPQS_EXPORT_TEST_ROWS ?? 8000),
  seed: 3737,
  now: new Date("2025-06-01T00:00:00Z"),
});
appWith(rows, (a) => {
  app = a;
});

beforeAll(async () => {
  const started = await serve(createRouter(ROOT), 0);
  server = started.server;
  base = started.url;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

const ITEMS = "/api/ogc/collections/location-proofs/items";

async function harvest(query: string): Promise<string[]> {
  const ids: string[] = [];
  let url: string | null = `${ITEMS}?limit=1000&${query}`;
  while (url) {
    const res = await app.get(url.replace(TEST_BASE, ""));
    ids.push(...res.body.features.map((f: { id: string }) => f.id));
    url = res.body.links.find((l: { rel: string }) => l.rel === "next")?.href ?? null;
  }
  return ids;
}

const hasGdal = await run("ogrinfo", ["--version"]).then(
  () => true,
  () => false,
);

describe.skipIf(!hasGdal && !process.env.CI)("GDAL reads each download straight from its URL", () => {
  const query = "bbox=-20,-40,80,60&chain=base,sepolia";
  for (const [f, driver, options] of [
    ["fgb", "", []],
    ["csv", "CSV:", ["-oo", "GEOM_POSSIBLE_NAMES=geometry", "-oo", "KEEP_GEOM_COLUMNS=NO"]],
    ["geojsonseq", "GeoJSONSeq:", []],
  ] as const) {
    it(`${f}: the same features as a harvest of the items, in the same order`, async () => {
      const expected = await harvest(query);
      const url = `${driver}/vsicurl_streaming/${base}${ITEMS}?f=${f}&${query}`;
      const { stdout } = await run("ogrinfo", ["-ro", "-al", "-q", ...options, url], {
        maxBuffer: 1 << 28,
        env: { ...process.env, GDAL_HTTP_TIMEOUT: "60" },
      }).catch((error: { stderr?: string; message: string }) => {
        throw new Error(`${error.message}\n${error.stderr ?? ""}`);
      });
      const ids = [...stdout.matchAll(/^\s+id \(String\) = (0x[0-9a-f]{64})$/gm)].map((m) => m[1]);
      expect(ids.length).toBe(expected.length);
      expect(ids).toEqual(expected);
      // Every feature with coordinates has its point (in CSV from the WKT column).
      const points = [...stdout.matchAll(/^\s+POINT \(/gm)].length;
      const located = [...stdout.matchAll(/^\s+longitude \(\w+\) = -?\d/gm)].length;
      expect(points).toBe(located);
      expect(points).toBeGreaterThan(0);
    }, 120_000);
  }
});

/** Active statements on the proofs, other than this one's (PostgreSQL only). */
async function activeProofQueries(): Promise<number> {
  const result = await app.db.execute(
    sql`select count(*)::int as n from pg_stat_activity where state = 'active' and pid <> pg_backend_pid() and query ilike '%location_proofs%' and datname = current_database()`,
  );
  return (result as unknown as { rows: { n: number }[] }).rows[0]!.n;
}

describe("a client that goes away", () => {
  it("stops the download's database work: the stream is cancelled and no statement keeps running", async () => {
    const lines: string[] = [];
    setConfig(loadConfig({ LOG_LEVEL: "info", RATE_LIMIT_PER_MINUTE: "0" }));
    // Many small batches, so that most of the download is still to be read when the client goes.
    process.env.EXPORT_BATCH_ROWS = "100";
    // The export's log line (lib/exports/response.ts): a cancelled one is a warning, on stderr.
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const text = String(chunk);
      if (text.includes('"msg":"export"')) lines.push(text);
      return (write as (c: unknown, ...r: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stderr.write;
    try {
      let received = 0;
      await new Promise<void>((resolve, reject) => {
        const req = httpRequest(`${base}${ITEMS}?f=geojsonseq`, (res) => {
          expect(res.statusCode).toBe(200);
          res.on("data", (chunk: Buffer) => {
            received += chunk.length;
            // Gone after the first bytes, mid-download.
            if (received > 0) {
              req.destroy();
              resolve();
            }
          });
          res.on("error", () => {});
        });
        req.on("error", () => {});
        req.on("close", () => resolve());
        setTimeout(() => reject(new Error("no bytes")), 30_000).unref();
        req.end();
      });
      // The server notices the closed socket, cancels the body, and the batches end after the statement in flight.
      for (let i = 0; i < 100 && !lines.length; i++) await delay(50);
      expect(lines).toHaveLength(1);
      const entry = JSON.parse(lines[0]!);
      expect(entry.outcome).toBe("cancelled");
      expect(entry.rows).toBeLessThan(entry.expected);
      if (usingPostgres()) {
        let active = await activeProofQueries();
        for (let i = 0; i < 40 && active > 0; i++) {
          await delay(50);
          active = await activeProofQueries();
        }
        expect(active).toBe(0);
      }
      // Nothing more is logged: no later batch ran to completion.
      await delay(500);
      expect(lines).toHaveLength(1);
    } finally {
      process.stderr.write = write;
      delete process.env.EXPORT_BATCH_ROWS;
      setConfig(loadConfig({ LOG_LEVEL: "silent", RATE_LIMIT_PER_MINUTE: "0" }));
    }
  });
});
