import { afterEach, describe, expect, it } from "vitest";
import { loadConfig, setConfig } from "../../lib/config.js";
import { absoluteUrl, linkWith } from "../../lib/http/links.js";

afterEach(() => setConfig(undefined));

/** A small deterministic generator, so a failing path can be reproduced from the test's output. */
function* paths(seed: number, count: number): Generator<string> {
  let s = seed;
  const next = () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s;
  };
  // Characters URL resolution treats specially (dots, escapes good and bad, separators, spaces, non-ASCII) among
  // plain ones, so the generator reaches both the joined-as-text and the normalised path.
  const parts = [
    "a",
    "Z",
    "0",
    "-",
    "_",
    "~",
    ".",
    "..",
    "%2F",
    "%zz",
    "%",
    " ",
    "é",
    "?",
    "#",
    "\\",
    ":",
    "@",
    "0x1f",
  ];
  for (let i = 0; i < count; i++) {
    const segments = Array.from({ length: next() % 5 }, () =>
      Array.from({ length: next() % 4 }, () => parts[next() % parts.length]).join(""),
    );
    yield `/${segments.join("/")}${next() % 3 === 0 ? "/" : ""}`;
  }
}

/** What a call returns, or that it threw: a path URL cannot resolve (e.g. `//:`) must throw in both ways. */
const outcome = (f: () => string) => {
  try {
    return f();
  } catch (error) {
    return `throws ${(error as Error).name}`;
  }
};

const request = (url: string, headers: Record<string, string> = {}) => new Request(url, { headers });

describe("absoluteUrl", () => {
  it("gives what URL resolution gives, for every path, base and forwarded host", () => {
    const cases: { base: string; req: () => Request; publicBaseUrl?: string }[] = [
      { base: "http://example.com", req: () => request("http://example.com/x?y=1") },
      { base: "http://Example.COM:80", req: () => request("http://Example.COM:80/x") },
      { base: "https://[::1]:8443", req: () => request("https://[::1]:8443/") },
      {
        base: "https://maps.example.org",
        req: () =>
          request("http://internal/x", {
            "x-forwarded-host": "maps.example.org",
            "x-forwarded-proto": "https",
          }),
      },
      {
        base: "https://api.example.org/prefix",
        publicBaseUrl: "https://api.example.org/prefix",
        req: () => request("http://internal/x"),
      },
    ];
    let compared = 0;
    for (const c of cases) {
      setConfig(loadConfig({ ...(c.publicBaseUrl ? { PUBLIC_BASE_URL: c.publicBaseUrl } : {}) }));
      const req = c.req();
      for (const path of paths(7, 400)) {
        expect(
          outcome(() => absoluteUrl(req, path)),
          path,
        ).toBe(outcome(() => new URL(path, `${c.base}/`).toString()));
        compared++;
      }
      expect(absoluteUrl(req, "/p", { f: "json", x: undefined, q: "a b" })).toBe(
        new URL("/p?f=json&q=a+b", `${c.base}/`).toString(),
      );
    }
    expect(compared).toBe(2000);
  });
});

describe("linkWith", () => {
  it("keeps the other pairs byte for byte, replaces the named keys, drops the dropped ones", () => {
    setConfig(loadConfig({}));
    const req = request(
      "http://h.example/items?bbox=1%2C2,3,4&limit=10&cursor=abc&uid=0x1&q=a+b&f=json&toString=1&constructor=2",
    );
    expect(linkWith(req, "/items", { cursor: "n.x", f: undefined }, ["uid"])).toBe(
      "http://h.example/items?bbox=1%2C2,3,4&limit=10&q=a+b&toString=1&constructor=2&cursor=n.x",
    );
    // Each link of a request is built from the same remembered pairs: a second link is not affected by the first.
    expect(linkWith(req, "/items", {})).toBe(`http://h.example/items?${new URL(req.url).search.slice(1)}`);
  });
});
