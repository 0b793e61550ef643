import { spawn } from "node:child_process";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client.js";
import { LOCATION_SCHEMA_UID } from "../../lib/chains/schema.js";
import { attest } from "../../lib/devnet/eas.js";
import type { Devnet } from "../../lib/devnet/index.js";
import { type ProtocolSeed, protocolRecords, seedLocationProtocol } from "../../lib/devnet/protocol-seed.js";
import { type RpcProxy, startRpcProxy } from "../../lib/devnet/rpc-proxy.js";
import { DEVNET_SCHEMA_UIDS, DEVNET_SCHEMAS, encodeRecord } from "../../lib/devnet/schemas.js";
import { seedDevnet } from "../../lib/devnet/seed.js";
import { mine, startTestDevnet } from "../helpers/anvil.js";
import { createTestApp, ROOT, type TestApp } from "../helpers/app.js";
import { chainTruth } from "../helpers/chain-truth.js";
import { endAfterAll } from "../helpers/fixtures.js";
import { shareDb } from "../helpers/shared-db.js";
import { devnetSyncConfig, syncService } from "../helpers/sync-service.js";

/**
 * What an operator decides (SCHEMA_MODE, SCHEMA_ALLOW, SCHEMA_DENY) and backfilling a new source alone: a denied
 * schema is not indexed and its rows go; allowed again, it is backfilled alone — the chain's cursor and the other
 * schemas' rows untouched, its own eth_getLogs naming it only — and then joins the chain's stream; "known schemas
 * only"; a schema that is not the protocol's, allowed by UID; and `npm run backfill -- <chain> --schema <uid>`.
 */
let devnet: Devnet;
let app: TestApp;
let proxy: RpcProxy;
let lp: ProtocolSeed;
/** the schemas (topic 3) each EAS eth_getLogs asked for */
const asked: string[][] = [];
const { appendix, dart, sdk, review } = DEVNET_SCHEMA_UIDS;
/** the fields of the seed's first record of a schema, written again */
const recordOf = (name: "appendix" | "review") =>
  encodeRecord(DEVNET_SCHEMAS[name], protocolRecords().find((r) => r.schema === name)!.fields);

const service = (env: Record<string, string> = {}) =>
  syncService(app, { config: devnetSyncConfig(proxy.url, env) });
const sync = async (env: Record<string, string> = {}) => (await service(env).sync("manual")).chains[0]!;

const rowsOf = async (uid: string) =>
  (
    await queryRows<{ n: number }>(
      app.db,
      sql`select count(*)::int as n from location_proofs where schema_uid = ${uid}`,
    )
  )[0]!.n;
const stateOf = async (uid: string) =>
  (
    await queryRows<{ state: string }>(
      app.db,
      sql`select state from chain_schemas where chain_id = ${devnet.chainId} and uid = ${uid}`,
    )
  )[0]?.state;
const cursor = async () =>
  Number((await queryRows<{ c: string }>(app.db, sql`select cursor_block::text as c from sync_state`))[0]!.c);
/** Every row but one schema's, as text: what "untouched" means. */
const othersChecksum = async (uid: string) =>
  (
    await queryRows<{ h: string }>(
      app.db,
      sql`select md5(coalesce(string_agg(t::text, '|' order by t.uid), '')) as h
            from (select uid, schema_uid, revoked, longitude, indexed_at from location_proofs where schema_uid <> ${uid}) t`,
    )
  )[0]!.h;

beforeAll(async () => {
  devnet = await startTestDevnet();
  await seedDevnet(devnet.rpcUrl, devnet.eas);
  lp = await seedLocationProtocol(devnet.rpcUrl, devnet);
  await mine(devnet.rpcUrl, 3);
  const eas = devnet.eas.toLowerCase();
  proxy = await startRpcProxy({
    target: devnet.rpcUrl,
    intercept: (call) => {
      const filter = call.params?.[0] as { address?: string | string[]; topics?: unknown[] } | undefined;
      const addresses = [filter?.address ?? []].flat().map((a) => a.toLowerCase());
      if (call.method === "eth_getLogs" && addresses.includes(eas)) {
        // A run near the head reads the SchemaRegistry and EAS together, every schema (lib/sync/logs.ts getTailLogs):
        // recorded as ["*"]; the stream's own ranges and the backfills name their schemas.
        asked.push(addresses.length > 1 ? ["*"] : ([filter?.topics?.[3] ?? []].flat() as string[]));
      }
      return undefined;
    },
  });
  app = await createTestApp({ CHAINS: "devnet", RPC_URL_DEVNET: proxy.url });
}, 120_000);
endAfterAll(() => [app, proxy, devnet]);

