import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { locationProofs, type NewLocationProofRow } from "../../db/schema.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { cursorToken } from "../../lib/proofs/cursor.js";
import { SORTABLE_PROPERTIES } from "../../lib/proofs/properties.js";
import { createTestApp, TEST_BASE, type TestApp } from "../helpers/app.js";
import { compareBySort } from "../helpers/sort-oracle.js";

// Keyset paging (lib/params/paging.ts, lib/proofs/sort.ts, lib/proofs/cursor.ts): next/prev links carry a checked cursor;
// walking them visits every match exactly once, in the documented total order, for every sort order, also while
// proofs are inserted and revoked between pages.
let app: TestApp;
const NOW = new Date("2025-06-01T00:00:00Z");
const TIE = new Date("2025-05-01T12:00:00Z");
// Ties on purpose: every 5th proof shares one event time (and then orders by uid, chain id); every 13th has none.
const rows = sampleProofs({ count: 260, seed: 77, now: NOW }).map((r, i) =>
  i % 13 === 4
    ? { ...r, eventTimestamp: null, eventTimestampRaw: "0" }
    : i % 5 === 1
      ? { ...r, eventTimestamp: TIE, eventTimestampRaw: String(TIE.getTime() / 1000) }
      : r,
);
const ITEMS = "/api/ogc/collections/location-proofs/items";
const V0 = "/api/v0/location-proofs";

beforeAll(async () => {
  app = await createTestApp();
  await insertProofs(app.db, rows);
});
afterAll(() => app.close());

/** The documented order (tests/helpers/sort-oracle.ts) of `list`'s uids. */
const oracle = (list: NewLocationProofRow[], sortby: string): string[] =>
  [...list].sort(compareBySort(sortby)).map((r) => r.uid);

const local = (href: string) => href.replace(TEST_BASE, "");
const ogcLinks = (body: { links: { rel: string; href: string }[] }) => ({
  next: body.links.find((l) => l.rel === "next")?.href ?? null,
  prev: body.links.find((l) => l.rel === "prev")?.href ?? null,
});

/** Follows next links from `path` to the end, then prev links back to the start. */
async function walkBothWays(path: string) {
  const forward: string[] = [];
  const pages: string[] = [];
  let url: string | null = path;
  let lastUrl = path;
  while (url) {
    const res = await app.get(local(url));
    expect(res.status, url).toBe(200);
    pages.push(url);
    lastUrl = url;
    const native = url.includes(V0);
    forward.push(
      ...(native
        ? res.body.data.map((p: { uid: string }) => p.uid)
        : res.body.features.map((f: { id: string }) => f.id)),
    );
    url = native ? res.body.pagination.next : ogcLinks(res.body).next;
    expect(pages.length).toBeLessThan(200);
  }
  // Back from the last page: each prev page precedes the one it came from.
  const backward: string[][] = [];
  let back: string | null = lastUrl;
  while (back) {
    const res = await app.get(local(back));
    const native = back.includes(V0);
    backward.unshift(
      native
        ? res.body.data.map((p: { uid: string }) => p.uid)
        : res.body.features.map((f: { id: string }) => f.id),
    );
    back = native ? res.body.pagination.prev : ogcLinks(res.body).prev;
    expect(backward.length).toBeLessThan(200);
  }
  return { forward, backward: backward.flat(), pages };
}

const SORTS = [
  ...SORTABLE_PROPERTIES.flatMap((q) => [q.name, `-${q.name}`]),
  "block_number,-chain",
  "attestation_time,-longitude",
  "chain,-uid",
  "-latitude,uid",
  "prover,-uid",
  "-event_timestamp,-uid",
];

