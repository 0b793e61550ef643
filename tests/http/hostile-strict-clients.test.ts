import { execFile } from "node:child_process";
import type { Server } from "node:http";
import { type Server as TcpServer, connect as tcpConnect, createServer as tcpServer } from "node:net";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serve } from "../../lib/local/http-server.js";
import { createRouter, type Router } from "../../lib/local/router.js";
import { createTestApp, ROOT, type TestApp } from "../helpers/app.js";
import { recordingRouter } from "../helpers/contract.js";

/**
 * Every status the local server (lib/local/http-server.ts) answers by itself — before or around a handler: the
 * parser's refusals (414, 431, an unknown method, malformed HTTP, headers too slow), its own checks (Host, the
 * target, a method no route serves, TRACE and CONNECT, a declared body too large, a URL over its limit) and the
 * body stream's (a body that stops, one over the cap) — read by strict clients: Node's fetch (undici, whose parser
 * refuses a response with Content-Length twice: HPE_UNEXPECTED_CONTENT_LENGTH) and curl. What fetch cannot send
 * (no Host, TRACE, CONNECT, a stalled request) it sends through a small proxy that rewrites the request on its way;
 * the answer comes back byte for byte. Each answer must arrive as a response, with the expected status and the
 * service's JSON error.
 */
const LIMITS = { headersTimeoutMs: 600, requestTimeoutMs: 3000, bodyIdleTimeoutMs: 400 };
const SECRET = "strict-clients-secret";
const exec = promisify(execFile);

let app: TestApp;
let server: Server;
let readerServer: Server;
let proxy: TcpServer;
let ports: { server: number; reader: number; proxy: number };

/** How the proxy changes a request on its way: the request head (lines, no blank line) → what it sends. */
type Rewrite = (lines: string[]) => { parts: string[]; pauseMs?: number };
let rewrite: Rewrite = (lines) => ({ parts: [`${lines.join("\r\n")}\r\n\r\n`] });
let upstreamPort = 0;

