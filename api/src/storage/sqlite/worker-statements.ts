/**
 * What one request runs on the storage worker's connection: a Kysely
 * query, a ledger operation (sqlite-ledger.ts) or the readiness probe.
 */
import { SqliteLedger } from "./sqlite-ledger.js";
import { exec, prepare } from "./worker-connection.js";
import type {
  LedgerRequest,
  QueryRequest,
  QueryResultData,
  WorkerRequest,
} from "./worker-protocol.js";

const ledger = new SqliteLedger(prepare);

/** `pragma incremental_vacuum(N)` (usage retention gives freed pages back with it). */
const INCREMENTAL_VACUUM = /^\s*pragma\s+incremental_vacuum\b/iu;

/** Runs a query: its rows, or for a write the rows changed and the inserted row ID. */
export function runQuery(request: QueryRequest): QueryResultData {
  const statement = prepare(request.sql);
  const parameters = request.parameters as unknown[];
  if (statement.reader) return { rows: statement.all(parameters) };
  if (INCREMENTAL_VACUUM.test(request.sql)) {
    // It frees one page per step, and run() steps once: exec runs it to the end.
    exec(request.sql);
    return { rows: [] };
  }
  const { changes, lastInsertRowid } = statement.run(parameters);
  return { rows: [], numAffectedRows: changes, insertId: lastInsertRowid };
}

/** Runs a ledger operation (admit, settle, release, record); its result. */
export function runLedger(request: LedgerRequest): unknown {
  switch (request.kind) {
    case "admit":
      return ledger.admit(request.input);
    case "settle":
      return ledger.settle(request.input);
    case "release":
      return ledger.release(request.input);
    case "record":
      ledger.record(request.input);
      return undefined;
  }
}

/** The readiness probe: reads a table of the schema and upserts this instance's probe row. */
export function runProbe(instanceId: string): { probedAt: string } {
  const probedAt = new Date().toISOString();
  // Reading a table of the schema proves migrations are there; the upsert proves the disk takes writes.
  prepare("select count(*) as count from accounts where 0").get();
  prepare(
    "insert into storage_probes (instance_id, probed_at) values (?, ?) on conflict (instance_id) do update set probed_at = excluded.probed_at",
  ).run(instanceId, probedAt);
  return { probedAt };
}

/** Whether a request is a read outside any transaction (the writer answers it at once, outside a batch). */
export function isPlainRead(request: WorkerRequest): boolean {
  if (request.kind !== "query" || request.transaction !== null) return false;
  try {
    return prepare(request.sql).readonly;
  } catch {
    return true; // a statement that does not prepare fails on its own, outside any batch
  }
}
