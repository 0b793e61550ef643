import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client.js";
import { locationProofs } from "../../db/schema.js";
import { LOCATION_SCHEMA_UID } from "../../lib/chains/schema.js";
import { DEVNET_SCHEMA_UIDS } from "../../lib/devnet/schemas.js";
import {
  loadSyntheticProofs,
  SYNTHETIC_CHAINS,
  syntheticAddress,
  syntheticUids,
} from "../../lib/local/synthetic-proofs.js";
import { locationColumns } from "../../lib/location/columns.js";
import { decodeLocation } from "../../lib/location/decode.js";
import { countProofs } from "../../lib/proofs/count.js";
import { countFromTotals } from "../../lib/proofs/totals.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

// The synthetic data set of `npm run db:seed -- --synthetic N` and `npm run bench:scale`, generated in SQL: every
// row must be what indexing its attestation would store, and the distributions what the generator promises.
let app: TestApp;
const COUNT = 6000;
const END = new Date("2026-01-01T00:00:00Z");

beforeAll(async () => {
  app = await createTestApp();
  expect(await loadSyntheticProofs(app.db, { count: COUNT, end: END, batch: 2500 })).toBe(COUNT);
}, 120_000);
afterAll(() => app.close());

describe("synthetic proofs", () => {
  it("store exactly the location columns the indexer's decoder derives from their location", async () => {
    const rows = await app.db.select().from(locationProofs);
    expect(rows).toHaveLength(COUNT);
    const kinds = new Map<string, number>();
    for (const r of rows) {
      const decoded = locationColumns(decodeLocation(r));
      expect(
        {
          geometry: r.geometry,
          longitude: r.longitude,
          latitude: r.latitude,
          minLon: r.minLon,
          minLat: r.minLat,
          maxLon: r.maxLon,
          maxLat: r.maxLat,
          locationTypeNormalized: r.locationTypeNormalized,
          decodeWarning: r.decodeWarning,
        },
        r.location ?? "",
      ).toEqual(decoded);
      const kind = r.geometry ? `${r.geometry.type}${r.minLon! > r.maxLon! ? " crossing" : ""}` : "none";
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    // Every kind is there, in about the promised shares.
    const share = (k: string) => (kinds.get(k) ?? 0) / COUNT;
    expect(share("none")).toBeGreaterThan(0.03);
    expect(share("none")).toBeLessThan(0.07);
    expect(share("Point")).toBeGreaterThan(0.75);
    expect(share("Polygon")).toBeGreaterThan(0.07);
    expect(share("LineString")).toBeGreaterThan(0.02);
    expect(share("MultiPoint")).toBeGreaterThan(0.01);
    expect(kinds.get("LineString crossing")).toBeGreaterThan(0);
  });

  it("have valid addresses, Zipf-distributed provers, revocations, and some proofs without an event time", async () => {
    const [stats] = await queryRows<Record<string, string | number>>(
      app.db,
      sql`select count(*) filter (where prover !~ '^0x[0-9a-f]{40}$' or subject !~ '^0x[0-9a-f]{40}$') as bad,
        count(*) filter (where uid !~ '^0x[0-9a-f]{64}$' or tx_hash !~ '^0x[0-9a-f]{64}$') as bad_hashes,
        count(distinct prover) as provers,
        count(*) filter (where prover = ${syntheticAddress("p", 1)}) as top,
        count(*) filter (where prover = subject) as self,
        count(*) filter (where revoked) as revoked,
        count(*) filter (where revoked and (revocation_time is null or revocation_time < attestation_time)) as bad_revoked,
        count(*) filter (where event_timestamp is null) as no_time,
        count(*) filter (where event_timestamp > attestation_time or attestation_time > ${END.toISOString()}::timestamptz) as bad_times,
        count(*) filter (where event_timestamp >= ${END.toISOString()}::timestamptz - interval '365 days') as last_year
      from location_proofs`,
    );
    const n = (k: string) => Number(stats![k]);
    expect(n("bad")).toBe(0);
    expect(n("bad_hashes")).toBe(0);
    expect(n("bad_revoked")).toBe(0);
    expect(n("bad_times")).toBe(0);
    // Zipf over 20,000 provers: the top one attests ~7% (1/ln 20000), and the many others a few proofs each.
    expect(n("top") / COUNT).toBeGreaterThan(0.05);
    expect(n("top") / COUNT).toBeLessThan(0.09);
    expect(n("provers")).toBeGreaterThan(1500);
    expect(n("self") / COUNT).toBeGreaterThan(0.55);
    expect(n("revoked") / COUNT).toBeGreaterThan(0.02);
    expect(n("revoked") / COUNT).toBeLessThan(0.04);
    // 2% without one, and the appendix schema's 2%, which has no event time field.
    expect(n("no_time") / COUNT).toBeGreaterThan(0.025);
    expect(n("no_time") / COUNT).toBeLessThan(0.055);
    // Activity grows: the last of the two years holds three quarters of the proofs.
    expect(n("last_year") / COUNT).toBeGreaterThan(0.7);
    const chains = await queryRows<{ chain: string; chain_id: number; n: string | number }>(
      app.db,
      sql`select chain, chain_id, count(*) as n from location_proofs group by 1, 2`,
    );
    for (const c of SYNTHETIC_CHAINS) {
      const row = chains.find((x) => x.chain === c.name)!;
      expect(row.chain_id).toBe(c.chainId);
      expect(Math.abs(Number(row.n) / COUNT - c.share)).toBeLessThan(0.03);
    }
    expect(chains).toHaveLength(SYNTHETIC_CHAINS.length);
  });

  it("mix the v0.1 schema with Location Protocol schemas, each row as its schema's decoder writes it", async () => {
    const bySchema = await queryRows<{
      schema_uid: string;
      protocol_version: string;
      lp_version: string | null;
      n: number;
      with_fields: number;
      with_time: number;
      v01_arrays: number;
    }>(
      app.db,
      sql`select schema_uid, protocol_version, lp_version, count(*)::int as n,
            count(application_fields)::int as with_fields, count(event_timestamp_raw)::int as with_time,
            count(recipe_type)::int as v01_arrays
          from location_proofs group by 1, 2, 3 order by n desc`,
    );
    expect(bySchema.map((r) => [r.schema_uid, r.protocol_version, r.lp_version])).toEqual([
      [LOCATION_SCHEMA_UID, "0.1", null],
      [DEVNET_SCHEMA_UIDS.dart, "1.0", "1.0.0"],
      [DEVNET_SCHEMA_UIDS.appendix, "0.2", "2"],
    ]);
    const [v01, dart, appendix] = bySchema;
    expect(v01!.n / COUNT).toBeGreaterThan(0.82);
    expect(dart!.n / COUNT).toBeGreaterThan(0.1);
    expect(appendix!.n / COUNT).toBeGreaterThan(0.01);
    expect([v01!.with_fields, dart!.with_fields, appendix!.with_fields]).toEqual([0, dart!.n, 0]);
    expect([v01!.v01_arrays, dart!.v01_arrays, appendix!.v01_arrays]).toEqual([v01!.n, 0, 0]);
    expect(appendix!.with_time).toBe(0);
    const types = await queryRows<{ t: string | null }>(
      app.db,
      sql`select distinct location_type_normalized as t from location_proofs order by 1`,
    );
    expect(types.map((r) => r.t)).toEqual([
      "address",
      "coordinate-decimal+lon-lat",
      "geojson",
      "geojson-line",
      "geojson-point",
      "geojson-polygon",
    ]);
  });

  it("lie on disk in the order of their attestation times within each batch of the load, as the sync writes them", async () => {
    const rows = await queryRows<{ t: string }>(
      app.db,
      sql`select attestation_time::text as t from location_proofs order by ctid`,
    );
    expect(rows).toHaveLength(COUNT);
    // Time goes back where a batch starts (three: 2500, 2500 and 1000 rows, each over the whole period) and where a
    // small row took the space left in an earlier page; rows written in a random order would go back every other row.
    const backs = rows.filter((r, n) => n > 0 && Date.parse(r.t) < Date.parse(rows[n - 1]!.t)).length;
    expect(backs).toBeGreaterThanOrEqual(2);
    expect(backs).toBeLessThan(COUNT / 20);
  });

  it("keep proof_counts exact, and loading the same rows again adds nothing", async () => {
    expect(await loadSyntheticProofs(app.db, { count: 100, end: END })).toBe(0);
    for (const filter of [{}, { includeRevoked: true }, { chains: ["base"] }, { hasCoordinates: false }]) {
      expect(await countFromTotals(app.db, filter, (f) => countProofs(app.db, f))).toBe(
        await countProofs(app.db, filter),
      );
    }
    // Another seed adds disjoint rows.
    expect(await loadSyntheticProofs(app.db, { count: 50, seed: 2, end: END })).toBe(50);
    expect(await countFromTotals(app.db, { includeRevoked: true }, (f) => countProofs(app.db, f))).toBe(
      COUNT + 50,
    );
    // syntheticUids names exactly the rows of a seed and range (bench:scale takes its writes out with it).
    const [named] = await queryRows<{ n: number }>(
      app.db,
      sql`select count(*)::int as n from location_proofs where uid in ${syntheticUids(2, 11, 30)}`,
    );
    expect(named?.n).toBe(30);
    await app.db.execute(sql`delete from location_proofs where uid in ${syntheticUids(2, 1, 50)}`);
    expect(await countProofs(app.db, { includeRevoked: true })).toBe(COUNT);
  });
});
