import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OffchainAttestationVersion } from "@ethereum-attestation-service/eas-sdk";
import { Wallet } from "ethers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Devnet } from "../../lib/devnet/index.js";
import { removeRecords } from "../../lib/offchain/records.js";
import { ROOT, type TestApp } from "../helpers/app.js";
import { endAfterAll } from "../helpers/fixtures.js";
import {
  jsonOf,
  offchainDevnet,
  offchainOf,
  offchainTestApp,
  publisher,
  recordData,
  OFFCHAIN_SCHEMAS as SCHEMAS,
  signOffchain,
} from "../helpers/offchain.js";

/**
 * Removing published off-chain records is an operator's action (scripts/remove-records.ts over removeRecords): by
 * uid or by attester, on one chain or any, or only listed (a dry run). What goes is gone from every read, and the
 * lists' validators move with it, so no cache keeps a removed record.
 */

// anvil's second default key (a public test key): another attester.
const other = new Wallet("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const LIST = "/api/v0/location-proofs?source=offchain&limit=100";

let devnet: Devnet;
let app: TestApp;
const mine: string[] = [];
let theirs: string;
const signedBodies = new Map<string, string>();

async function publish(wallet: Wallet, lon: number): Promise<string> {
  const signed = await signOffchain(
    offchainOf(devnet, OffchainAttestationVersion.Version2),
    { schema: SCHEMAS.v01, data: recordData("v01", lon, 20) },
    wallet,
  );
  const body = jsonOf(signed);
  const res = await app.get("/api/v0/location-records", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const uid = signed.uid.toLowerCase();
  signedBodies.set(uid, body);
  return uid;
}

beforeAll(async () => {
  devnet = await offchainDevnet();
  app = await offchainTestApp(devnet.rpcUrl);
  mine.push(await publish(publisher, 30), await publish(publisher, 31));
  theirs = await publish(other, 32);
}, 180_000);
endAfterAll(() => [app, devnet]);

const held = async () => {
  const res = await app.get(LIST);
  expect(res.status).toBe(200);
  return {
    uids: (res.body.data as { uid: string }[]).map((r) => r.uid).sort(),
    etag: res.headers.get("etag"),
  };
};

describe("removing off-chain records", () => {
  it("a dry run lists what would go and removes nothing; a uid on another chain matches nothing", async () => {
    const before = await held();
    expect(before.uids).toEqual([...mine, theirs].sort());
    const listed = await removeRecords(app.db, { uids: [mine[0]!] }, true);
    expect(listed).toEqual([
      { chainId: devnet.chainId, uid: mine[0], attester: publisher.address.toLowerCase() },
    ]);
    expect(await removeRecords(app.db, { uids: [mine[0]!], chainId: devnet.chainId + 1 })).toEqual([]);
    expect((await held()).uids).toEqual(before.uids);
  });

  it("removes by uid: gone by uid and from the list, and the list's validator moves", async () => {
    const before = await held();
    expect(before.etag).toBeTruthy();
    const removed = await removeRecords(app.db, { uids: [mine[0]!], chainId: devnet.chainId });
    expect(removed.map((r) => r.uid)).toEqual([mine[0]]);
    expect((await app.get(`/api/v0/location-records/${mine[0]}`)).status).toBe(404);
    const after = await held();
    expect(after.uids).toEqual([mine[1]!, theirs].sort());
    expect(after.etag).not.toBe(before.etag);
    // A cache holding the old answer revalidates it and gets the new one, never a 304.
    const revalidated = await app.get(LIST, { headers: { "if-none-match": before.etag! } });
    expect(revalidated.status).toBe(200);
  });

  it("removes every record of an attester, and no one else's", async () => {
    const removed = await removeRecords(app.db, { attester: other.address.toLowerCase() });
    expect(removed.map((r) => r.uid)).toEqual([theirs]);
    expect((await held()).uids).toEqual([mine[1]]);
  });

  it("never removes everything: a removal names uids or an attester", async () => {
    await expect(removeRecords(app.db, {})).rejects.toThrow(/uids or an attester/);
    await expect(removeRecords(app.db, { uids: [] })).rejects.toThrow(/uids or an attester/);
    expect((await held()).uids).toEqual([mine[1]]);
  });

  it("a removed record can be published again from its signed original", async () => {
    const res = await app.get("/api/v0/location-records", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: signedBodies.get(mine[0]!)!,
    });
    expect(res.status).toBe(201);
    expect((await held()).uids).toEqual([...mine].sort());
  });
});

describe("the script", () => {
  const run = (args: string[], env: Record<string, string | undefined>) =>
    spawnSync(process.execPath, ["--import", "tsx", "scripts/remove-records.ts", ...args], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, ...env },
      timeout: 120_000,
    });

  it.each([
    [[], /usage: npm run remove-records/],
    [["--uids", "0x12"], /attestation UIDs/],
    [["--attester", "nobody"], /an address/],
    [["--uids", `0x${"a".repeat(64)}`, "--attester", `0x${"b".repeat(40)}`], /usage/],
    [["--uids", `0x${"a".repeat(64)}`, "--chain", "atlantis"], /--chain: one of/],
  ])("refuses %j with a message, before opening a database", (args, message) => {
    // Arguments are checked before any database is opened: this one must never be reached.
    const r = run(args as string[], { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(message);
  });

  it("opens the configured database and says what it removed", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "lpqs-remove-records-"));
    try {
      const r = run(["--attester", other.address, "--dry-run"], {
        DATABASE_URL: undefined,
        DATA_DIR: dataDir,
      });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/would remove 0 off-chain record\(s\) in embedded PGlite/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
