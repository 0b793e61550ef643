import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ApiError } from "../http/errors.js";
import { errorResponse } from "../http/respond.js";
import type { Router } from "./router.js";

/** Request bodies larger than this are refused before a handler sees them (the platform has a limit too). */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Serves the router over node:http, converting to and from Web Request/Response as the platform does.
 * Like the platform, it sets `x-real-ip` from the socket, overwriting whatever the client sent, so the rate limiter
 * and the loopback rule can trust it.
 */
export function serve(
  router: Router,
  port: number,
  host = "127.0.0.1",
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    handle(router, req, res).catch((error) => {
      if (!res.headersSent) writeResponse(res, errorResponse(error)).catch(() => res.destroy());
      else res.destroy();
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const address = server.address() as AddressInfo;
      resolve({ server, url: `http://${host}:${address.port}` });
    });
  });
}

async function handle(router: Router, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(key, v);
  }
  headers.set("x-real-ip", req.socket.remoteAddress ?? "");
  const method = req.method ?? "GET";
  const body = method === "GET" || method === "HEAD" ? undefined : await readBody(req);
  const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`);
  const response = await router.handle(
    new Request(url, { method, headers, ...(body ? { body: new Uint8Array(body) } : {}) }),
  );
  await writeResponse(res, response, method === "HEAD");
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      throw new ApiError(413, "PayloadTooLarge", `Request body exceeds ${MAX_BODY_BYTES} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

async function writeResponse(res: ServerResponse, response: Response, head = false): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  res.writeHead(response.status, headers);
  if (head || response.body === null) {
    res.end();
    return;
  }
  res.end(Buffer.from(await response.arrayBuffer()));
}
