import type { Db } from "../../db/client.js";

export type Statement = Parameters<Db["execute"]>[0];

/**
 * `db` as a new object that keeps every statement it executes in `statements`, in order, and passes each on
 * unchanged: what a test of a plan reads back, or runs again under EXPLAIN.
 */
export function recordingExecutes(db: Db, statements: Statement[]): Db {
  return new Proxy(db, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key !== "execute" || typeof value !== "function") return value;
      return (query: Statement) => {
        statements.push(query);
        return value.call(target, query);
      };
    },
  });
}
