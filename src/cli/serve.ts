import { buildApp, loggerOptions } from '../app.ts';
import { type Config, clockFor, parsePort } from '../config.ts';
import { DEFAULT_DEMO, writeDemoWithProgress } from './demo.ts';
import { RedisRateLimiter } from '../http/redis-limiter.ts';
import { openStore } from '../storage/open.ts';
import type { PriceStore } from '../storage/store.ts';
import { newToken } from '../tokens.ts';
import { UsageError, intOption, parseOptions } from './args.ts';

const SEAL_EVERY_MS = 60_000;

export async function serveCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseOptions(args, {
    port: { type: 'string' }, host: { type: 'string' }, workers: { type: 'string' }, demo: { type: 'boolean' },
  });
  const port = values.port === undefined ? config.port : parsePort(values.port, '--port');
  const host = values.host ?? config.host;
  const workers = intOption(values.workers, 'workers', 1, 64, 1);
  if (workers > 1) throw new UsageError('--workers above 1 needs the scale-out mode (PostgreSQL and Redis), not in this version yet');
  const clock = clockFor(config);
  const store = await openStore(config.databaseUrl);

  const demoToken = values.demo ? await prepareDemo(store, clock.now()) : undefined;
  await store.seal(clock.now());

  // With REDIS_URL, rate limits are shared by every process; without it (or while Redis is out of reach), per process.
  const rateLimiter = config.redisUrl ? new RedisRateLimiter({ url: config.redisUrl }) : undefined;
  const app = await buildApp({
    store, clock, rateLimiter,
    logger: loggerOptions(config.logLevel),
    dataNote: values.demo
      ? '**Sample data.** This server runs the demo dataset: real towns and brands, invented stations and prices.'
      : '',
  });
  // Days are sealed (made final) as local midnights pass, so history reads stay small.
  const sealer = setInterval(() => {
    store.seal(clock.now()).catch((error: unknown) => app.log.error({ err: error }, 'sealing days failed'));
  }, SEAL_EVERY_MS);
  sealer.unref();
  if (rateLimiter) await rateLimiter.connect({ logger: app.log.child({ component: 'rate-limits' }), timeoutMs: 2000 });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: finishing requests in flight');
    clearInterval(sealer);
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    app.close()
      .then(() => rateLimiter?.close())
      .then(() => store.close())
      .then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));

  const address = await app.listen({ port, host });
  process.stderr.write(`fuelprice is serving on ${address}  (docs: ${address}/docs)\n`);
  if (demoToken) {
    process.stdout.write(`\nYour API token (shown once; make more with: npm run fuelprice -- tokens create --name NAME):\n\n  ${demoToken}\n\n`);
    process.stdout.write(`Try: curl -H "Authorization: Bearer ${demoToken}" ${address}/v1/cities/sydney/spread\n\n`);
  }
  return new Promise<number>(() => {
    // Runs until a signal stops it; stop() exits the process.
  });
}

/** Fills an empty database with the demo dataset; returns a new token when none existed. */
async function prepareDemo(store: PriceStore, now: number): Promise<string | undefined> {
  const counts = await store.counts();
  if (counts.stations === 0) {
    process.stderr.write('Empty database: writing the demo dataset (sample data, seed 1, 2 years)...\n');
    await writeDemoWithProgress(store, { ...DEFAULT_DEMO, nowSec: now });
  }
  if ((await store.listTokens()).length === 0) {
    const created = newToken('demo', now);
    await store.createToken(created.record);
    return created.token;
  }
  process.stderr.write('Tokens exist already; list them with `npm run fuelprice -- tokens list` or make one with `tokens create --name NAME`.\n');
  return undefined;
}
