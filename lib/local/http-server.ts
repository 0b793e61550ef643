import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { ApiError, methodNotAllowed } from "../http/errors.js";
import { errorResponse } from "../http/respond.js";
import { HTTP_METHODS } from "../http/route.js";
import { statusText } from "../http/status-text.js";
import type { Router } from "./router.js";

/**
 * What the local server accepts, and for how long it waits (docs/security.md, "Local server limits"). Every refusal is the
 * service's standard JSON error with the security headers, never Node's bare text.
 */
export type ServerLimits = {
  /** The request line and headers must arrive within this long (else 408): a slow-headers client is cut off. */
  headersTimeoutMs: number;
  /** The whole request, body included, must arrive within this long (else 408). */
  requestTimeoutMs: number;
  /** A body being read may pause this long between chunks (else 408). */
  bodyIdleTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveTimeoutMs: number;
  /** Request line and headers together (else 431, or 414 when the request line alone overflows). */
  maxHeaderBytes: number;
  /** The request target (path and query) (else 414). */
  maxUrlBytes: number;
  /** A request body: refused by Content-Length before anything is read, else counted while streaming (else 413). */
  maxBodyBytes: number;
};

export const SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  bodyIdleTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  maxHeaderBytes: 16 * 1024,
  maxUrlBytes: 8 * 1024,
  maxBodyBytes: 1024 * 1024,
};

/**
 * Serves the router over node:http, converting to and from Web Request/Response as the platform does.
 * Like the platform, it sets `x-real-ip` from the socket, overwriting whatever the client sent, so the rate limiter
 * and the loopback rule can trust it. The body is not read here: the Request carries a stream that reads the socket
 * only when a handler asks for it, so nothing is buffered before authentication.
 */
export function serve(
  router: Router,
  port: number,
  host = "127.0.0.1",
  overrides: Partial<ServerLimits> = {},
): Promise<{ server: Server; url: string }> {
  const limits = { ...SERVER_LIMITS, ...overrides };
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      maxHeaderSize: limits.maxHeaderBytes,
      // Node checks the two timeouts above every 30 s by default, which is how a 10 s limit held clients for 40 s.
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
      // A missing Host is answered below with the JSON error, not by Node with a bare 400.
      requireHostHeader: false,
    },
    (req, res) => onRequest(req, res),
  );
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    handle(router, req, res, limits).catch((error) => {
      if (!res.headersSent) writeResponse(req, res, errorResponse(error)).catch(() => res.destroy());
      else res.destroy();
    });
  };
  // `Expect: 100-continue`: Node would invite the body at once; the invitation waits until a handler reads it, so a
  // refused request (401, 413) is answered before the client sends a byte of it.
  server.on("checkContinue", onRequest);
  server.on("clientError", (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket) => {
    void refuseUnparsable(router, error, socket, limits).catch(() => socket.destroy());
  });
  // CONNECT never reaches the request handler (Node hands the socket over for a tunnel): refuse it here.
  server.on("connect", (req: IncomingMessage, socket: Socket) => {
    void unsupportedMethod(router, req.method ?? "CONNECT", req.url ?? "/")
      .then((response) => writeRaw(socket, response))
      .catch(() => socket.destroy());
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const address = server.address() as AddressInfo;
      resolve({ server, url: `http://${host}:${address.port}` });
    });
  });
}

