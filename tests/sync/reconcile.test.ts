import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client.js";
import { attest, revoke } from "../../lib/devnet/eas.js";
import type { Devnet } from "../../lib/devnet/index.js";
import { encodeLocationProof } from "../../lib/devnet/location-data.js";
import { RECONCILE_PAGE } from "../../lib/sync/revocations.js";
import { AUTH, mine, oneDevnet, startTestDevnet } from "../helpers/anvil.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { endAfterAll } from "../helpers/fixtures.js";
import { syncService } from "../helpers/sync-service.js";

/** Proofs per reconciliation page here: a pass over the file's proofs takes several calls. */
const PAGE = 10;
const PROOFS = 35;

let devnet: Devnet;
let app: TestApp;
let uids: string[] = [];

const service = (options: Record<string, unknown> = {}) =>
  syncService(app, {
    // A budget of nothing: each call checks exactly one page (every call checks at least one).
    options: { reconcilePageSize: PAGE, timeBudgetMs: 0, ...options },
  });
const reconciliation = (body: { chains: { chain: string; reconciliation: unknown }[] }) =>
  body.chains.find((c) => c.chain === "devnet")!.reconciliation as Record<string, unknown>;
const proof = async (uid: string) =>
  (
    await queryRows<{ revoked: boolean; revocation_block_number: string | null }>(
      app.db,
      sql`select revoked, revocation_block_number from location_proofs where uid = ${uid}`,
    )
  )[0];

beforeAll(async () => {
  devnet = await startTestDevnet();
  app = await createTestApp(oneDevnet(devnet.rpcUrl, { CONFIRMATIONS_DEVNET: "0" }));
  const data = encodeLocationProof({ locationType: "DecimalDegrees<string>", location: "1.5, 2.5" });
  uids = (
    await attest(
      devnet.rpcUrl,
      devnet.eas,
      Array.from({ length: PROOFS }, () => ({ data })),
    )
  ).map((u) => u.toLowerCase());
  await mine(devnet.rpcUrl, 1);
  expect((await service({ timeBudgetMs: 30_000 }).sync("manual")).chains[0]).toMatchObject({
    status: "ok",
    attestations: PROOFS,
  });
});
endAfterAll(() => [app, devnet]);

describe("revocation reconciliation continues where it stopped", () => {
  it("reaches the last uid across calls, records the revocation block, and status shows the pass", async () => {
    // A revocation the index missed (a gap): revoked on chain, not in the database; its uid is the highest.
    const last = [...uids].sort().at(-1)!;
    await revoke(devnet.rpcUrl, devnet.eas, [last as `0x${string}`]);
    await app.db.execute(
      sql`update location_proofs set revoked = false, revocation_time = null where uid = ${last}`,
    );
    const calls = [];
    for (let i = 0; i < 10; i++) {
      const r = (await service().reconcile(["devnet"])).chains[0]!;
      calls.push(r);
      if (i === 0) {
        const status = await app.get("/api/sync/status", { headers: AUTH });
        expect(reconciliation(status.body)).toMatchObject({
          in_pass: true,
          checked_in_pass: PAGE,
          remaining: PROOFS - PAGE,
          // The app's status knows its own page size (the default), not this file's smaller one.
          page_size: RECONCILE_PAGE,
          calls_left_at_most: Math.ceil((PROOFS - PAGE) / RECONCILE_PAGE),
        });
      }
      if (r.complete) break;
    }
    // ceil(35 / 10) = 4 pages: the documented bound, each call one page here.
    expect(calls.length).toBe(Math.ceil(PROOFS / PAGE));
    expect(calls.reduce((n, c) => n + c.checked, 0)).toBe(PROOFS);
    expect(calls.reduce((n, c) => n + c.changed, 0)).toBe(1);
    const row = await proof(last);
    expect(row!.revoked).toBe(true);
    expect(row!.revocation_block_number).not.toBeNull();
    const status = await app.get("/api/sync/status", { headers: AUTH });
    // The next pass: every non-revoked proof.
    expect(reconciliation(status.body)).toMatchObject({
      in_pass: false,
      checked_in_pass: 0,
      remaining: PROOFS - 1,
      calls_left_at_most: Math.ceil((PROOFS - 1) / RECONCILE_PAGE),
    });
    expect(reconciliation(status.body).last_completed_at).not.toBeNull();
  });

  it("writes nothing while another writer holds the chain's lease", async () => {
    const last = [...uids].sort().at(-1)!;
    await app.db.execute(
      sql`update location_proofs set revoked = false, revocation_time = null where uid = ${last}`,
    );
    await app.db.execute(
      sql`update sync_state set lease_owner = 'someone else', lease_expires_at = now() + interval '1 minute'`,
    );
    const r = (await service().reconcile(["devnet"])).chains[0]!;
    expect(r).toMatchObject({ status: "skipped", checked: 0, changed: 0 });
    expect((await proof(last))!.revoked).toBe(false);
    await app.db.execute(sql`update sync_state set lease_owner = null, lease_expires_at = null`);
  });
});

describe("a pass whose proofs fill its last page exactly", () => {
  it("ends with that page: ceil(N / page size) calls, not one more", async () => {
    const [{ n }] = (await queryRows<{ n: number }>(
      app.db,
      sql`select count(*)::int as n from location_proofs where revoked = false`,
    )) as [{ n: number }];
    // A page size that divides the proofs to check into several full pages.
    const page = Array.from({ length: n }, (_, i) => i + 2).find((d) => n % d === 0 && d < n);
    expect(page, `a divisor of ${n}`).toBeDefined();
    const calls = [];
    for (let i = 0; i < n; i++) {
      const r = (await service({ reconcilePageSize: page }).reconcile(["devnet"])).chains[0]!;
      calls.push(r);
      if (r.complete) break;
    }
    expect(calls.map((c) => c.checked)).toEqual(Array.from({ length: n / page! }, () => page));
    expect(calls.at(-1)!.complete).toBe(true);
  });
});
