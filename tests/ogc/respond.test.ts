import { describe, expect, it } from "vitest";
import { featureCollectionResponse } from "../../lib/ogc/items.js";
import type { ProofPage } from "../../lib/params/paging.js";
import type { ProofRow } from "../../lib/proofs/rows.js";

/** A page as proofPage gives it for GeoJSON: rows as the JSON PostgreSQL wrote. */
const pageOf = (features: unknown[], total = features.length): ProofPage => ({
  rows: features.map((f) => ({ json: JSON.stringify(f) })) as unknown as ProofRow[],
  total,
  start: 0,
  limit: 10,
  offset: 0,
  cursors: { next: null, prev: null },
});

const features = [
  {
    type: "Feature",
    id: "0x1",
    geometry: null,
    properties: { note: '"timeStamp":"2026-01-01T00:00:00.000Z"' },
  },
  { type: "Feature", id: "0x2", geometry: { type: "Point", coordinates: [1, 2] }, properties: { n: 1 } },
];
const links = [{ href: "http://x/items", rel: "self", type: "application/geo+json", title: "This page" }];

describe("featureCollectionResponse: the items page written whole from its page", () => {
  it("writes the FeatureCollection: counts, the features as written, the links", async () => {
    const res = featureCollectionResponse(pageOf(features, 7), links);
    expect(res.headers.get("content-type")).toBe("application/geo+json; charset=utf-8");
    const body = await res.text();
    expect(Number(res.headers.get("content-length"))).toBe(Buffer.byteLength(body));
    const doc = JSON.parse(body);
    expect(Object.keys(doc)).toEqual([
      "type",
      "timeStamp",
      "numberMatched",
      "numberReturned",
      "features",
      "links",
    ]);
    expect(doc).toMatchObject({
      type: "FeatureCollection",
      numberMatched: 7,
      numberReturned: 2,
      features,
      links,
    });
    expect(Number.isNaN(Date.parse(doc.timeStamp))).toBe(false);
  });

  it("writes an empty page as an empty features array", async () => {
    const doc = await featureCollectionResponse(pageOf([], 0), links).json();
    expect(doc).toMatchObject({ numberMatched: 0, numberReturned: 0, features: [] });
  });

  it("has a weak ETag made of the page, not of its timeStamp", async () => {
    const etag = (page: ProofPage, l = links) => featureCollectionResponse(page, l).headers.get("etag");
    const a = etag(pageOf(features));
    expect(a).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);
    await new Promise((resolve) => setTimeout(resolve, 3));
    expect(etag(pageOf(features))).toBe(a);
    expect(etag(pageOf(features.slice(1)))).not.toBe(a);
    expect(etag(pageOf(features, 3))).not.toBe(a);
    expect(etag(pageOf(features), [])).not.toBe(a);
  });
});