/** host or IPv4 (letters, digits, `-`, `.`, `_`) or a bracketed IPv6 literal, then an optional port 0–65535. */
const HOST = /^(?:[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/;

function checkHost(host: string | undefined, httpVersion: string): string {
  if (host === undefined) {
    // HTTP/1.0 had no Host; HTTP/1.1 requires it (RFC 9112 §3.2).
    if (httpVersion === "1.0") return "localhost";
    throw new ApiError(400, "InvalidHeader", "The Host header is required", { parameter: "Host" });
  }
  const m = HOST.exec(host);
  if (!m || (m[1] !== undefined && Number(m[1]) > 65535)) {
    throw new ApiError(400, "InvalidHeader", "The Host header is not a valid host[:port]", {
      parameter: "Host",
    });
  }
  return host;
}

/** The request's URL from its target: origin-form (`/path?q`), absolute-form (`http://host/path`) or `*`. */
function targetUrl(target: string, host: string): URL {
  // Origin-form is appended to the authority, never parsed relative to it: `//evil.example/x` is a path here.
  if (target.startsWith("/")) return new URL(`http://${host}${target}`);
  if (target === "*") return new URL(`http://${host}/*`);
  if (/^https?:\/\//i.test(target)) {
    try {
      return new URL(target);
    } catch {
      // falls through to the 400 below
    }
  }
  throw new ApiError(400, "MalformedRequest", "The request target is not a path or an absolute http URL");
}

async function handle(
  router: Router,
  req: IncomingMessage,
  res: ServerResponse,
  limits: ServerLimits,
): Promise<void> {
  const method = req.method ?? "GET";
  const target = req.url ?? "/";
  if (Buffer.byteLength(target) > limits.maxUrlBytes) {
    throw new ApiError(414, "URITooLong", `The request target exceeds ${limits.maxUrlBytes} bytes`);
  }
  const url = targetUrl(target, checkHost(req.headers.host, req.httpVersion));
  if (!(HTTP_METHODS as readonly string[]).includes(method)) {
    return writeResponse(req, res, await unsupportedMethod(router, method, url.pathname));
  }
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > limits.maxBodyBytes) {
    throw new ApiError(413, "PayloadTooLarge", `Request body exceeds ${limits.maxBodyBytes} bytes`, {
      parameter: "body",
    });
  }
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(key, v);
  }
  headers.set("x-real-ip", req.socket.remoteAddress ?? "");
  const hasBody =
    method !== "GET" &&
    method !== "HEAD" &&
    (req.headers["transfer-encoding"] !== undefined || Number(declared ?? 0) > 0);
  const request = new Request(url, {
    method,
    headers,
    ...(hasBody ? { body: bodyStream(req, res, limits), duplex: "half" } : {}),
  } as RequestInit);
  await writeResponse(req, res, await router.handle(request));
}

/**
 * The request body as a stream read on demand: nothing is read from the socket until a handler asks (after the
 * access check; a client that sent `Expect: 100-continue` is invited only then), at most `maxBodyBytes` are accepted
 * (413), and a pause longer than `bodyIdleTimeoutMs` between chunks ends it (408).
 */
