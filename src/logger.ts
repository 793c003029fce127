/** The few log calls the server, the ingest and the CLI make: pino's logger fits it, and tests pass a memory log. */
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
