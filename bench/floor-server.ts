// The floor for bench:scale: the least any Node HTTP server can do for a request type. For every GET it replays the
// statements the service issued for that type (node-postgres, a pool as the service holds) and answers the bytes
// the service answered, with no other work: no routing, parsing, mapping, serialising or hashing. Run on the same
// Node as the service, in the same place, what it costs is what the HTTP layer and the database driver alone cost.
// `PUT /` with `{ statements, body }` (body base64) sets what the following GETs do.
import { createServer } from "node:http";
import pg from "pg";

type Statement = { config: Record<string, unknown>; params: unknown };
/** Every value as the text the server sent: no parsing at all (the statements' own parsers did not survive JSON). */
const raw = { getTypeParser: () => (value: string) => value };
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 5 });
let statements: Statement[] = [];
let body = Buffer.alloc(0);

const server = createServer((req, res) => {
  if (req.method === "PUT") {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const set = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        statements: Statement[];
        body: string;
      };
      statements = set.statements.map((s) => ({ ...s, config: { ...s.config, types: raw } }));
      body = Buffer.from(set.body, "base64");
      res.writeHead(204).end();
    });
    return;
  }
  (async () => {
    const client = await pool.connect();
    try {
      for (const s of statements)
        await (client.query as (c: unknown, p: unknown) => Promise<unknown>)(s.config, s.params);
    } finally {
      client.release();
    }
    res.writeHead(200, { "content-type": "application/json", "content-length": body.length });
    res.end(body);
  })().catch((error: Error) => res.writeHead(500).end(error.message));
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (address && typeof address === "object")
    console.log(`listening ${address.port} node ${process.version}`);
});
process.on("SIGTERM", () => process.exit(0));