/** Forwards the first request of each connection, rewritten, and the answer back untouched; then closes. */
function startProxy(): Promise<TcpServer> {
  const proxyServer = tcpServer((client) => {
    let head = Buffer.alloc(0);
    let forwarded = false;
    client.on("error", () => {});
    client.on("data", (chunk: Buffer) => {
      if (forwarded) return;
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      forwarded = true;
      // One request per connection: the client is told the connection closes after it.
      const lines = head
        .subarray(0, end)
        .toString("latin1")
        .split("\r\n")
        .filter((l) => !/^connection:/i.test(l));
      lines.push("Connection: close");
      const { parts, pauseMs } = rewrite(lines);
      const upstream = tcpConnect(upstreamPort, "127.0.0.1");
      upstream.on("error", () => client.destroy());
      upstream.on("data", (d) => client.write(d));
      upstream.on("end", () => client.end());
      client.on("close", () => upstream.destroy());
      upstream.on("connect", async () => {
        for (const [i, part] of parts.entries()) {
          if (i > 0 && pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
          if (!upstream.destroyed) upstream.write(part);
        }
      });
    });
  });
  return new Promise((resolve) => proxyServer.listen(0, "127.0.0.1", () => resolve(proxyServer)));
}

const wire = (lines: string[], body = "") => `${lines.join("\r\n")}\r\n\r\n${body}`;
const setLine = (lines: string[], name: string, value: string | null) => {
  const kept = lines.filter((l) => !l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return value === null ? kept : [...kept, `${name}: ${value}`];
};

type Case = {
  name: string;
  status: number;
  code: string;
  /** the path on the server (through the proxy when `via` rewrites the request) */
  path: string;
  target?: "server" | "reader";
  /** fetch's own request */
  init?: RequestInit;
  /** the rewrite on the way (fetch and curl then go through the proxy) */
  via?: Rewrite;
  /** curl's arguments for the same request, without the URL (through the proxy when `via` is set) */
  curl: string[];
};

const LONG = "a".repeat(10_000);
const LONGER = "a".repeat(20_000);
const CASES: Case[] = [
  {
    name: "400 without Host (HTTP/1.1)",
    status: 400,
    code: "InvalidHeader",
    path: "/api/v0/location-proofs",
    via: (lines) => ({ parts: [wire(setLine(lines, "host", null))] }),
    curl: ["-H", "Host:"],
  },
  {
    name: "400 for a Host that is no host[:port]",
    status: 400,
    code: "InvalidHeader",
    path: "/api/v0/location-proofs",
    via: (lines) => ({ parts: [wire(setLine(lines, "host", "evil.example:abc"))] }),
    curl: ["-H", "Host: evil.example:abc"],
  },
  {
    name: "400 for a target that is no path",
    status: 400,
    code: "MalformedRequest",
    path: "/api/v0/location-proofs",
    via: ([first, ...rest]) => ({ parts: [wire([first!.replace(/ \S+ /, " abc "), ...rest])] }),
    curl: ["--request-target", "abc"],
  },
  {
    name: "400 for a header the parser refuses",
    status: 400,
    code: "MalformedRequest",
    path: "/api/v0/location-proofs",
    via: (lines) => ({ parts: [wire([...lines, "Bad Header: x"])] }),
    curl: ["-H", "Bad Header: x"],
  },
  {
    name: "400 for a protocol that is not HTTP/1.x",
    status: 400,
    code: "MalformedRequest",
    path: "/api/v0/location-proofs",
    via: ([first, ...rest]) => ({ parts: [wire([first!.replace(/HTTP\/1\.1$/, "HTTX/1.1"), ...rest])] }),
    curl: [],
  },
  ...[
    { method: "PROPFIND", why: "no route serves" },
    { method: "FOO", why: "the parser does not know" },
  ].map(({ method, why }) => ({
    name: `405 for a method ${why} (${method})`,
    status: 405,
    code: "MethodNotAllowed",
    path: "/api/v0/location-proofs",
    init: { method },
    curl: ["-X", method],
  })),
  {
    name: "405 for TRACE",
    status: 405,
    code: "MethodNotAllowed",
    path: "/api/v0/location-proofs",
    via: ([first, ...rest]) => ({ parts: [wire([first!.replace(/^GET /, "TRACE "), ...rest])] }),
    curl: ["-X", "TRACE"],
  },
  {
    name: "405 for CONNECT",
    status: 405,
    code: "MethodNotAllowed",
    path: "/api/v0/location-proofs",
    via: ([, ...rest]) => ({
      parts: [wire(["CONNECT example.org:443 HTTP/1.1", ...setLine(rest, "host", "example.org:443")])],
    }),
    curl: [],
  },
  {
    name: "408 when the headers stop coming",
    status: 408,
    code: "RequestTimeout",
    path: "/api/v0/location-proofs",
    via: (lines) => ({ parts: [`${lines[0]}\r\nHost: local`] }),
    curl: [],
  },
  {
    name: "408 when a body a route reads stops coming",
    status: 408,
    code: "RequestTimeout",
    path: "/api/sync",
    via: ([, ...rest]) => ({
      parts: [
        wire([
          "POST /api/sync HTTP/1.1",
          ...setLine(setLine(rest, "authorization", `Bearer ${SECRET}`), "content-length", "10"),
        ]),
        "{",
      ],
      pauseMs: 10,
    }),
    curl: [],
  },
  {
    name: "413 for a body declared over the cap",
    status: 413,
    code: "PayloadTooLarge",
    path: "/api/sync",
    via: ([, ...rest]) => ({
      parts: [wire(["POST /api/sync HTTP/1.1", ...setLine(rest, "content-length", String(2 * 1024 * 1024))])],
    }),
    curl: ["-X", "POST", "-H", `Content-Length: ${2 * 1024 * 1024}`],
  },
  {
    name: "413 for a body that streams past the cap",
    status: 413,
    code: "PayloadTooLarge",
    path: "/x",
    target: "reader",
    via: ([, ...rest]) => {
      const chunk = `${(64 * 1024).toString(16)}\r\n${"c".repeat(64 * 1024)}\r\n`;
      return {
        parts: [
          wire(["POST /x HTTP/1.1", ...setLine(rest, "transfer-encoding", "chunked")]),
          ...Array.from({ length: 20 }, () => chunk),
        ],
      };
    },
    curl: [],
  },
  {
    name: "414 for a target over the server's limit",
    status: 414,
    code: "URITooLong",
    path: `/api/v0/location-proofs?x=${LONG}`,
    curl: [],
  },
  {
    name: "414 for a target over the parser's limit",
    status: 414,
    code: "URITooLong",
    path: `/api/v0/location-proofs?x=${LONGER}`,
    curl: [],
  },
  {
    name: "431 for header fields over the parser's limit",
    status: 431,
    code: "RequestHeaderFieldsTooLarge",
    path: "/api/v0/location-proofs",
    init: { headers: { "x-big": "b".repeat(20_000) } },
    curl: ["-H", `X-Big: ${"b".repeat(20_000)}`],
  },
];

beforeAll(async () => {
  app = await createTestApp({ CRON_SECRET: SECRET });
  ({ server } = await serve(recordingRouter(createRouter(ROOT)), 0, "127.0.0.1", LIMITS));
  // A stand-in router whose one handler reads any body whole (the api/ routes cap theirs far below the server's
  // 1 MiB, so only such a handler meets the server's own streamed 413).
  const reader: Router = {
    routes: [],
    allowedMethods: async () => ["POST"],
    handle: async (req) => new Response(String((await req.arrayBuffer()).byteLength)),
  };
  ({ server: readerServer } = await serve(reader, 0, "127.0.0.1", LIMITS));
  proxy = await startProxy();
  const portOf = (s: Server | TcpServer) => (s.address() as { port: number }).port;
  ports = { server: portOf(server), reader: portOf(readerServer), proxy: portOf(proxy) };
});
afterAll(async () => {
  for (const s of [server, readerServer]) s?.closeAllConnections();
  await Promise.all([server, readerServer, proxy].map((s) => new Promise((r) => s?.close(r))));
  await app?.close();
});

/** The URL a client asks for a case: the server itself, or the proxy in front of it when `proxied`. */
function urlFor(c: Case, proxied: boolean): string {
  upstreamPort = c.target === "reader" ? ports.reader : ports.server;
  if (proxied && c.via) rewrite = c.via;
  return `http://127.0.0.1:${proxied ? ports.proxy : upstreamPort}${c.path}`;
}

function expectServiceError(c: Case, status: number, contentType: string | null, body: string) {
  expect(status, body).toBe(c.status);
  expect(contentType).toMatch(/^application\/json/);
  const parsed = JSON.parse(body) as { code: string; message: string };
  expect(parsed.code).toBe(c.code);
  expect(parsed.message).toEqual(expect.any(String));
}

describe("every status the local server answers by itself, read by strict clients", () => {
  it.each(CASES)("fetch (undici): $name", async (c) => {
    const res = await fetch(urlFor(c, c.via !== undefined), {
      ...c.init,
      signal: AbortSignal.timeout(10_000),
    });
    expectServiceError(c, res.status, res.headers.get("content-type"), await res.text());
  });

  it.each(CASES)("curl: $name", async (c) => {
    // curl sends what it can itself, straight to the server; the rest through the proxy.
    const url = urlFor(c, c.via !== undefined && c.curl.length === 0);
    // -sS: errors only; --http1.1: the local server's protocol; the status after the body. A response curl cannot
    // read (a malformed status line, framing it refuses) is a non-zero exit, which fails here.
    const { stdout } = await exec(
      "curl",
      [
        "-sS",
        "--http1.1",
        "--max-time",
        "10",
        "-o",
        "-",
        "-w",
        "\n%{http_code} %{content_type}",
        ...c.curl,
        url,
      ],
      { maxBuffer: 1 << 20 },
    );
    const at = stdout.lastIndexOf("\n");
    const [code, type] = stdout.slice(at + 1).split(" ");
    expectServiceError(c, Number(code), type ?? null, stdout.slice(0, at));
  });
});
