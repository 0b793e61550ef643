import type { Server } from "node:http";
import { connect as tcpConnect } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serve } from "../../lib/local/http-server.js";
import { createRouter, type Router } from "../../lib/local/router.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { createTestApp, ROOT, type TestApp } from "../helpers/app.js";
import { recordingRouter } from "../helpers/contract.js";

/**
 * Hostile HTTP on the wire, against the local server (lib/local/http-server.ts) over real sockets: methods no
 * handler serves (TRACE, CONNECT, WebDAV, garbage), malformed Host headers, oversized targets and headers, slow
 * headers and bodies, bodies larger than the cap or never sent. Every answer is the standard JSON error with the
 * security headers (never Node's bare text, never a 5xx), and nothing is read from a body before the handler asks
 * for it. The last test is a generator over all of these (HOSTILE_HTTP_RUNS / HOSTILE_SEED to vary).
 */
const RUNS = Number(process.env.HOSTILE_HTTP_RUNS ?? 300);
const LIMITS = { headersTimeoutMs: 1000, requestTimeoutMs: 2000, bodyIdleTimeoutMs: 500 };

let app: TestApp;
let server: Server;
let port: number;
let readerServer: Server;
let readerPort: number;
let bodyBytesRead = 0;

type Raw = {
  status: number;
  headers: Record<string, string>;
  body: string;
  closed: boolean;
  ms: number;
  /** an interim `100 Continue` came first */
  continued: boolean;
};

/** Writes `parts` (with a pause between them) on a fresh connection; resolves with the first response. */
function raw(
  target: number,
  parts: (string | Buffer)[],
  options: { pauseMs?: number; waitMs?: number } = {},
) {
  return new Promise<Raw>((resolve, reject) => {
    const started = performance.now();
    const socket = tcpConnect(target, "127.0.0.1");
    let data = Buffer.alloc(0);
    let closed = false;
    const timer = setTimeout(() => finish(), options.waitMs ?? 5000);
    const finish = () => {
      clearTimeout(timer);
      // An interim 100 Continue, then the final response: the final one counts (when it came).
      const interim = /^HTTP\/1\.1 100 [^\r]*\r\n\r\n/.exec(data.toString("latin1"));
      const continued = interim !== null;
      if (interim && data.length > interim[0].length) data = data.subarray(interim[0].length);
      const text = data.toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      if (end < 0)
        return reject(new Error(`no complete response (got ${JSON.stringify(text.slice(0, 200))})`));
      const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(":");
        headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      socket.destroy();
      resolve({
        status: Number(statusLine!.split(" ")[1]),
        headers,
        body: data.subarray(Buffer.byteLength(text.slice(0, end + 4), "latin1")).toString("utf8"),
        closed,
        ms: performance.now() - started,
        continued,
      });
    };
    socket.on("data", (chunk) => {
      data = Buffer.concat([data, chunk]);
      const text = data.toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) return;
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end));
      const isHead = /^HEAD /.test(String(parts[0]));
      if (
        isHead ||
        (length && data.length - Buffer.byteLength(text.slice(0, end + 4), "latin1") >= Number(length[1]))
      ) {
        finish();
      }
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      closed = true;
      finish();
    });
    socket.on("connect", async () => {
      for (const [i, part] of parts.entries()) {
        if (i > 0 && options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
        if (!socket.destroyed) socket.write(part);
      }
    });
  });
}

const request = (method: string, path: string, headers: string[] = ["Host: localhost"], body = "") =>
  `${method} ${path} HTTP/1.1\r\n${[...headers, ...(body ? [`Content-Length: ${Buffer.byteLength(body)}`] : [])].join("\r\n")}\r\n\r\n${body}`;

/** The standard JSON error, with the security headers, naming `code`. */
function expectJsonError(res: Raw, status: number, code?: string) {
  expect(res.status, res.body).toBe(status);
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  expect(res.headers["x-content-type-options"]).toBe("nosniff");
  expect(res.headers["content-security-policy"]).toBeDefined();
  expect(res.headers["strict-transport-security"]).toBeDefined();
  const body = JSON.parse(res.body) as { code: string; message: string };
  expect(typeof body.message).toBe("string");
  if (code) expect(body.code).toBe(code);
  return body;
}

