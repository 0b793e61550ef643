import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import pg from "pg";
import { connect, type DbHandle } from "../../db/client.js";
import { openPglite } from "../../db/pglite.js";
import { startWsBridge, type WsBridge } from "./ws-bridge.js";

/**
 * One fresh, migrated database per test file: restored from the PGlite dump made once by global-setup, or, when
 * DATABASE_URL is set, a PostgreSQL database created from the migrated template database.
 *
 * With DATABASE_URL, the suites open it with node-postgres; with LPQS_TEST_DB_DRIVER=neon as well, with Neon's
 * serverless driver (the production one) through the WebSocket bridge (tests/helpers/ws-bridge.ts), so the same
 * suites run once more the way a deployment reads: CI's Neon pass.
 */
/** Unique per test run, so concurrent runs against one PostgreSQL server never clobber each other's template. */
export const templateDbName = (): string => {
  const name = process.env.LPQS_PG_TEMPLATE;
  if (!name) throw new Error("global-setup did not prepare the PostgreSQL template");
  return name;
};

export const usingPostgres = (): boolean => Boolean(process.env.DATABASE_URL);

/** The driver the suites open PostgreSQL with: node-postgres, or Neon's (LPQS_TEST_DB_DRIVER=neon). */
export const testDriver = (): "pg" | "neon" => {
  const driver = process.env.LPQS_TEST_DB_DRIVER ?? "pg";
  if (driver !== "pg" && driver !== "neon") throw new Error("LPQS_TEST_DB_DRIVER must be pg or neon");
  return driver;
};

/** The test database: `url` reaches it directly (for admin work), `serviceEnv` is how a service process reaches it. */
export type TestDb = DbHandle & { url?: string; serviceEnv?: Record<string, string> };

/** One bridge per process, shared by the databases open through it and closed with the last of them. */
let bridge: { started: Promise<WsBridge>; users: number } | undefined;

async function viaBridge(serverUrl: string): Promise<{ bridge: WsBridge; release(): Promise<void> }> {
  if (!bridge) {
    const u = new URL(serverUrl);
    bridge = { started: startWsBridge({ host: u.hostname, port: Number(u.port || 5432) }), users: 0 };
  }
  const shared = bridge;
  shared.users++;
  return {
    bridge: await shared.started,
    release: async () => {
      if (--shared.users > 0) return;
      if (bridge === shared) bridge = undefined;
      await (await shared.started).close();
    },
  };
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export async function openTestDb(): Promise<TestDb> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const dump = process.env.LPQS_PGLITE_TEMPLATE;
    if (!dump) throw new Error("global-setup did not prepare the PGlite template");
    const blob = new Blob([await readFile(dump)]);
    return openPglite({ loadDataDir: blob });
  }
  const name = `lpqs_test_${randomBytes(6).toString("hex")}`;
  await adminQuery(serverUrl, `create database ${name} template ${templateDbName()}`);
  const url = withDatabase(serverUrl, name);
  const drop = () => adminQuery(serverUrl, `drop database if exists ${name} with (force)`);
  if (testDriver() === "pg") {
    const handle = await connect(url, "pg");
    return {
      ...handle,
      url,
      serviceEnv: { DATABASE_URL: url },
      close: async () => {
        await handle.close();
        await drop();
      },
    };
  }
  const neon = await viaBridge(serverUrl);
  const neonUrl = neon.bridge.via(url);
  const handle = await connect(neonUrl, "neon");
  return {
    ...handle,
    url,
    serviceEnv: { DATABASE_URL: neonUrl, DATABASE_DRIVER: "neon", ...neon.bridge.env },
    close: async () => {
      await handle.close();
      await neon.release();
      await drop();
    },
  };
}

export async function adminQuery(serverUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
