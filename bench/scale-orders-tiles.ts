/**
 * bench:scale's sections `orders` and `tiles` (bench/scale.ts runs them): every order sortby offers, and the tiles of
 * every filter the map sends, on the same served functions and data.
 */
import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type pg from "pg";
import type { DbHandle } from "../db/client.js";
import {
  loadSyntheticProofs,
  SYNTHETIC_CITIES,
  syntheticAddress,
  syntheticUids,
} from "../lib/local/synthetic-proofs.js";
import { itemsFilter } from "../lib/ogc/items.js";
import { parseSortby } from "../lib/ogc/sortby.js";
import { COLLECTIONS } from "../lib/ogc/vocabulary.js";
import { encodeCursor } from "../lib/proofs/cursor.js";
import { type PagePlan, planPage } from "../lib/proofs/plan.js";
import { SORTABLE_PROPERTIES } from "../lib/proofs/properties.js";
import { findProofByUid } from "../lib/proofs/query.js";
import { orderBy } from "../lib/proofs/sort.js";
import { DAY, END } from "./common.js";
import { f1, lpad, pad, percentile } from "./figures.js";
import { ITEMS, replay, statementsOf } from "./statements.js";

type Get = (path: string) => Promise<{ ms: number; body: Buffer }>;
type Say = (line?: string) => void;

/** HTTP p50 of `path` and the p50 of its statements replayed (each request followed by them). */
async function httpAndSql(
  get: Get,
  sqlClient: pg.ClientBase,
  path: string,
  iterations: number,
): Promise<{ http: number; sql: number }> {
  const { statements } = await statementsOf(path);
  const http: number[] = [];
  const sqlTimes: number[] = [];
  for (let i = -3; i < iterations; i++) {
    const res = await get(path);
    const started = performance.now();
    await replay(sqlClient, statements);
    if (i < 0) continue;
    http.push(res.ms);
    sqlTimes.push(performance.now() - started);
  }
  return { http: percentile(http, 0.5), sql: percentile(sqlTimes, 0.5) };
}

/**
 * Every sortby, each way: the first page and the last page of its harvest (limit=1000, reached by a cursor on the
 * row before it, as the harvest's next link would carry), HTTP against the same SQL replayed, after `warmUp` rounds
 * of every page. Goals: HTTP p50 <=
 * 1.5 x SQL + 1 ms, and the last page <= 1.5 x the first. Returns each page's HTTP p50.
 */
export async function ordersSection(
  say: Say,
  get: Get,
  sqlClient: pg.ClientBase,
  handle: DbHandle,
  iterations: number,
  warmUp: number,
): Promise<Record<string, number>> {
  const LIMIT = 1000;
  const p50s: Record<string, number> = {};
  say(
    `\nEvery sortby (limit=${LIMIT}, ${iterations} requests each): first and last page of a harvest, HTTP and SQL p50`,
  );
  say(
    `${pad("sortby", 20)} ${lpad("first HTTP", 11)} ${lpad("SQL", 6)} ${lpad("last HTTP", 10)} ${lpad("SQL", 6)} ${lpad("last/first", 11)}  goals: HTTP <= 1.5xSQL+1, last <= 1.5xfirst`,
  );
  const filter = itemsFilter({}, COLLECTIONS["location-proofs"]);
  const total = Number((await sqlClient.query("select count(*)::int as n from location_proofs")).rows[0].n);
  const pages: { sortby: string; first: string; last: string }[] = [];
  for (const sortby of SORTABLE_PROPERTIES.flatMap((q) => [q.name, `-${q.name}`])) {
    const plan = planPage(filter, { limit: LIMIT, sort: parseSortby(sortby) }) as PagePlan;
    // The row before the last page, by the order's own ORDER BY (one full sort, outside the timings).
    // On the bench's own connection: a full sort of the table outlasts the service's statement budget.
    const query = new PgDialect().sqlToQuery(
      sql`select uid from location_proofs order by ${sql.join(orderBy(plan), sql`, `)} offset ${total - LIMIT - 1} limit 1`,
    );
    const before = (await sqlClient.query(query.sql, query.params)).rows[0] as { uid: string } | undefined;
    const row = await findProofByUid(handle.db, before!.uid);
    const cursor = encodeCursor(plan, "next", row!, total - LIMIT);
    const first = `${ITEMS}?limit=${LIMIT}&sortby=${sortby}`;
    pages.push({ sortby, first, last: `${first}&cursor=${encodeURIComponent(cursor)}` });
  }
  // Every page of the section a few times, round-robin, before any is timed: the server's code is warm for all of
  // them alike (as the latency section's warm-up does), not for the later orders only.
  for (let round = 0; round < warmUp; round++) {
    for (const page of pages) {
      await get(page.first);
      await get(page.last);
    }
  }
  for (const page of pages) {
    const first = await httpAndSql(get, sqlClient, page.first, iterations);
    const last = await httpAndSql(get, sqlClient, page.last, iterations);
    p50s[`sortby=${page.sortby} first page`] = first.http;
    p50s[`sortby=${page.sortby} last page`] = last.http;
    const met =
      first.http <= 1.5 * first.sql + 1 && last.http <= 1.5 * last.sql + 1 && last.http <= 1.5 * first.http;
    say(
      `${pad(page.sortby, 20)} ${lpad(f1(first.http), 11)} ${lpad(f1(first.sql), 6)} ${lpad(f1(last.http), 10)} ${lpad(f1(last.sql), 6)} ${lpad((last.http / first.http).toFixed(2), 11)}  ${met ? "met" : "MISSED"}`,
    );
  }
  return p50s;
}

