import { type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";

const dialect = new PgDialect();

/**
 * A parameter-free expression rendered to SQL text now, for good. Drizzle renders a statement by walking its whole
 * tree on every request — each column name, each nested fragment, each type check; with its constant parts (the JSON expression, the ORDER BY, the snapshot column) rendered
 * once, a few chunks are left. An expression that holds a parameter is refused: its value would be lost.
 */
export function renderedOnce(expr: SQL): SQL {
  const { sql: text, params } = dialect.sqlToQuery(expr);
  if (params.length) throw new Error(`renderedOnce: the expression holds parameters: ${text}`);
  return sql.raw(text);
}
