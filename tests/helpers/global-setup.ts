import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, MAINTENANCE_BUDGETS } from "../../db/client.js";
import { migrate } from "../../db/migrate.js";
import { openPglite } from "../../db/pglite.js";
import { adminQuery, withDatabase } from "./test-db.js";

/**
 * Migrates once per run: a fresh PGlite takes seconds to initialise and migrate, so it is done once and dumped;
 * every test file restores the dump. With DATABASE_URL, a migrated template database plays the same role.
 */
export default async function setup() {
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl) {
    const TEMPLATE_DB = `lpqs_tpl_${process.pid}_${Date.now().toString(36)}`;
    process.env.LPQS_PG_TEMPLATE = TEMPLATE_DB;
    await adminQuery(serverUrl, `drop database if exists ${TEMPLATE_DB} with (force)`);
    await adminQuery(serverUrl, `create database ${TEMPLATE_DB}`);
    const handle = await connect(withDatabase(serverUrl, TEMPLATE_DB), "pg", MAINTENANCE_BUDGETS);
    await migrate(handle);
    await handle.close();
    return async () => {
      await adminQuery(serverUrl, `drop database if exists ${TEMPLATE_DB} with (force)`);
    };
  }
  const dir = await mkdtemp(join(tmpdir(), "lpqs-pglite-"));
  const handle = await openPglite();
  await migrate(handle);
  const dump = await handle.client.dumpDataDir("none");
  await handle.close();
  const file = join(dir, "template.tar");
  await writeFile(file, Buffer.from(await dump.arrayBuffer()));
  process.env.LPQS_PGLITE_TEMPLATE = file;
  return async () => {
    await rm(dir, { recursive: true, force: true });
  };
}
