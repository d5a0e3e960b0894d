/** Where the admin program and its command groups write; injectable for tests. */
export interface AdminOutput {
  /** One result: text, or JSON already rendered. */
  out(text: string): void;
  /** One error message. */
  error(text: string): void;
}
