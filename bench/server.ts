/**
 * The server under test, in its own process so that its CPU and memory are its own:
 *
 *   node dist/bench/server.js --db PATH|postgres://... --cache on|off [--max-event-loop-delay-ms N]
 *
 * (compiled by `npm run build`, which the bench runs when dist is older than the sources; or
 * `node --import tsx bench/server.ts ...` from the sources)
 *
 * Opens the SQLite dataset (or the PostgreSQL database the postgres group copied it into),
 * builds the real app (buildApp, as `serve` does) with a fixed clock (FUELPRICE_NOW) and no logging, listens on a free loopback port and prints its address as
 * the only line on stdout. The bench creates the token; the rate limit is out of reach anyway.
 * It also answers FIXED_PATH (bench/fixed.ts), hidden, with fixed bytes through every hook.
 */
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.ts';
import { FIXED_BODY, FIXED_PATH } from './fixed.ts';
import { eventLoopGauge } from '../src/http/server/load-shedding.ts';
import { PostgresStore } from '../src/storage/postgres/postgres-store.ts';
import { SqliteStore } from '../src/storage/sqlite/sqlite-store.ts';

const { values } = parseArgs({
  options: { db: { type: 'string' }, cache: { type: 'string', default: 'on' }, 'max-event-loop-delay-ms': { type: 'string', default: '0' } },
});
// Load shedding as `serve` sets it up (MAX_EVENT_LOOP_DELAY_MS); 0, the default here, leaves it off.
const maxDelayMs = Number(values['max-event-loop-delay-ms']);
const nowSec = Math.floor(Date.parse(process.env.FUELPRICE_NOW ?? '') / 1000);
if (!values.db || !Number.isInteger(nowSec) || (values.cache !== 'on' && values.cache !== 'off') || !(Number.isInteger(maxDelayMs) && maxDelayMs >= 0)) {
  process.stderr.write('usage: FUELPRICE_NOW=ISO node dist/bench/server.js --db PATH|postgres://... --cache on|off [--max-event-loop-delay-ms N]\n');
  process.exit(2);
}

const store = /^postgres(ql)?:\/\//.test(values.db) ? new PostgresStore({ connectionString: values.db }) : new SqliteStore(values.db);
await store.migrate();
const app = await buildApp({
  store, clock: { now: () => nowSec }, logger: false, answerCache: values.cache === 'on', defaultRateLimit: 1e9,
  ...(maxDelayMs > 0 ? { loadGauge: eventLoopGauge({ maxDelayMs }) } : {}),
});
app.get(FIXED_PATH, { schema: { hide: true } }, (_request, reply) => reply.type('application/json; charset=utf-8').send(FIXED_BODY));
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${address}\n`);

const stop = (): void => {
  app.close().then(() => store.close()).then(() => process.exit(0), () => process.exit(1));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
