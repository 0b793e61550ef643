import { createServer, type Socket } from "node:net";

/** A TCP port on loopback that nothing listens on (bound, noted, closed): a service that is down. */
export { freePort as closedPort } from "../../lib/devnet/index.js";

/** A TCP server on loopback that accepts connections and never answers: a hung Redis or PostgreSQL. */
export async function blackHole(): Promise<{ port: number; close(): void }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    // A server only closes once its connections have ended, so end them first.
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}
