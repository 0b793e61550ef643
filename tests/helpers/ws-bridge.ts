import type { AddressInfo } from "node:net";
import { createConnection } from "node:net";
import { neonConfig } from "@neondatabase/serverless";
import { WebSocketServer } from "ws";

/**
 * Production talks to Neon through @neondatabase/serverless (WebSocket Pool, which has transactions). Neon's proxy is
 * a WebSocket→TCP bridge in front of PostgreSQL; this is a small bridge of the same kind in front of a TCP server
 * (the machine's PostgreSQL, or a fault proxy before it), and points Neon's driver at it, so the exact driver code
 * path that runs in production is exercised against a real server.
 */
export async function startWsBridge(target: {
  host: string;
  port: number;
}): Promise<{ close(): Promise<void> }> {
  const bridge = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  bridge.on("connection", (ws) => {
    const tcp = createConnection(target);
    ws.on("message", (data: Buffer) => tcp.write(data));
    tcp.on("data", (data) => ws.send(data));
    ws.on("close", () => tcp.destroy());
    tcp.on("close", () => ws.close());
    tcp.on("error", () => ws.close());
  });
  await new Promise<void>((resolve) => bridge.once("listening", resolve));
  const port = (bridge.address() as AddressInfo).port;
  neonConfig.wsProxy = () => `127.0.0.1:${port}/v1`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of bridge.clients) client.terminate();
        bridge.close(() => resolve());
      }),
  };
}