describe("the operator's schema decisions", () => {
  it("a denied schema is not indexed (it is remembered as off); the others are", async () => {
    const run = await sync({ SCHEMA_DENY: appendix });
    expect(run.status).toBe("ok");
    expect(await rowsOf(appendix)).toBe(0);
    expect(await stateOf(appendix)).toBe("off");
    expect(await rowsOf(dart)).toBe(lp.bySchema.dart.length);
    expect(await rowsOf(sdk)).toBe(lp.bySchema.sdk.length);
    // The chain's stream asked for the indexed schemas, never for the denied one (nor the review schema).
    expect(asked.flat()).not.toContain(appendix);
    expect(asked.flat()).not.toContain(review);
  });

  it("allowed again, it is backfilled alone, then joins the chain's stream; nothing else moves", async () => {
    const before = { cursor: await cursor(), others: await othersChecksum(appendix) };
    asked.length = 0;
    const run = await sync();
    expect(run.status).toBe("ok");
    expect(run.schemas).toMatchObject({ backfilled: lp.bySchema.appendix.length, joined: [appendix] });
    expect(await rowsOf(appendix)).toBe(lp.bySchema.appendix.length);
    expect(await stateOf(appendix)).toBe("live");
    expect(await cursor()).toBe(before.cursor);
    expect(await othersChecksum(appendix)).toBe(before.others);
    // Its backfill read its own events only.
    expect(asked.filter((topics) => topics.includes(appendix))).toEqual(expect.arrayContaining([[appendix]]));
    // And the next run reads it with the others: near the head, one request over every schema (["*"]), of which the
    // run keeps the live ones: a new attestation of the schema and one of another are both indexed.
    asked.length = 0;
    const written = await attest(devnet.rpcUrl, devnet.eas, [{ data: recordOf("appendix") }], {
      schemaUid: appendix,
    });
    const reviewed = await attest(devnet.rpcUrl, devnet.eas, [{ data: recordOf("review") }], {
      schemaUid: review,
    });
    await mine(devnet.rpcUrl, 3);
    const next = await sync();
    expect(asked).toEqual([["*"]]);
    expect(next.attestations).toBe(1);
    expect(await rowsOf(appendix)).toBe(lp.bySchema.appendix.length + 1);
    expect(await rowsOf(review)).toBe(0);
    lp.bySchema.appendix.push(...written);
    lp.bySchema.review.push(...reviewed);
  });

  it("denied again, its rows are removed", async () => {
    const run = await sync({ SCHEMA_DENY: appendix });
    expect(run.schemas.rows_removed).toBe(lp.bySchema.appendix.length);
    expect(await rowsOf(appendix)).toBe(0);
  });

  it("known schemas only: v0.1 and the allowed UIDs; a schema that is not the protocol's keeps all its fields", async () => {
    const run = await sync({ SCHEMA_MODE: "known", SCHEMA_ALLOW: review });
    expect(run.status).toBe("ok");
    for (const uid of [appendix, dart, sdk]) expect(await rowsOf(uid)).toBe(0);
    expect(await rowsOf(LOCATION_SCHEMA_UID)).toBeGreaterThan(0);
    expect(await rowsOf(review)).toBe(lp.bySchema.review.length);
    const [r] = await queryRows<Record<string, unknown>>(
      app.db,
      sql`select protocol_version, location, location_type_normalized, decode_warning, application_fields
            from location_proofs where uid = ${lp.uids["review 1"]!.toLowerCase()}`,
    );
    expect(r).toMatchObject({
      protocol_version: null,
      location: "Café de Flore, Paris",
      location_type_normalized: null,
      decode_warning: "no location type was given",
      application_fields: { comment: "good", rating: "5" },
    });
  });

  it("back to discovery: every location schema indexed again, exactly the chain's", async () => {
    const run = await sync();
    expect(run.status).toBe("ok");
    expect(await rowsOf(review)).toBe(0);
    const truth = await chainTruth(devnet.rpcUrl, devnet.eas);
    const [n] = await queryRows<{ n: number }>(app.db, sql`select count(*)::int as n from location_proofs`);
    expect(n!.n).toBe(truth.size);
  });
});

describe("rows of an older decoder", () => {
  it("are decoded again from their stored data by the next run, no RPC needed for them", async () => {
    const snapshot = () =>
      queryRows(
        app.db,
        sql`select uid, protocol_version, lp_version, location_type_normalized, application_fields, decode_warning,
              longitude, latitude, memo from location_proofs order by uid`,
      );
    const expected = await snapshot();
    // What rows indexed before this decoder look like: its columns unset, the decoder version 1 (the migration's).
    await app.db.execute(
      sql`update location_proofs set decoder_version = 1, protocol_version = '0.1', lp_version = null,
            location_type_normalized = null, application_fields = null, decode_warning = null`,
    );
    const run = await sync();
    expect(run.status).toBe("ok");
    expect(run.schemas.redecoded).toBe(expected.length);
    expect(await snapshot()).toEqual(expected);
    expect((await sync()).schemas.redecoded).toBe(0);
  });
});

describe("npm run backfill -- <chain> --schema <uid>", () => {
  it("re-indexes one schema alone, from its registration up to the chain's cursor", {
    timeout: 120_000,
  }, async () => {
    const shared = await shareDb(app);
    try {
      await app.db.execute(sql`delete from location_proofs where schema_uid = ${dart}`);
      const before = { cursor: await cursor(), others: await othersChecksum(dart) };
      const code = await new Promise<number>((resolve) => {
        const child = spawn(
          process.execPath,
          ["--import", "tsx", "scripts/backfill.ts", "devnet", "--schema", dart],
          {
            cwd: ROOT,
            env: {
              PATH: process.env.PATH ?? "",
              HOME: process.env.HOME ?? "",
              DATABASE_URL: shared.url,
              CHAINS: "devnet",
              RPC_URL_DEVNET: devnet.rpcUrl,
              LOG_LEVEL: "silent",
            },
            stdio: ["ignore", "pipe", "inherit"],
          },
        );
        child.on("exit", (c) => resolve(c ?? 1));
      });
      await shared.settled();
      expect(code).toBe(0);
      expect(await rowsOf(dart)).toBe(lp.bySchema.dart.length);
      expect(await stateOf(dart)).toBe("live");
      expect(await cursor()).toBe(before.cursor);
      expect(await othersChecksum(dart)).toBe(before.others);
      const [run] = await queryRows<{ trigger: string; status: string }>(
        app.db,
        sql`select trigger, status from sync_runs order by id desc limit 1`,
      );
      expect(run).toEqual({ trigger: "backfill", status: "ok" });
    } finally {
      await shared.stop();
    }
  });
});
