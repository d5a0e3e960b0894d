import type { Database as SqliteConnection, Statement } from "better-sqlite3";
import type { SqliteDatabase } from "kysely";

/** Most prepared statements kept; queries are parameterized, so few distinct texts exist. */
const CACHE_SIZE = 256;

/**
 * Wraps a better-sqlite3 connection so kysely's SQLite driver reuses prepared
 * statements instead of preparing each query's SQL again (preparing was the
 * largest single cost on the request path). Statements run synchronously, so
 * one statement object is never used by two queries at once.
 */
export function withStatementCache(connection: SqliteConnection): SqliteDatabase {
  const statements = new Map<string, Statement>();
  return {
    close: () => connection.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = connection.prepare(sql);
        if (statements.size >= CACHE_SIZE) {
          const oldest = statements.keys().next().value;
          if (oldest !== undefined) statements.delete(oldest);
        }
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}
