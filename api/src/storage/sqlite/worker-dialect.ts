import {
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  SelectQueryNode,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from "kysely";
import type { SqliteWorkerClient } from "./sqlite-client.js";
import type { QueryResultData } from "./worker-protocol.js";

/** What the dialect sends queries to. */
export interface WorkerDialectTarget {
  writer: SqliteWorkerClient;
  reader: SqliteWorkerClient;
  /** Milliseconds a kysely query may wait for the store. */
  timeoutMs: number;
  /** Closes the workers (kysely's `destroy()`). */
  close(): Promise<void>;
}

function toQueryResult<R>(data: QueryResultData): QueryResult<R> {
  const result: { rows: R[]; numAffectedRows?: bigint; insertId?: bigint } = {
    rows: data.rows as R[],
  };
  if (data.numAffectedRows !== undefined) result.numAffectedRows = BigInt(data.numAffectedRows);
  if (data.insertId !== undefined) result.insertId = BigInt(data.insertId);
  return result;
}

let nextTransaction = 1;

/**
 * One kysely connection: a statement goes to the reader when it is a plain
 * SELECT outside a transaction, else to the writer (with its transaction
 * number inside one). Connections are cheap and many may be used at once;
 * the writer runs transactions one at a time, in order.
 */
class WorkerConnection implements DatabaseConnection {
  transaction: number | null = null;

  constructor(private readonly target: WorkerDialectTarget) {}

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const reads = this.transaction === null && SelectQueryNode.is(compiledQuery.query);
    const client = reads ? this.target.reader : this.target.writer;
    const data = await client.request<QueryResultData>({
      kind: "query",
      sql: compiledQuery.sql,
      parameters: compiledQuery.parameters,
      transaction: this.transaction,
      deadline: Date.now() + this.target.timeoutMs,
    });
    return toQueryResult<R>(data);
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered by the worker
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("the SQLite store does not stream query results");
  }

  async send(kind: "begin" | "commit" | "rollback"): Promise<void> {
    if (kind === "begin") {
      this.transaction = nextTransaction;
      nextTransaction += 1;
    }
    const transaction = this.transaction;
    if (transaction === null) throw new Error(`${kind} outside a transaction`);
    try {
      await this.target.writer.request({
        kind,
        transaction,
        deadline: Date.now() + this.target.timeoutMs,
      });
    } finally {
      if (kind !== "begin") this.transaction = null;
    }
  }
}

class WorkerDriver implements Driver {
  constructor(private readonly target: WorkerDialectTarget) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new WorkerConnection(this.target);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as WorkerConnection).send("begin");
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as WorkerConnection).send("commit");
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as WorkerConnection).send("rollback");
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {
    await this.target.close();
  }
}

/**
 * A kysely dialect whose queries run in the SQLite storage workers
 * (sqlite-worker.ts) instead of on the event loop: SQLite's SQL, adapter
 * and introspection, kysely's own; only the driver is ours.
 */
export class WorkerDialect implements Dialect {
  constructor(private readonly target: WorkerDialectTarget) {}

  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }

  createDriver(): Driver {
    return new WorkerDriver(this.target);
  }

  createIntrospector(database: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(database);
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }
}
