/**
 * The bench's floor (`--only floor`): a path the bench server answers with these fixed bytes
 * through every hook of the app (token, rate limit, request id, headers, ETag) but without
 * reading anything from storage beyond the versions every /v1 request reads; and the same
 * answer through a bare Fastify with no hooks or plugins (bench/ceiling.ts --fastify). Against
 * the ceiling, the two show what Fastify itself and the app's hooks cost before any route
 * does its own work. Not a route of the product: bench/server.ts adds it, hidden.
 */
export const FIXED_PATH = '/v1/bench/fixed';

/** 390 bytes: the size of a small answer (on au-10y a city is 99 bytes, its average 702). */
export const FIXED_BODY = Buffer.from(JSON.stringify({
  data: { id: 'fixed', name: 'Fixed bytes', note: 'The same bytes on every request, worked out once; no storage read but the versions.', padding: 'x'.repeat(240) },
}));
