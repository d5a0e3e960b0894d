/** Where the admin program and its command groups write; injectable for tests. */
export interface AdminOutput {
  /** One result: text, or JSON already rendered. */
  out(text: string): void;
  /** One error message. */
  error(text: string): void;
  /**
   * A progress line that replaces the previous one (a terminal's standard
   * error); `""` clears it. Absent when standard error is not a terminal.
   */
  progress?(text: string): void;
}