/** The tile of zoom z holding a longitude and latitude. */
function tileAt(lon: number, lat: number, z: number): { z: number; x: number; y: number } {
  const n = 2 ** z;
  const x = Math.min(n - 1, Math.floor(((lon + 180) / 360) * n));
  const s = Math.sin((lat * Math.PI) / 180);
  const y = Math.min(n - 1, Math.max(0, Math.floor((0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * n)));
  return { z, x, y };
}

/**
 * The tiles of every filter the map sends, z0 to z16 over the densest place (Tokyo's centre): p50 of HTTP per zoom,
 * and the worst zoom. The map's chips are whole UTC days up to today (lib/ogc/html/views.ts); a prover, a CQL2
 * filter and a source filter beside them. Goal: every zoom's p50 <= 50 ms.
 */
/** Prints the tiles' table; returns each filter's worst zoom's p50. */
export async function tilesSection(say: Say, get: Get, iterations: number): Promise<Record<string, number>> {
  const worsts: Record<string, number> = {};
  const day = (days: number) => new Date(END.getTime() - days * DAY).toISOString().slice(0, 10);
  const FILTERS: [string, string][] = [
    ["no filter", ""],
    ["chain=base", "chain=base"],
    ["chip: last 7 days", `datetime=${day(7)}/..`],
    ["chip: last 30 days", `datetime=${day(30)}/..`],
    ["chip: last year", `datetime=${day(365)}/..`],
    ["chain=base + last 30 days", `chain=base&datetime=${day(30)}/..`],
    ["prover (top, ~7%)", `prover=${syntheticAddress("p", 1)}`],
    ["prover (rank 100)", `prover=${syntheticAddress("p", 100)}`],
    ["CQL2 revoked = false", `filter=${encodeURIComponent("revoked = false")}`],
    ["CQL2 block_number > 1000000", `filter=${encodeURIComponent("block_number > 1000000")}`],
    ["protocolVersion=1.0", "protocolVersion=1.0"],
  ];
  const [, lon, lat] = SYNTHETIC_CITIES[0]!;
  const zooms = Array.from({ length: 17 }, (_, z) => z);
  say(
    `\nFiltered tiles over Tokyo's centre, z0-z16 (${iterations} requests each): HTTP p50 ms per zoom, goal <= 50`,
  );
  say(`${pad("filter", 28)} ${zooms.map((z) => lpad(`z${z}`, 5)).join("")}  ${lpad("worst", 6)}`);
  for (const [name, query] of FILTERS) {
    const p50s: number[] = [];
    for (const z of zooms) {
      const t = tileAt(lon, lat, z);
      const path = `/api/ogc/collections/location-proofs/tiles/WebMercatorQuad/${t.z}/${t.x}/${t.y}${query ? `?${query}` : ""}`;
      const times: number[] = [];
      for (let i = -2; i < iterations; i++) {
        const { ms } = await get(path);
        if (i >= 0) times.push(ms);
      }
      p50s.push(percentile(times, 0.5));
    }
    const worst = Math.max(...p50s);
    worsts[name] = worst;
    say(
      `${pad(name, 28)} ${p50s.map((v) => lpad(v.toFixed(0), 5)).join("")}  ${lpad(f1(worst), 6)}  ${worst <= 50 ? "met" : "MISSED"}`,
    );
  }
  return worsts;
}

/**
 * The write path's cost per proof: a batch of synthetic proofs (seed 3) inserted in one statement with every index and
 * count trigger, then deleted again, so the data set stays the one loaded.
 */
export async function writeCostLine(say: Say, handle: DbHandle): Promise<void> {
  const count = 2000;
  const started = performance.now();
  await loadSyntheticProofs(handle.db, { count, seed: 3, end: new Date() });
  const ms = performance.now() - started;
  await handle.db.execute(sql`delete from location_proofs where uid in ${syntheticUids(3, 1, count)}`);
  say(
    `\nWrite path: ${count} synthetic proofs in one statement, ${((ms * 1000) / count).toFixed(0)} µs per proof (every index and count trigger)`,
  );
}