beforeAll(async () => {
  app = await createTestApp({ CRON_SECRET: "s3cret" });
  await insertProofs(app.db, sampleProofs({ count: 20, seed: 4 }));
  ({ server } = await serve(recordingRouter(createRouter(ROOT)), 0, "127.0.0.1", LIMITS));
  port = (server.address() as { port: number }).port;
  // A stand-in router whose one handler reads any request body whole (the api/ routes cap theirs at 16 KiB, below
  // the server's 1 MiB): the server and its body stream are the real ones.
  const reader: Router = {
    routes: [],
    allowedMethods: async () => ["POST"],
    handle: async (req) => {
      const bytes = new Uint8Array(await req.arrayBuffer());
      bodyBytesRead += bytes.byteLength;
      // With its length, as lib/http/respond.ts answers (a body without one is streamed chunked, as a download).
      const body = JSON.stringify({ read: bytes.byteLength });
      return new Response(body, {
        headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) },
      });
    },
  };
  ({ server: readerServer } = await serve(reader, 0, "127.0.0.1", LIMITS));
  readerPort = (readerServer.address() as { port: number }).port;
});
afterAll(async () => {
  server?.closeAllConnections();
  readerServer?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await new Promise((r) => readerServer?.close(r));
  await app?.close();
});

describe("methods", () => {
  it.each(["TRACE", "TRACK", "PROPFIND", "FOO"])(
    "%s answers 405 JSON with the resource's Allow",
    async (m) => {
      const res = await raw(port, [request(m, "/api/v0/location-proofs")]);
      expectJsonError(res, 405, "MethodNotAllowed");
      expect(res.headers.allow).toBe("GET, HEAD, OPTIONS");
    },
  );
  it("CONNECT answers 405 JSON", async () => {
    const res = await raw(port, ["CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n"]);
    expectJsonError(res, 405, "MethodNotAllowed");
  });
  it("a method token with invalid characters answers 405 JSON", async () => {
    const res = await raw(port, [request("G@T", "/api/v0/location-proofs")]);
    expectJsonError(res, 405, "MethodNotAllowed");
  });
  it("the allowed methods still work, and a restricted route's Allow is its own", async () => {
    expect((await raw(port, [request("GET", "/api/v0/location-proofs?limit=1")])).status).toBe(200);
    const res = await raw(port, [request("TRACE", "/api/sync")]);
    expectJsonError(res, 405);
    expect(res.headers.allow).toBe("POST");
  });
});

