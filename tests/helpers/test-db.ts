import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import pg from "pg";
import { connect, type DbHandle } from "../../db/client.js";
import { openPglite } from "../../db/pglite.js";

/**
 * One fresh, migrated database per test file: restored from the PGlite dump made once by global-setup, or, when
 * DATABASE_URL is set, a PostgreSQL database created from the migrated template database.
 */
/** Unique per test run, so concurrent runs against one PostgreSQL server never clobber each other's template. */
export const templateDbName = (): string => {
  const name = process.env.LPQS_PG_TEMPLATE;
  if (!name) throw new Error("global-setup did not prepare the PostgreSQL template");
  return name;
};

export const usingPostgres = (): boolean => Boolean(process.env.DATABASE_URL);

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export async function openTestDb(): Promise<DbHandle & { url?: string }> {
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
  const handle = await connect(url, "pg");
  return {
    ...handle,
    url,
    close: async () => {
      await handle.close();
      await adminQuery(serverUrl, `drop database if exists ${name} with (force)`);
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