describe("keyset paging: every sort order", () => {
  it("the default order, native and OGC: next links visit every match once in order, prev links walk back", async () => {
    const active = rows.filter((r) => !r.revoked);
    const expected = oracle(active, "-event_timestamp");
    const native = await walkBothWays(`${V0}?limit=9`);
    expect(native.forward).toEqual(expected);
    expect(native.backward).toEqual(expected);
    const ogc = await walkBothWays(`${ITEMS}?limit=11`);
    expect(ogc.forward).toEqual(oracle(rows, "-event_timestamp"));
    expect(ogc.backward).toEqual(ogc.forward);
  });

  for (const sortby of SORTS) {
    it(`sortby=${sortby}`, async () => {
      const expected = oracle(rows, sortby);
      const { forward, backward, pages } = await walkBothWays(`${ITEMS}?sortby=${sortby}&limit=17`);
      expect(forward).toEqual(expected);
      expect(backward).toEqual(expected);
      // Every page after the first is reached by a cursor, never an offset.
      for (const page of pages.slice(1)) {
        expect(new URL(page).searchParams.get("cursor")).toBeTruthy();
        expect(new URL(page).searchParams.has("offset")).toBe(false);
      }
    });
  }

  it("offset still pages (slower), and its links continue with cursors", async () => {
    const expected = oracle(rows, "-event_timestamp");
    const res = await app.get(`${ITEMS}?limit=10&offset=30`);
    expect(res.body.features.map((f: { id: string }) => f.id)).toEqual(expected.slice(30, 40));
    const { next, prev } = ogcLinks(res.body);
    const after = await app.get(local(next!));
    expect(after.body.features.map((f: { id: string }) => f.id)).toEqual(expected.slice(40, 50));
    const before = await app.get(local(prev!));
    expect(before.body.features.map((f: { id: string }) => f.id)).toEqual(expected.slice(20, 30));
    const native = await app.get(`${V0}?limit=5&offset=5`);
    expect(native.body.pagination.offset).toBe(5);
    const cursorPage = await app.get(local(native.body.pagination.next));
    expect(cursorPage.body.pagination.offset).toBeNull();
  });

  it("links keep every other parameter byte for byte; offset is dropped and the cursor replaced", async () => {
    const query = "bbox=-180%2C-90%2C180%2C90&chain=base,celo&filter=revoked%20%3D%20false&limit=3&offset=3";
    const res = await app.get(`${ITEMS}?${query}`);
    const { next, prev } = ogcLinks(res.body);
    expect(next).toMatch(
      new RegExp(
        `^${TEST_BASE}${ITEMS}\\?bbox=-180%2C-90%2C180%2C90&chain=base,celo&filter=revoked%20%3D%20false&limit=3&cursor=[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`,
      ),
    );
    expect(prev).toMatch(/&limit=3&cursor=/);
    const second = await app.get(local(next!));
    expect(ogcLinks(second.body).next).toMatch(
      new RegExp(
        `^${TEST_BASE}${ITEMS}\\?bbox=-180%2C-90%2C180%2C90&chain=base,celo&filter=revoked%20%3D%20false&limit=3&cursor=`,
      ),
    );
    const nativeRes = await app.get(`${V0}?chain=base%2Ccelo&includeRevoked=true&limit=4`);
    expect(nativeRes.body.pagination.next).toMatch(
      new RegExp(`^${TEST_BASE}${V0}\\?chain=base%2Ccelo&includeRevoked=true&limit=4&cursor=`),
    );
    expect(nativeRes.body.pagination.prev).toBeNull();
  });
});

