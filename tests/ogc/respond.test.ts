import { describe, expect, it } from "vitest";
import { etagOf, stringify } from "../../lib/http/respond.js";
import { ogcResponse } from "../../lib/ogc/respond.js";

/** The weak ETag a document must get: that of its JSON without the volatile members, serialised on its own. */
const expected = (doc: Record<string, unknown>, volatile: string[]) => {
  const stable = { ...doc };
  for (const key of volatile) delete stable[key];
  return `W/${etagOf(stringify(stable))}`;
};

const answer = (doc: Record<string, unknown>, volatile: string[]) =>
  ogcResponse("json", doc, () => "", "application/geo+json", volatile as never[]);

describe("ogcResponse: a weak ETag over the document without its volatile members", () => {
  const features = [
    {
      type: "Feature",
      id: "0x1",
      geometry: null,
      properties: { note: '"timeStamp":"2026-01-01T00:00:00.000Z"' },
    },
    { type: "Feature", id: "0x2", geometry: { type: "Point", coordinates: [1, 2] }, properties: { n: 1 } },
  ];

  it("cuts the member out of the body: the ETag of the page as serialised without it, and the body whole", async () => {
    const doc = {
      type: "FeatureCollection",
      timeStamp: "2026-11-24T12:00:00.000Z",
      numberMatched: 2,
      numberReturned: 2,
      features,
      links: [],
    };
    const res = answer(doc, ["timeStamp"]);
    expect(res.headers.get("etag")).toBe(expected(doc, ["timeStamp"]));
    expect(await res.text()).toBe(stringify(doc));
  });

  it("agrees whether the member comes first, last or after nested members (then serialised again)", () => {
    const t = "2026-11-24T12:00:00.000Z";
    for (const doc of [
      { timeStamp: t, type: "FeatureCollection", features },
      { type: "FeatureCollection", features, timeStamp: t },
      { features, timeStamp: t, numberMatched: 2 },
      { type: 'a,"timeStamp":"x"', timeStamp: t, features },
      { timeStamp: t },
    ]) {
      expect(answer(doc, ["timeStamp"]).headers.get("etag")).toBe(expected(doc, ["timeStamp"]));
    }
  });

  it("changes with the stable content, not with the volatile member", () => {
    const a = { type: "FeatureCollection", timeStamp: "2026-11-24T12:00:00.000Z", features };
    const b = { ...a, timeStamp: "2026-11-24T12:00:01.000Z" };
    const c = { ...a, features: features.slice(1) };
    const etag = (d: Record<string, unknown>) => answer(d, ["timeStamp"]).headers.get("etag");
    expect(etag(a)).toBe(etag(b));
    expect(etag(a)).not.toBe(etag(c));
  });
});