describe("Host", () => {
  it.each([["a b"], ["["], [":99999"], ["x@evil.example"], ["evil.example:abc"], ["host:70000"], [""]])(
    "Host %j answers 400 JSON naming Host",
    async (host) => {
      const res = await raw(port, [request("GET", "/api/v0/location-proofs", [`Host: ${host}`])]);
      // Node's parser refuses some of these itself (a space in a header value is legal, `[` is not special to it).
      const body = expectJsonError(res, 400);
      if (body.code === "InvalidHeader") expect((body as { parameter?: string }).parameter).toBe("Host");
    },
  );
  it("a missing Host on HTTP/1.1 is 400 JSON; HTTP/1.0 without Host is served", async () => {
    expectJsonError(await raw(port, ["GET /api/v0/location-proofs HTTP/1.1\r\n\r\n"]), 400, "InvalidHeader");
    expect((await raw(port, ["GET /api/v0/location-proofs?limit=1 HTTP/1.0\r\n\r\n"])).status).toBe(200);
  });
  it("valid hosts, IPv6 literals and a protocol-relative target stay on this host", async () => {
    for (const host of ["localhost:3000", "[::1]:3000", "proofs.example.org", "127.0.0.1"]) {
      expect(
        (await raw(port, [request("GET", "/api/v0/location-proofs?limit=1", [`Host: ${host}`])])).status,
      ).toBe(200);
    }
    // `//api/…` is a path (repeated slashes are one), not an authority named `api`: links keep the client's Host.
    const res = await raw(port, [
      request("GET", "//api/v0/location-proofs?limit=1", ["Host: proofs.example.org"]),
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toContain("http://proofs.example.org/api/v0/location-proofs");
    expect(res.body).not.toMatch(/https?:\/\/api\//);
  });
});

describe("sizes", () => {
  it("a 10 kB target answers 414 JSON", async () => {
    expectJsonError(
      await raw(port, [request("GET", `/api/v0/location-proofs?x=${"a".repeat(10_000)}`)]),
      414,
      "URITooLong",
    );
  });
  it("a 100 kB target answers 414 JSON", async () => {
    expectJsonError(
      await raw(port, [request("GET", `/api/v0/location-proofs?x=${"a".repeat(100_000)}`)]),
      414,
    );
  });
  it("a 100 kB header answers 431 JSON", async () => {
    const res = await raw(port, [
      request("GET", "/api/v0/location-proofs", ["Host: localhost", `X-Big: ${"b".repeat(100_000)}`]),
    ]);
    expectJsonError(res, 431, "RequestHeaderFieldsTooLarge");
  });
  it("a body declared over 1 MiB answers 413 before any of it is sent", async () => {
    const res = await raw(readerPort, [
      `POST /x HTTP/1.1\r\nHost: localhost\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n`,
    ]);
    expectJsonError(res, 413, "PayloadTooLarge");
    expect(res.headers.connection).toBe("close");
  });
  it("a chunked body over 1 MiB answers 413 while streaming", async () => {
    const chunk = `${(64 * 1024).toString(16)}\r\n${"c".repeat(64 * 1024)}\r\n`;
    const before = bodyBytesRead;
    const res = await raw(readerPort, [
      "POST /x HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n",
      ...Array.from({ length: 20 }, () => chunk),
    ]);
    expectJsonError(res, 413);
    expect(bodyBytesRead).toBe(before);
  });
});

describe("bodies are not read before the handler asks", () => {
  it("an unauthenticated POST with a large body is refused (401) before the body is sent", async () => {
    // Headers only: the body (900 kB announced) never comes. The answer must not wait for it.
    const res = await raw(
      port,
      [`POST /api/sync HTTP/1.1\r\nHost: localhost\r\nContent-Length: 900000\r\n\r\n`],
      {
        waitMs: 3000,
      },
    );
    expectJsonError(res, 401, "Unauthorized");
    expect(res.ms).toBeLessThan(1000);
    expect(res.headers.connection).toBe("close");
  });
  it("60 unauthenticated 1 MiB POSTs are refused without being read", async () => {
    const body = "x".repeat(1024 * 1024 - 1);
    const answers = await Promise.all(
      Array.from({ length: 60 }, () =>
        raw(port, [
          `POST /api/sync HTTP/1.1\r\nHost: localhost\r\nContent-Length: ${body.length}\r\n\r\n`,
          body,
        ]),
      ),
    );
    for (const res of answers) expectJsonError(res, 401);
  });
  it("Expect: 100-continue is answered without an invitation when the request is refused, with one when read", async () => {
    const refused = await raw(port, [
      "POST /api/sync HTTP/1.1\r\nHost: localhost\r\nContent-Length: 500000\r\nExpect: 100-continue\r\n\r\n",
    ]);
    expectJsonError(refused, 401);
    expect(refused.continued).toBe(false);
    // The stand-in reads the body: the client is invited (then, sending nothing, times out with the JSON 408).
    const invited = await raw(readerPort, [
      "POST /x HTTP/1.1\r\nHost: localhost\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n",
    ]);
    expect(invited.continued).toBe(true);
    expectJsonError(invited, 408);
  });
  it("a body the handler reads arrives whole", async () => {
    const res = await raw(readerPort, [request("POST", "/x", ["Host: localhost"], "y".repeat(5000))]);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ read: 5000 });
  });
});

describe("timeouts", () => {
  it("headers that stop coming are answered 408 JSON and closed", async () => {
    const res = await raw(port, ["GET /api/v0/location-proofs HTTP/1.1\r\nHost: local"], { waitMs: 5000 });
    expectJsonError(res, 408, "RequestTimeout");
    expect(res.ms).toBeLessThan(LIMITS.headersTimeoutMs + 1500);
  });
  it("a body that stops coming is answered 408 JSON once the handler waits for it", async () => {
    const res = await raw(
      readerPort,
      ["POST /x HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n", "abc"],
      {
        waitMs: 5000,
      },
    );
    expectJsonError(res, 408, "RequestTimeout");
    expect(res.ms).toBeLessThan(LIMITS.requestTimeoutMs + 1500);
  });
  it("a real route reading its body (authorised POST /api/sync) gets the 408 when the body stops", async () => {
    const res = await raw(
      port,
      [
        "POST /api/sync HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer s3cret\r\nContent-Length: 10\r\n\r\n",
        "{",
      ],
      { waitMs: 5000 },
    );
    expectJsonError(res, 408, "RequestTimeout");
  });
  it("a body trickled slower than the request timeout is cut off", async () => {
    const parts = [
      "POST /x HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n",
      ...Array(10).fill("a"),
    ];
    const res = await raw(readerPort, parts, { pauseMs: 400, waitMs: 8000 }).catch((e: Error) => e);
    // Either the JSON 408, or the connection closed before an answer could be written: never a wait of minutes.
    if (!(res instanceof Error)) expectJsonError(res, 408);
  });
});

describe("generated", () => {
  const METHODS = [
    "GET",
    "HEAD",
    "OPTIONS",
    "POST",
    "PUT",
    "DELETE",
    "PATCH",
    "TRACE",
    "TRACK",
    "PROPFIND",
    "FOO",
    "G@T",
    "get",
  ];
  const PATHS = [
    "/",
    "/health",
    "/api/v0/location-proofs?limit=2",
    "/api/v0/location-proofs/stats",
    "/api/ogc/collections/location-proofs/items?limit=2",
    "/api/sync/status",
    "/api/sync",
    "/nowhere/../api/v0/config",
    "//evil.example/api/v0/config",
    "/api/v0/location-proofs/%zz",
    "*",
    "http://localhost/api/v0/config",
  ];
  const HOSTS = [
    null,
    "localhost",
    "localhost:3000",
    "[::1]",
    "a b",
    "[",
    ":99999",
    "x@evil.example",
    "h:0x50",
    "",
  ];
  const hostile = fc.record({
    method: fc.constantFrom(...METHODS),
    path: fc.constantFrom(...PATHS),
    pad: fc.constantFrom(0, 0, 0, 9_000, 20_000),
    host: fc.constantFrom(...HOSTS),
    header: fc.constantFrom(
      null,
      "X-Api-Key: k",
      `X-Big: ${"h".repeat(20_000)}`,
      "Accept: */*",
      "Connection: Upgrade\r\nUpgrade: websocket",
      "Transfer-Encoding: chunked",
      "Expect: 100-continue",
      "Bad Header: x",
    ),
    body: fc.constantFrom(null, "{}", "x".repeat(2000), "LIE"),
    version: fc.constantFrom("HTTP/1.1", "HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "HTTX/1.1"),
  });

  it(`${RUNS} generated requests: every answer is a well-formed HTTP response, JSON for every error, no 5xx`, {
    timeout: 300_000,
  }, async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(hostile, async (r) => {
        const path = r.pad ? `${r.path}${r.path.includes("?") ? "&" : "?"}p=${"z".repeat(r.pad)}` : r.path;
        const headers = [r.host === null ? null : `Host: ${r.host}`, r.header].filter(
          (h): h is string => h !== null,
        );
        if (r.body === "LIE")
          headers.push("Content-Length: 5000"); // announces a body that never comes
        else if (r.body) headers.push(`Content-Length: ${r.body.length}`);
        const text = `${r.method} ${path} ${r.version}\r\n${headers.join("\r\n")}\r\n\r\n${r.body && r.body !== "LIE" ? r.body : ""}`;
        const res = await raw(port, [text], { waitMs: 4000 });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect(res.status).toBeGreaterThanOrEqual(200);
        expect(res.status).toBeLessThan(500);
        expect(res.headers["x-content-type-options"]).toBe("nosniff");
        if (res.status >= 400 && r.method !== "HEAD") {
          expect(res.headers["content-type"]).toMatch(/^application\/json/);
          expect(JSON.parse(res.body)).toMatchObject({
            code: expect.any(String),
            message: expect.any(String),
          });
        }
      }),
      { numRuns: RUNS, seed: Number(process.env.HOSTILE_SEED ?? 20261122), endOnFailure: true },
    );
    console.log(`hostile http: ${RUNS} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
  });
});