describe("keyset paging: a tampered cursor is a 400 naming cursor", () => {
  it("refuses edited, cut, garbled, foreign-order and offset-combined cursors", async () => {
    const first = await app.get(`${ITEMS}?limit=5&sortby=-block_number`);
    const next = new URL(ogcLinks(first.body).next!);
    const cursor = next.searchParams.get("cursor")!;
    const [body, tag] = cursor.split(".") as [string, string];
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === "A" ? "B" : "A") + s.slice(i + 1);
    // The payload edited to point elsewhere, with the old checksum.
    const payload = JSON.parse(Buffer.from(body, "base64url").toString());
    payload[3] = 1;
    const edited = `${Buffer.from(JSON.stringify(payload)).toString("base64url")}.${tag}`;
    const bad = [
      flip(cursor, 3),
      flip(cursor, cursor.length - 2),
      cursor.slice(0, -1),
      `${body}.`,
      body,
      edited,
      "abc.def",
      "not a cursor",
      `${body}.${tag}.${tag}`,
    ];
    for (const value of bad) {
      const res = await app.get(`${ITEMS}?limit=5&sortby=-block_number&cursor=${encodeURIComponent(value)}`);
      expect(res.status, value).toBe(400);
      expect(res.body.parameter, value).toBe("cursor");
    }
    const good = await app.get(`${ITEMS}?limit=5&sortby=-block_number&cursor=${cursor}`);
    expect(good.status).toBe(200);
    const otherOrder = await app.get(`${ITEMS}?limit=5&sortby=block_number&cursor=${cursor}`);
    expect(otherOrder.status).toBe(400);
    expect(otherOrder.body.parameter).toBe("cursor");
    expect(otherOrder.body.message).toMatch(/another sort order/);
    const withOffset = await app.get(`${ITEMS}?limit=5&sortby=-block_number&offset=5&cursor=${cursor}`);
    expect(withOffset.status).toBe(400);
    expect(withOffset.body.parameter).toBe("cursor");
    const native = await app.get(`${V0}?cursor=${flip(cursor, 4)}`);
    expect(native.status).toBe(400);
    expect(native.body.parameter).toBe("cursor");
  });

  it("a cursor whose checksum matches but whose values are not of the key's type is refused", async () => {
    const { createHash } = await import("node:crypto");
    // Forged as a client could (the checksum is not secret): the values are still checked.
    const payload = JSON.stringify([1, "n", "-event_timestamp", "yesterday", "0x01", 1]);
    const tag = createHash("sha256")
      .update("location-proof-query-service cursor v1\u0000")
      .update(payload)
      .digest()
      .subarray(0, 9)
      .toString("base64url");
    const res = await app.get(`${V0}?cursor=${Buffer.from(payload).toString("base64url")}.${tag}`);
    expect(res.status).toBe(400);
    expect(res.body.parameter).toBe("cursor");
    // Values of the right type that no column holds and PostgreSQL refuses: a day that does not exist (`new Date`
    // rolls 2025-02-30 over to March), an instant past the accepted range, NUL in a string.
    const forged = [
      ["-event_timestamp", "2025-02-30T00:00:00.000Z", "0x01", 1],
      ["-event_timestamp", "10000-01-01T00:00:00.000Z", "0x01", 1],
      ["-event_timestamp", "2025-01-01T00:00:00.000Z", "0x\u000001", 1],
      ["chain", "a\u0000b", "0x01", 1],
    ];
    for (const [signature, ...values] of forged) {
      const sortby = signature === "chain" ? "&sortby=chain" : "";
      const path = signature === "chain" ? ITEMS : V0;
      const token = cursorToken(signature as string, "next", 0, values);
      const forgedRes = await app.get(`${path}?cursor=${token}${sortby}`);
      expect(forgedRes.status, JSON.stringify(values)).toBe(400);
      expect(forgedRes.body.parameter).toBe("cursor");
    }
  });

  it("a cursor at the largest position gives links that still work", async () => {
    const token = cursorToken("-event_timestamp", "next", Number.MAX_SAFE_INTEGER, [
      "2025-05-01T12:00:00.000Z",
      "0x00",
      1,
    ]);
    const page = await app.get(`${V0}?limit=3&cursor=${token}`);
    expect(page.status).toBe(200);
    for (const link of [page.body.pagination.next, page.body.pagination.prev]) {
      expect(link).toEqual(expect.any(String));
      expect((await app.get(link)).status, link).toBe(200);
    }
  });
});

