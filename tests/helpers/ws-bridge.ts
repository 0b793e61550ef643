import { execFileSync } from "node:child_process";
import { randomBytes, randomInt } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import { createConnection, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { neonConfig } from "@neondatabase/serverless";
import WebSocket, { WebSocketServer } from "ws";
import { faultSwitch } from "./faults.js";

/**
 * Neon's endpoint in front of a plain PostgreSQL (the CI server, or a fault proxy before it), so that
 * `@neondatabase/serverless` — the production driver — runs in the tests with its production settings, untouched:
 * its Pool opens `wss://<host>/v2` (TLS on port 443), sends the startup message and the password without waiting
 * (`pipelineConnect: "password"`), and speaks the PostgreSQL protocol inside the WebSocket. The bridge listens on
 * port 443 of its own loopback address (127.x.y.z, so concurrent runs never collide; binding it needs root, as CI
 * has), with a certificate made for that address, and does what Neon's proxy does: it asks for the password
 * (cleartext), checks it, then connects to the server with the client's startup message and relays bytes both ways.
 *
 * The driver only has to trust the certificate: in this process through the WebSocket class Neon's Pool is given
 * (the `ws` package production uses, with the bridge's CA), in a child process (the built functions) through
 * NODE_EXTRA_CA_CERTS (`env`). A DATABASE_URL made by `via()` with DATABASE_DRIVER=neon reaches the database.
 *
 * Faults of the endpoint itself, on demand: `stall()` (connections stay open, nothing passes either way; new ones
 * are accepted and held), `refuse()` (the port is closed, open connections are cut), `resume()`.
 */
export type WsBridge = {
  /** the bridge's own loopback address: DATABASE_URL's host */
  host: string;
  /** `url` (the same database, any host) as the Neon driver reaches it through the bridge */
  via(url: string): string;
  /** What a child process needs to trust the bridge (and so reach it with the stock driver). */
  env: { NODE_EXTRA_CA_CERTS: string };
  stall(): void;
  refuse(): Promise<void>;
  resume(): Promise<void>;
  close(): Promise<void>;
};

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const PROTOCOL_3 = 196608;

/** Every CA this process's bridges use: the driver's WebSocket trusts them (and only them). */
const trusted: string[] = [];

/** The `ws` client production's driver uses, trusting the bridges' certificates. */
class TrustingWebSocket extends WebSocket {
  constructor(url: string | URL, protocols?: string | string[]) {
    super(url, protocols, { ca: trusted });
  }
}

export async function startWsBridge(target: { host: string; port: number }): Promise<WsBridge> {
  const password = randomBytes(12).toString("hex");
  const { host, server, dir, cert } = await listenOnLoopback443();
  trusted.push(cert);
  neonConfig.webSocketConstructor = TrustingWebSocket as unknown as typeof globalThis.WebSocket;

  const sessions = new Set<Session>();
  let current = server;

  const onConnection = (ws: WebSocket) => {
    const session = new Session(ws, target, password, () => faults.mode() === "stalled");
    sessions.add(session);
    ws.on("close", () => {
      session.end();
      sessions.delete(session);
    });
  };
  const attach = (s: Server) => {
    const wss = new WebSocketServer({ server: s, path: "/v2" });
    wss.on("connection", onConnection);
    s.on("close", () => wss.close());
  };
  attach(server);

  const stopListening = () => {
    const closed = new Promise<void>((resolve) => current.close(() => resolve()));
    for (const session of sessions) session.cut();
    current.closeAllConnections?.();
    return closed;
  };
  const faults = faultSwitch({
    closePort: stopListening,
    async reopenPort() {
      current = createServer({ key: readFileSync(join(dir, "key.pem")), cert });
      attach(current);
      await new Promise<void>((resolve, reject) => {
        current.once("error", reject);
        current.listen(443, host, resolve);
      });
    },
    release: () => {
      for (const session of sessions) session.flush();
    },
  });

  return {
    host,
    via(url) {
      const u = new URL(url);
      u.hostname = host;
      u.port = "";
      u.password = password;
      return u.toString();
    },
    env: { NODE_EXTRA_CA_CERTS: join(dir, "cert.pem") },
    stall: faults.stall,
    refuse: faults.refuse,
    resume: faults.resume,
    async close() {
      await faults.closeUnlessRefused();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One client connection, as Neon's proxy handles it: the startup message (after refusing SSL: TLS is the
 * WebSocket's), a cleartext password request, the password, then the server, then bytes both ways.
 */
class Session {
  private fromClient = Buffer.alloc(0);
  private state: "startup" | "password" | "connecting" | "relaying" | "ended" = "startup";
  private startup: Buffer | undefined;
  private upstream: Socket | undefined;
  /** Bytes held while the bridge stalls, per direction. */
  private heldUp: Buffer[] = [];
  private heldDown: Buffer[] = [];

  constructor(
    private ws: WebSocket,
    private target: { host: string; port: number },
    private password: string,
    private stalled: () => boolean,
  ) {
    ws.on("message", (data: Buffer) => this.fromClientBytes(data));
    ws.on("error", () => this.end());
  }

  private fromClientBytes(data: Buffer) {
    if (this.stalled()) {
      this.heldUp.push(data);
      return;
    }
    if (this.state === "relaying") {
      this.upstream!.write(data);
      return;
    }
    this.fromClient = Buffer.concat([this.fromClient, data]);
    this.handshake();
  }

  private handshake(): void {
    if (this.state === "startup" && this.fromClient.length >= 8) {
      const length = this.fromClient.readInt32BE(0);
      if (this.fromClient.length < length) return;
      const code = this.fromClient.readInt32BE(4);
      const message = this.fromClient.subarray(0, length);
      this.fromClient = this.fromClient.subarray(length);
      if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
        this.toClient(Buffer.from("N"));
        this.handshake();
        return;
      }
      if (code !== PROTOCOL_3) {
        this.fail("08P01", `unsupported protocol ${code}`);
        return;
      }
      this.startup = message;
      this.state = "password";
      this.toClient(authRequest(3));
    }
    if (this.state === "password" && this.fromClient.length >= 5) {
      const length = this.fromClient.readInt32BE(1);
      if (this.fromClient.length < 1 + length) return;
      const type = String.fromCharCode(this.fromClient[0]!);
      const given = this.fromClient.subarray(5, length).toString("utf8");
      this.fromClient = this.fromClient.subarray(1 + length);
      if (type !== "p") {
        this.fail("08P01", `expected a password message, got "${type}"`);
        return;
      }
      if (given !== this.password) {
        this.fail("28P01", "password authentication failed");
        return;
      }
      this.state = "connecting";
      this.connectUpstream();
    }
  }

  private connectUpstream() {
    const upstream = createConnection(this.target);
    this.upstream = upstream;
    let first = Buffer.alloc(0);
    upstream.on("error", () => this.cut());
    upstream.on("close", () => this.cut());
    upstream.on("data", (data: Buffer) => {
      if (this.state === "relaying") return this.toClient(data);
      // The server's answer to the startup message: trust (AuthenticationOk) goes through as it is; a cleartext
      // password request gets the client's password; anything else ends the session with the server's words.
      first = Buffer.concat([first, data]);
      if (first.length < 9) return;
      const auth = first[0] === 0x52 ? first.readInt32BE(5) : -1;
      if (auth === 3) {
        upstream.write(passwordMessage(this.password));
        first = first.subarray(1 + first.readInt32BE(1));
        if (first.length === 0) return;
      } else if (auth !== 0 && first[0] !== 0x45) {
        this.fail("08P01", `the server asks for authentication method ${auth}, which the bridge lacks`);
        return;
      }
      this.state = "relaying";
      this.toClient(first);
      if (this.fromClient.length) upstream.write(this.fromClient);
      this.fromClient = Buffer.alloc(0);
    });
    upstream.write(this.startup!);
  }

  private toClient(data: Buffer) {
    if (this.stalled()) this.heldDown.push(data);
    else if (this.ws.readyState === WebSocket.OPEN) this.ws.send(data);
  }

  private fail(code: string, message: string) {
    this.toClient(errorResponse(code, message));
    this.ws.close();
    this.end();
  }

  /** Resume after a stall: what was held passes, in order. */
  flush() {
    for (const data of this.heldDown.splice(0)) this.toClient(data);
    for (const data of this.heldUp.splice(0)) this.fromClientBytes(data);
  }

  /** The endpoint went away: the connection is cut, not closed politely. */
  cut() {
    this.ws.terminate();
    this.end();
  }

  end() {
    this.state = "ended";
    this.upstream?.destroy();
  }
}

const authRequest = (method: number) => {
  const b = Buffer.alloc(9);
  b.write("R", 0);
  b.writeInt32BE(8, 1);
  b.writeInt32BE(method, 5);
  return b;
};

const passwordMessage = (password: string) => {
  const body = Buffer.from(`${password}\0`);
  const head = Buffer.alloc(5);
  head.write("p", 0);
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
};

const errorResponse = (code: string, message: string) => {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${message}\0\0`);
  const head = Buffer.alloc(5);
  head.write("E", 0);
  head.writeInt32BE(4 + fields.length, 1);
  return Buffer.concat([head, fields]);
};

/**
 * An HTTPS server on port 443 of a loopback address of its own, with a fresh self-signed certificate for that
 * address (openssl), as Neon's endpoint listens on 443 of its host.
 */
async function listenOnLoopback443(): Promise<{ host: string; server: Server; dir: string; cert: string }> {
  for (let attempt = 0; ; attempt++) {
    const host = `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
    const dir = mkdtempSync(join(tmpdir(), "ws-bridge-"));
    execFileSync(
      "openssl",
      [
        ...[
          "req",
          "-x509",
          "-newkey",
          "ec",
          "-pkeyopt",
          "ec_paramgen_curve:prime256v1",
          "-nodes",
          "-days",
          "2",
        ],
        ...["-subj", "/CN=lpqs-test-neon-bridge", "-addext", `subjectAltName=IP:${host}`],
        ...["-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")],
      ],
      { stdio: "ignore" },
    );
    const cert = readFileSync(join(dir, "cert.pem"), "utf8");
    const server = createServer({ key: readFileSync(join(dir, "key.pem")), cert });
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(443, host, resolve);
      });
      return { host, server, dir, cert };
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EACCES")
        throw new Error("the Neon bridge listens on port 443, as Neon does: run the tests as root (CI does)");
      if (code !== "EADDRINUSE" || attempt >= 5) throw error;
    }
  }
}
