// Serves a built .vercel/output the way Vercel does, for the parity suite: `node vercel-output-server.mjs <dir>`.
// It is bundled on its own (scripts/vercel-output/emulate.ts) and run on Node 24 from a copy of the output outside
// the repository, so a function that needs anything besides its own .func directory fails here as in production.
//
// Routing follows config.json, not vercel.json or the api/ tree: the filesystem phase (static/, then functions at
// their exact path), then the routes after `{ "handle": "filesystem" }` in order — src matched without regard to
// case, captures substituted as they are, `check: true` continuing when the destination does not exist — as
// Vercel's own router (the CLI's dev router) does. Any other route feature makes it refuse to start, so config.json
// cannot grow something this emulation would silently ignore.
//
// Invocation follows @vercel/node (createWebExportsHandler): .vc-config.json must name the Node launcher; the
// handler module's export named like the method (GET, HEAD, OPTIONS, POST, PUT, DELETE, PATCH) gets a Web Request
// whose URL is the public one (https, the forwarded host); a method it does not export is a bare 405.
import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { pathToFileURL } from "node:url";

const HTTP_METHODS = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "DELETE", "PATCH"];
const dir = process.argv[2];
if (!dir) throw new Error("usage: vercel-output-server <output dir>");

type Route = { src?: string; dest?: string; check?: boolean; handle?: string };
const config = JSON.parse(readFileSync(join(dir, "config.json"), "utf8")) as {
  version: number;
  routes: Route[];
};
if (config.version !== 3) throw new Error(`config.json version ${config.version}, expected 3`);
const fsIndex = config.routes.findIndex((r) => r.handle === "filesystem");
if (fsIndex !== 0) throw new Error("config.json: this emulation expects the filesystem phase first");
const rewrites = config.routes.slice(1).map((r) => {
  const extra = Object.keys(r).filter((k) => !["src", "dest", "check"].includes(k));
  if (!r.src || !r.dest || r.check !== true || extra.length) {
    throw new Error(`config.json: unsupported route ${JSON.stringify(r)}`);
  }
  return { src: new RegExp(r.src, "i"), dest: r.dest };
});

type Target = { static: string } | { func: string; pathname: string; search: string } | undefined;

function fileAt(pathname: string): Target {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (decoded.includes("\0") || decoded.split("/").includes("..")) return undefined;
  const file = join(dir!, "static", decoded);
  if (existsSync(file) && statSync(file).isFile()) return { static: file };
  const func = join(dir!, "functions", `${decoded.replace(/^\/+/, "")}.func`);
  if (decoded !== "/" && existsSync(join(func, ".vc-config.json"))) return { func, pathname, search: "" };
  return undefined;
}

/**
 * fileAt, remembered: the output never changes under a running server, and on Vercel routing is not the function's
 * work (it happens before the function is invoked), so a benchmark of this server must not count file lookups.
 */
const files = new Map<string, Target>();
function cachedFileAt(pathname: string): Target {
  if (files.has(pathname)) return files.get(pathname);
  const target = fileAt(pathname);
  if (files.size >= 10_000) files.clear();
  files.set(pathname, target);
  return target;
}

function resolve(pathname: string, search: string): Target {
  const direct = cachedFileAt(pathname);
  if (direct) return "func" in direct ? { ...direct, search } : direct;
  for (const rewrite of rewrites) {
    const m = rewrite.src.exec(pathname);
    if (!m) continue;
    const dest = rewrite.dest.replace(/\$(\d+)/g, (_, i: string) => m[Number(i)] ?? "");
    const [destPath = "/", destQuery = ""] = dest.split("?");
    const hit = cachedFileAt(destPath);
    if (!hit) continue;
    if ("static" in hit) return hit;
    const query = [destQuery, search.slice(1)].filter(Boolean).join("&");
    return { ...hit, search: query ? `?${query}` : "" };
  }
  return undefined;
}

type Module = Record<string, unknown>;
const modules = new Map<string, Promise<Module>>();
function load(func: string): Promise<Module> {
  let m = modules.get(func);
  if (!m) {
    const vc = JSON.parse(readFileSync(join(func, ".vc-config.json"), "utf8")) as Record<string, unknown>;
    if (vc.launcherType !== "Nodejs" || typeof vc.handler !== "string") {
      throw new Error(`${func}: not a Node.js function (${JSON.stringify(vc)})`);
    }
    m = import(pathToFileURL(join(func, vc.handler)).href).then((mod: Module) => {
      let listener = mod;
      // @vercel/node unwraps default exports (up to five levels) before looking for method exports.
      for (let i = 0; i < 5 && listener.default; i++) listener = listener.default as Module;
      return listener;
    });
    modules.set(func, m);
  }
  return m;
}

const CONTENT_TYPES: Record<string, string> = { ".txt": "text/plain; charset=utf-8" };

async function respond(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://internal");
  const target = resolve(url.pathname, url.search);
  if (!target) {
    res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("NOT_FOUND");
    return;
  }
  if ("static" in target) {
    if (req.method !== "GET" && req.method !== "HEAD") return void res.writeHead(405).end();
    const ext = target.static.slice(target.static.lastIndexOf("."));
    const body = readFileSync(target.static);
    res.writeHead(200, {
      "content-type": CONTENT_TYPES[ext] ?? "application/octet-stream",
      "cache-control": "public, max-age=0, must-revalidate",
    });
    res.end(req.method === "HEAD" ? undefined : body);
    return;
  }
  const method = req.method ?? "GET";
  const mod = await load(target.func);
  const fn = mod[method];
  if (!HTTP_METHODS.includes(method) || typeof fn !== "function") return void res.writeHead(405).end();
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  const host = headers.get("x-forwarded-host") ?? headers.get("host") ?? "localhost";
  const hasBody = method !== "GET" && method !== "HEAD";
  const request = new Request(`https://${host}${target.pathname}${target.search}`, {
    method,
    headers,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream) : null,
    duplex: "half",
  } as RequestInit);
  const response = (await (fn as (r: Request) => Promise<Response>)(request)) as Response;
  const out: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    out[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) out["set-cookie"] = cookies;
  res.writeHead(response.status, out);
  if (!response.body || method === "HEAD") return void res.end();
  // As Vercel's Node runtime streams a Response body: chunk by chunk as the socket takes them (backpressure), the body
  // cancelled when the client goes away, the connection cut (no final chunk) when the body fails.
  await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), res).catch(() => {
    res.destroy();
  });
}

const server = createServer((req, res) => {
  respond(req, res).catch((error: unknown) => {
    // An uncaught error in a function is Vercel's FUNCTION_INVOCATION_FAILED: a 500 from the platform.
    console.error(error);
    if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
    res.end("FUNCTION_INVOCATION_FAILED");
  });
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (address && typeof address === "object")
    console.log(`listening ${address.port} node ${process.version}`);
});
// A plain exit on SIGTERM (stop()), so that `node --cpu-prof` writes its profile (a default SIGTERM death does not).
process.on("SIGTERM", () => process.exit(0));