function bodyStream(
  req: IncomingMessage,
  res: ServerResponse,
  limits: ServerLimits,
): ReadableStream<Uint8Array> {
  const chunks = req[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let size = 0;
  let invited = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!invited && /100-continue/i.test(req.headers.expect ?? "")) res.writeContinue();
        invited = true;
        let timer: NodeJS.Timeout | undefined;
        const idle = new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              reject(
                new ApiError(
                  408,
                  "RequestTimeout",
                  `No request body data for ${limits.bodyIdleTimeoutMs} ms`,
                ),
              ),
            limits.bodyIdleTimeoutMs,
          );
        });
        try {
          const next = await Promise.race([chunks.next(), idle]);
          if (next.done) return controller.close();
          size += next.value.byteLength;
          if (size > limits.maxBodyBytes) {
            throw new ApiError(413, "PayloadTooLarge", `Request body exceeds ${limits.maxBodyBytes} bytes`, {
              parameter: "body",
            });
          }
          controller.enqueue(new Uint8Array(next.value.buffer, next.value.byteOffset, next.value.byteLength));
        } catch (error) {
          controller.error(error);
        } finally {
          clearTimeout(timer);
        }
      },
      async cancel() {
        await chunks.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * A method the platform never dispatches to a function (TRACE, TRACK, CONNECT, WebDAV's, or anything unknown):
 * 405 with the resource's own Allow, or 404 where nothing is.
 */
async function unsupportedMethod(router: Router, method: string, path: string): Promise<Response> {
  const safe = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}$/.test(method) ? method : "(invalid)";
  const pathname = path.startsWith("/") ? path.split("?")[0]! : "/";
  const allow = await router.allowedMethods(new URL(`http://localhost${pathname}`)).catch(() => []);
  return errorResponse(methodNotAllowed(safe, allow.length ? allow : ["GET", "HEAD", "OPTIONS"]));
}

/**
 * What Node's parser refused before any handler could run, answered as the service answers everything else (Node's
 * default is a bare text status without the security headers): an oversized request line (414) or header section
 * (431), an unknown method (405), headers or body too slow (408), anything else malformed (400).
 */
async function refuseUnparsable(
  router: Router,
  error: NodeJS.ErrnoException & { rawPacket?: Buffer },
  socket: Socket,
  limits: ServerLimits,
): Promise<void> {
  if (error.code === "ECONNRESET" || !socket.writable) return void socket.destroy();
  // A response already under way (a request timeout while a handler answers) cannot be replaced.
  if ((socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
    return void socket.destroy();
  }
  const raw = error.rawPacket?.toString("latin1") ?? "";
  const requestLine = /^([^\s]*) (\S*)/.exec(raw);
  let response: Response;
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      // The target itself is too long when the overflow came before the request line ended (the chunk that
      // overflowed holds no line end), or when the request line the chunk starts with holds a target over the
      // URL limit (a client that writes its whole request at once); otherwise the header fields are.
      response = errorResponse(
        !raw.includes("\n") ||
          Buffer.byteLength(/^\S+ (\S+) HTTP\//.exec(raw)?.[1] ?? "") > limits.maxUrlBytes
          ? new ApiError(414, "URITooLong", "The request target is too long")
          : new ApiError(431, "RequestHeaderFieldsTooLarge", "The request's header fields are too large"),
      );
      break;
    case "HPE_INVALID_METHOD":
      response = await unsupportedMethod(router, requestLine?.[1] ?? "", requestLine?.[2] ?? "/");
      break;
    case "ERR_HTTP_REQUEST_TIMEOUT":
      response = errorResponse(new ApiError(408, "RequestTimeout", "The request did not arrive in time"));
      break;
    default:
      response = errorResponse(new ApiError(400, "MalformedRequest", "The request is not valid HTTP/1.1"));
  }
  await writeRaw(socket, response);
}

/** Headers that frame a message on the connection (writeRaw sets them itself). */
const FRAMING = new Set(["content-length", "transfer-encoding", "connection", "keep-alive"]);

/**
 * A whole response written on a socket Node's HTTP layer has let go of, then the connection is closed. The framing
 * headers are this function's own: the body's exact length and `connection: close`, once each (a response's own
 * Content-Length beside them made two, which strict clients such as undici refuse outright).
 */
async function writeRaw(socket: Socket, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  const lines = [`HTTP/1.1 ${response.status} ${statusText(response.status)}`];
  response.headers.forEach((value, key) => {
    if (!FRAMING.has(key)) lines.push(`${key}: ${value}`);
  });
  lines.push(`content-length: ${body.length}`, "connection: close", "", "");
  socket.end(Buffer.concat([Buffer.from(lines.join("\r\n"), "latin1"), body]));
}

async function writeResponse(req: IncomingMessage, res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  // A body the handler never read (a refused request) is not drained: the connection closes after the answer.
  if (!req.complete) headers.connection = "close";
  if (req.method === "HEAD" || response.body === null) {
    res.writeHead(response.status, headers);
    res.end();
    return;
  }
  if (!response.headers.has("content-length")) {
    // A body of unknown length (a download, lib/exports/) is streamed as the platform does: chunked, each chunk pulled
    // only when the socket has taken the last (backpressure), the body cancelled when the client goes away, and the
    // connection cut without the final chunk when the body fails (the client sees an incomplete response).
    res.writeHead(response.status, headers);
    await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), res).catch(() => {
      res.destroy();
    });
    return;
  }
  const body = Buffer.from(await response.arrayBuffer());
  res.writeHead(response.status, { ...headers, "content-length": String(body.length) });
  res.end(body);
}
