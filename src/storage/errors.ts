/**
 * Failures of the storage itself (not of a query's logic): the database is closed, busy,
 * restarting or out of reach. The API answers them 503 `unavailable`, never 500.
 */
const UNAVAILABLE_CODES = /^(SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY)|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|57P0[1-3]|57014|08[0-9A-Z]{3}|53300)/;
const UNAVAILABLE_MESSAGES = /database connection is not open|Connection terminated|connection timeout|Client has encountered a connection error/i;

export function isStorageUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return (typeof code === 'string' && UNAVAILABLE_CODES.test(code)) || UNAVAILABLE_MESSAGES.test(error.message);
}
