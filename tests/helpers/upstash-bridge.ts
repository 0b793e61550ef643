import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { createClient, RESP_TYPES } from "@redis/client";
import { faultSwitch } from "./faults.js";

/**
 * Upstash's REST protocol in front of a plain Redis (the CI Redis), so the rate limiter's production backend —
 * `@upstash/redis` over HTTP, as UPSTASH_REDIS_REST_URL/TOKEN select it — runs in the tests against a real server,
 * as tests/helpers/ws-bridge.ts does for Neon. It translates, it does not emulate: every command goes to Redis.
 *
 * The protocol, as `@upstash/redis` speaks it (its HttpClient and Pipeline) and Upstash documents it:
 * - `POST /` with a JSON array, one command and its arguments → `{"result": …}`, or 400 `{"error": "…"}`;
 * - `POST /pipeline` with an array of such arrays → 200 and one `{"result"}` or `{"error"}` per command, in order
 *   (the client batches concurrent commands so by default: the limiter's EVALSHA and SCRIPT LOAD arrive this way);
 * - `POST /multi-exec`: the same, run as one MULTI/EXEC transaction;
 * - `Authorization: Bearer <token>` (or `?_token=`), else 401 `{"error": "Unauthorized"}`;
 * - `Upstash-Encoding: base64` (the client's default): every string in a result is base64, except the status "OK";
 *   integers stay numbers, nil is null, arrays nest.
 * Other paths (Upstash's URL-path form of a command) are not used by the client and answer 400 here.
 *
 * Faults a real endpoint has, on demand: `stall()` (requests are accepted and held unanswered until `resume()`),
 * `refuse()` (the port is closed and open connections are reset), `resume()`.
 */
export type UpstashBridge = {
  url: string;
  token: string;
  /** The service's configuration for this endpoint. */
  env: { UPSTASH_REDIS_REST_URL: string; UPSTASH_REDIS_REST_TOKEN: string };
  /** Commands received, by name (upper case), and requests, by path, since the start: what the client really sent. */
  commands: Map<string, number>;
  paths: Map<string, number>;
  stall(): void;
  refuse(): Promise<void>;
  resume(): Promise<void>;
  close(): Promise<void>;
};

type Reply = null | number | string | Buffer | Reply[];
type Outcome = { result: unknown } | { error: string };

const MAX_BODY_BYTES = 1024 * 1024;

export async function startUpstashBridge(redisUrl: string): Promise<UpstashBridge> {
  const token = randomBytes(16).toString("hex");
  const client = createClient({ url: redisUrl, disableOfflineQueue: true });
  client.on("error", () => {});
  await client.connect();
  // Bulk strings as bytes, so binary values survive base64 exactly; status replies stay strings.
  const redis = client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
  const commands = new Map<string, number>();
  const paths = new Map<string, number>();

  const held: Array<() => void> = [];
  const sockets = new Set<Socket>();

  const encode = (reply: unknown, base64: boolean): unknown => {
    if (Buffer.isBuffer(reply)) return reply.toString(base64 ? "base64" : "utf8");
    if (typeof reply === "string")
      return base64 && reply !== "OK" ? Buffer.from(reply).toString("base64") : reply;
    if (Array.isArray(reply)) return reply.map((r) => encode(r, base64));
    if (reply instanceof Error) return { error: reply.message };
    return reply ?? null;
  };

  /** Redis takes strings; JSON numbers and booleans are sent as their text, as Upstash does. */
  const command = (value: unknown): string[] => {
    if (!Array.isArray(value) || value.length === 0)
      throw new Error("ERR a command is a non-empty JSON array");
    const args = value.map((v) => (typeof v === "string" ? v : JSON.stringify(v)));
    const name = args[0]!.toUpperCase();
    commands.set(name, (commands.get(name) ?? 0) + 1);
    return args;
  };

  const run = async (args: string[]): Promise<Outcome> => {
    try {
      return { result: (await redis.sendCommand(args)) as Reply };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  };

  /** MULTI/EXEC: Redis answers every queued command; a failed one carries its own error. */
  const transaction = async (all: string[][]): Promise<Outcome[]> => {
    const multi = redis.multi();
    for (const args of all) multi.addCommand(args);
    try {
      return ((await multi.exec()) as unknown[]).map((result) => ({ result }));
    } catch (error) {
      const replies = (error as { replies?: unknown[] }).replies;
      if (!replies) throw error;
      return replies.map((r) => (r instanceof Error ? { error: r.message } : { result: r }));
    }
  };

  const answer = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    res.end(text);
  };

  const handle = async (req: IncomingMessage, body: string, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://bridge");
    paths.set(url.pathname, (paths.get(url.pathname) ?? 0) + 1);
    const given = req.headers.authorization?.replace(/^Bearer\s+/i, "") ?? url.searchParams.get("_token");
    if (given !== token) return answer(res, 401, { error: "Unauthorized" });
    if (req.method !== "POST") return answer(res, 405, { error: "only POST is bridged" });
    const base64 = String(req.headers["upstash-encoding"] ?? "").toLowerCase() === "base64";
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return answer(res, 400, { error: "ERR the body is not JSON" });
    }
    const encoded = (o: Outcome) => ("error" in o ? o : { result: encode(o.result, base64) });
    try {
      if (url.pathname === "/") {
        const outcome = await run(command(parsed));
        return answer(res, "error" in outcome ? 400 : 200, encoded(outcome));
      }
      if (url.pathname === "/pipeline" || url.pathname === "/multi-exec") {
        if (!Array.isArray(parsed) || parsed.length === 0)
          return answer(res, 400, { error: "ERR a pipeline is a non-empty array of commands" });
        const all = parsed.map(command);
        // Sent together on one connection: Redis runs them in order, as Upstash's pipeline does.
        const outcomes =
          url.pathname === "/pipeline" ? await Promise.all(all.map(run)) : await transaction(all);
        return answer(res, 200, outcomes.map(encoded));
      }
      return answer(res, 400, {
        error: `ERR ${url.pathname}: only POST /, /pipeline and /multi-exec are bridged`,
      });
    } catch (error) {
      // The command was malformed, or Redis is unreachable from here.
      const message = error instanceof Error ? error.message : String(error);
      return answer(res, message.startsWith("ERR") ? 400 : 503, { error: message });
    }
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy();
      else chunks.push(chunk);
    });
    req.on("end", () => {
      const go = () => void handle(req, Buffer.concat(chunks).toString("utf8"), res);
      if (faults.mode() === "stalled") held.push(go);
      else go();
    });
  };

  let server = createServer(onRequest);
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server = createServer(onRequest);
      server.on("connection", (socket) => {
        sockets.add(socket);
        socket.on("close", () => sockets.delete(socket));
      });
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve((server.address() as { port: number }).port));
    });
  const stopListening = () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.resetAndDestroy();
    return closed;
  };
  const port = await listen(0);
  const url = `http://127.0.0.1:${port}`;
  const faults = faultSwitch({
    closePort: stopListening,
    reopenPort: () => listen(port).then(() => {}),
    release: () => {
      for (const go of held.splice(0)) go();
    },
  });

  return {
    url,
    token,
    env: { UPSTASH_REDIS_REST_URL: url, UPSTASH_REDIS_REST_TOKEN: token },
    commands,
    paths,
    stall: faults.stall,
    refuse: faults.refuse,
    resume: faults.resume,
    async close() {
      held.length = 0;
      await faults.closeUnlessRefused();
      client.destroy();
    },
  };
}
