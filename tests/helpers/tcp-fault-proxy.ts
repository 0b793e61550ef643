import { createConnection, createServer, type Server, type Socket } from "node:net";
import { faultSwitch } from "./faults.js";

/**
 * A loopback TCP proxy in front of a real server (the CI PostgreSQL) that can fail the ways a database does:
 * - `stall()`: every connection stays open but nothing passes, either way (a frozen server, a black-holed network);
 *   new connections are accepted and held without reaching the server;
 * - `refuse()`: the port is closed and open connections are reset (a server that went down);
 * - `resume()`: traffic flows again, held connections are connected through.
 * Real TCP, so the drivers run unmodified; the fault is injected by the proxy, not by a mock of the driver.
 */
export type TcpFaultProxy = {
  port: number;
  /** `url` with its host and port replaced by the proxy's */
  via(url: string): string;
  stall(): void;
  refuse(): Promise<void>;
  resume(): Promise<void>;
  /** client connections open through the proxy now */
  open(): number;
  close(): Promise<void>;
};

type Pair = { client: Socket; upstream?: Socket };

export async function startTcpFaultProxy(target: { host: string; port: number }): Promise<TcpFaultProxy> {
  const pairs = new Set<Pair>();

  const connectUpstream = (pair: Pair) => {
    const upstream = createConnection(target);
    pair.upstream = upstream;
    upstream.on("data", (chunk) => pair.client.write(chunk));
    pair.client.on("data", (chunk) => upstream.write(chunk));
    upstream.on("error", () => {});
    upstream.on("close", () => pair.client.destroy());
    pair.client.resume();
  };

  const onConnection = (client: Socket) => {
    const pair: Pair = { client };
    pairs.add(pair);
    client.on("error", () => {});
    client.on("close", () => {
      pair.upstream?.destroy();
      pairs.delete(pair);
    });
    client.pause();
    if (faults.mode() === "flowing") connectUpstream(pair);
  };

  let server: Server = createServer(onConnection);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer(onConnection);
      server.once("error", reject);
      server.listen(port, "127.0.0.1", resolve);
    });
  const faults = faultSwitch({
    stall() {
      for (const { client, upstream } of pairs) {
        client.pause();
        upstream?.pause();
      }
    },
    async closePort() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const { client, upstream } of pairs) {
        client.resetAndDestroy();
        upstream?.destroy();
      }
      await closed;
    },
    reopenPort: listen,
    release() {
      for (const pair of pairs) {
        if (!pair.upstream) connectUpstream(pair);
        pair.client.resume();
        pair.upstream!.resume();
      }
    },
  });

  return {
    port,
    via(url) {
      const u = new URL(url);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.toString();
    },
    stall: faults.stall,
    refuse: faults.refuse,
    resume: faults.resume,
    open: () => pairs.size,
    async close() {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream?.destroy();
      }
      // Closed already: nothing left for closing the port to cut.
      pairs.clear();
      await faults.closeUnlessRefused();
    },
  };
}
