// What bench:scale's two floors do for a request (bench/floor-server.ts, bench/floor-function.ts): replay the
// statements the service issued for its type (node-postgres, a pool as the service holds) and answer the bytes the
// service answered, with no other work: no routing, parsing, mapping, serialising or hashing.
import pg from "pg";

type Statement = { config: Record<string, unknown>; params: unknown };
/** Every value as the text the server sent: no parsing at all (the statements' own parsers did not survive JSON). */
const raw = { getTypeParser: () => (value: string) => value };

export function floorReplayer(databaseUrl: string | undefined) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 5 });
  let statements: Statement[] = [];
  let body = Buffer.alloc(0);
  return {
    /** Sets what the following requests do, from bench:scale's `PUT` of `{ statements, body }` (body base64). */
    set(text: string): void {
      const set = JSON.parse(text) as { statements: Statement[]; body: string };
      statements = set.statements.map((s) => ({ ...s, config: { ...s.config, types: raw } }));
      body = Buffer.from(set.body, "base64");
    },
    /** Replays the statements on one pooled connection; the bytes to answer. */
    async replay(): Promise<Buffer> {
      const answer = body;
      const client = await pool.connect();
      try {
        for (const s of statements)
          await (client.query as (c: unknown, p: unknown) => Promise<unknown>)(s.config, s.params);
      } finally {
        client.release();
      }
      return answer;
    },
  };
}
