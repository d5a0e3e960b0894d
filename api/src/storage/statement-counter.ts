/**
 * A running count of the statements a store had its database execute
 * (statements per request, `persona_storage_statements_total`).
 * One per store; a plain number, so counting costs an addition.
 */
export class StatementCounter {
  /** Statements counted so far. */
  total = 0;

  /** Counts `statements` more (one by default). */
  add(statements = 1): void {
    this.total += statements;
  }
}