describe("keyset paging: a stable walk while the sync writes", () => {
  /** Rows the sync might write: new uids, event times spread over the whole range (some ahead, some behind). */
  const fresh = (seed: number, count: number) =>
    sampleProofs({ count, seed, now: NOW }).map((r, i) => ({
      ...r,
      revoked: false,
      revocationTime: null,
      eventTimestamp: i % 7 === 3 ? null : r.eventTimestamp,
    }));

  async function walkWhileWriting(
    start: string,
    uidsOf: (body: any) => string[],
    nextOf: (body: any) => string | null,
  ) {
    const seen: string[] = [];
    const inserted: NewLocationProofRow[] = [];
    const revokedAt = new Map<string, number>();
    let url: string | null = start;
    let page = 0;
    const all = async () => app.db.select().from(locationProofs);
    while (url) {
      const res = await app.get(local(url));
      expect(res.status).toBe(200);
      seen.push(...uidsOf(res.body));
      url = nextOf(res.body);
      page++;
      // Between pages: the sync indexes 6 new proofs and revokes 2 (one already seen, one not yet).
      const batch = fresh(1000 + page, 6);
      await insertProofs(app.db, batch);
      inserted.push(...batch);
      const current = await all();
      const active = current.filter((r) => !r.revoked);
      const unseen = active.filter((r) => !seen.includes(r.uid));
      const seenActive = active.filter((r) => seen.includes(r.uid));
      for (const victim of [unseen[page % Math.max(1, unseen.length)], seenActive[0]]) {
        if (!victim) continue;
        await app.db
          .update(locationProofs)
          .set({ revoked: true, revocationTime: new Date() })
          .where(eq(locationProofs.uid, victim.uid));
        revokedAt.set(victim.uid, seen.length);
      }
      expect(page).toBeLessThan(200);
    }
    return { seen, inserted, revokedAt };
  }

  // Each walk writes: it starts from a fresh database holding the same proofs.
  const freshApp = async () => {
    await app.close();
    app = await createTestApp();
    await insertProofs(app.db, rows);
  };

  it("native default (revoked left out): every proof that matched throughout comes exactly once, none twice", async () => {
    await freshApp();
    const before = await app.db.select().from(locationProofs);
    const { seen, inserted, revokedAt } = await walkWhileWriting(
      `${V0}?limit=10`,
      (b) => b.data.map((p: { uid: string }) => p.uid),
      (b) => b.pagination.next,
    );
    expect(new Set(seen).size).toBe(seen.length);
    const after = await app.db.select().from(locationProofs);
    const byUid = new Map(after.map((r) => [r.uid, r]));
    const seenSet = new Set(seen);
    // Matched throughout: present before the walk and not revoked at its end.
    for (const r of before) {
      if (!r.revoked && !byUid.get(r.uid)!.revoked) expect(seenSet.has(r.uid), r.uid).toBe(true);
    }
    // A proof revoked before the walk reached its position never appears; one revoked after it did stays counted.
    for (const [uid, at] of revokedAt) {
      const position = seen.indexOf(uid);
      if (position >= 0) expect(position).toBeLessThan(at);
    }
    // A proof inserted mid-walk appears exactly when its position was still ahead of the walk: the order of the
    // whole walk is the total order restricted to what was returned.
    const order = oracle(
      after.filter((r) => seenSet.has(r.uid)),
      "-event_timestamp",
    );
    expect(seen).toEqual(order);
    expect(inserted.some((r) => seenSet.has(r.uid))).toBe(true);
    expect(inserted.some((r) => !seenSet.has(r.uid))).toBe(true);
  }, 180_000);

  it("OGC sortby=-attestation_time (revoked included): every proof present throughout comes exactly once, in order", async () => {
    await freshApp();
    const before = await app.db.select().from(locationProofs);
    const { seen, inserted } = await walkWhileWriting(
      `${ITEMS}?limit=13&sortby=-attestation_time`,
      (b) => b.features.map((f: { id: string }) => f.id),
      (b) => ogcLinks(b).next,
    );
    expect(new Set(seen).size).toBe(seen.length);
    const seenSet = new Set(seen);
    for (const r of before) expect(seenSet.has(r.uid), r.uid).toBe(true);
    const after = await app.db.select().from(locationProofs);
    expect(seen).toEqual(
      oracle(
        after.filter((r) => seenSet.has(r.uid)),
        "-attestation_time",
      ),
    );
    expect(inserted.some((r) => seenSet.has(r.uid))).toBe(true);
  }, 180_000);
});
