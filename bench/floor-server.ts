// The floor for bench:scale: the least any Node HTTP server can do for a request type (bench/floor-replay.ts), on a
// bare node:http server. Run on the same Node as the service, in the same place, what it costs is what the HTTP
// layer and the database driver alone cost. `PUT /` with `{ statements, body }` (body base64) sets what the
// following GETs do.
import { createServer } from "node:http";
import { floorReplayer } from "./floor-replay.js";

const floor = floorReplayer(process.env.DATABASE_URL);

const server = createServer((req, res) => {
  if (req.method === "PUT") {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      floor.set(Buffer.concat(chunks).toString("utf8"));
      res.writeHead(204).end();
    });
    return;
  }
  floor
    .replay()
    .then((body) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": body.length });
      res.end(body);
    })
    .catch((error: Error) => res.writeHead(500).end(error.message));
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (address && typeof address === "object")
    console.log(`listening ${address.port} node ${process.version}`);
});
process.on("SIGTERM", () => process.exit(0));
