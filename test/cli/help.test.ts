import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DEFAULT_DEMO } from '../../src/cli/demo.ts';
import { usageLine } from '../../src/cli/help.ts';
import { COMMANDS, ENV, FEED_ENV } from '../../src/cli/spec.ts';
import { loadConfig } from '../../src/config.ts';
import { DEFAULT_RATE_LIMIT } from '../../src/http/auth/rate-limits.ts';
import { feedConfigs } from '../../src/ingest/feeds/index.ts';
import { DEFAULT_CHUNK_ROWS } from '../../src/storage/copy.ts';
import { runCli } from '../helpers.ts';

/** Each command's --help: its usage line, the options it must name, the variables it must list. */
const HELP: Array<{ args: string[]; usage: string; options: string[]; env: string[] }> = [
  { args: ['serve'], usage: 'fuelprice serve [--port N] [--host H] [--workers N] [--demo] [--create]', options: ['--port N', '--host H', '--workers N', '--demo', '--create'],
    env: ['DATABASE_URL', 'PORT', 'HOST', 'LOG_LEVEL', 'FUELPRICE_NOW', 'REDIS_URL', 'TRUST_PROXY', 'MAX_CONNECTIONS'] },
  { args: ['demo'], usage: 'fuelprice demo [--seed N] [--years N] [--scale small|au]', options: ['--seed N', '--years N', '--scale small|au'], env: ['DATABASE_URL'] },
  { args: ['tokens', 'create'], usage: 'fuelprice tokens create --name NAME [--expires-in DURATION] [--rate-limit N]',
    options: ['--name NAME', '--expires-in DURATION', '--rate-limit N'], env: ['DATABASE_URL'] },
  { args: ['tokens', 'list'], usage: 'fuelprice tokens list', options: [], env: ['DATABASE_URL'] },
  { args: ['tokens', 'revoke'], usage: 'fuelprice tokens revoke ID', options: [], env: ['DATABASE_URL'] },
  { args: ['ingest'], usage: 'fuelprice ingest FEED... [--watch]', options: ['--watch'],
    env: ['DATABASE_URL', 'LOG_LEVEL', 'NSW_FUELCHECK_API_KEY', 'NSW_FUELCHECK_API_SECRET', 'QLD_FPD_TOKEN', 'SA_FPD_TOKEN', 'VIC_FAIRFUEL_CONSUMER_ID', 'WA_FUELWATCH_URL'] },
  { args: ['ingest', 'status'], usage: 'fuelprice ingest status [--feed F] [--limit N]', options: ['--feed F', '--limit N'], env: ['DATABASE_URL'] },
  { args: ['import'], usage: 'fuelprice import FORMAT FILE... [--restart]', options: ['--restart'], env: ['DATABASE_URL'] },
  { args: ['migrate'], usage: 'fuelprice migrate', options: [], env: ['DATABASE_URL'] },
  { args: ['copy'], usage: 'fuelprice copy --from URL --to URL [--chunk-rows N]', options: ['--from URL', '--to URL', '--chunk-rows N'], env: [] },
];

const VERSION = (JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;

describe('fuelprice --help and --version', () => {
  test('every command answers --help with its usage, options and environment: exit 0, on stdout', async () => {
    for (const { args, usage, options, env } of HELP) {
      const name = args.join(' ');
      const r = await runCli([...args, '--help']);
      assert.equal(r.code, 0, name);
      assert.equal(r.stderr, '', name);
      const lines = r.stdout.split('\n');
      assert.equal(lines[0], `Usage: ${usage}`, name);
      for (const option of [...options, '-h, --help']) {
        assert.ok(lines.some((line) => line.startsWith(`  ${option}  `)), `${name}: ${option}`);
      }
      assert.equal(r.stdout.includes('\nEnvironment:\n'), env.length > 0, name);
      for (const variable of env) assert.ok(lines.some((line) => line.startsWith(`  ${variable} `)), `${name}: ${variable}`);
    }
  });

  test('-h and help COMMAND print the same help as --help', async () => {
    const long = await runCli(['tokens', 'create', '--help']);
    assert.deepEqual(await runCli(['tokens', 'create', '-h']), long);
    assert.deepEqual(await runCli(['help', 'tokens', 'create']), long);
    assert.deepEqual(await runCli(['import', 'nsw-history', 'a.csv', '--help']), await runCli(['import', '--help']));
  });

  test('options show their defaults', async () => {
    const serve = (await runCli(['serve', '--help'])).stdout;
    assert.match(serve, /^ {2}--port N {5}port to listen on, 0 to 65535 \(default: PORT, 8080\)$/m);
    assert.match(serve, /^ {2}PORT {21}the port serve listens on \(default: 8080\)$/m);
    assert.match((await runCli(['demo', '--help'])).stdout, /^ {2}--years N {9}years of history, 1 to 20 \(default: 2\)$/m);
    assert.match((await runCli(['copy', '--help'])).stdout, /^ {2}--chunk-rows N {2}rows a transaction, 1 to 100000 \(default: 10000\)$/m);
  });

  test('help needs no valid environment', async () => {
    const r = await runCli(['serve', '--help'], { PORT: 'abc', DATABASE_URL: 'mysql://x' });
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^Usage: fuelprice serve /);
  });

  test('the group tokens lists its commands', async () => {
    const r = await runCli(['tokens', '--help']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^Usage: fuelprice tokens create\|list\|revoke\n/);
    assert.match(r.stdout, /\n {2}tokens create {2}make an API token/);
    assert.match(r.stdout, /\n {2}tokens list {4}every token/);
    assert.match(r.stdout, /\n {2}tokens revoke {2}revoke a token/);
  });

  test('fuelprice --help, -h and help list every command; no command at all is exit 2 with the list on stderr', async () => {
    const r = await runCli(['--help']);
    assert.equal(r.code, 0);
    assert.equal(r.stderr, '');
    assert.match(r.stdout, /^Usage: fuelprice COMMAND \[options\]\n/);
    for (const name of ['serve', 'demo', 'tokens create', 'tokens list', 'tokens revoke', 'ingest', 'ingest status', 'import', 'migrate', 'copy', 'help \\[COMMAND\\]']) {
      assert.match(r.stdout, new RegExp(`\n {2}${name} {2,}\\S`), name);
    }
    assert.deepEqual(await runCli(['-h']), r);
    assert.deepEqual(await runCli(['help']), r);
    assert.deepEqual(await runCli(['help', '--help']), r);
    const none = await runCli([]);
    assert.equal(none.code, 2);
    assert.equal(none.stdout, '');
    assert.equal(none.stderr, r.stdout);
  });

  test('--version and -v print package.json\'s version', async () => {
    for (const flag of ['--version', '-v']) {
      assert.deepEqual(await runCli([flag]), { code: 0, stdout: `${VERSION}\n`, stderr: '' });
    }
  });

  test('an unknown option is exit 2 with the command\'s usage and where its help is', async () => {
    const r = await runCli(['serve', '--verbose']);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, 'fuelprice: Unknown option \'--verbose\'\n'
      + 'Usage: fuelprice serve [--port N] [--host H] [--workers N] [--demo] [--create]\n'
      + 'Run \'fuelprice serve --help\' for its options.\n');
    const create = await runCli(['tokens', 'create', '--name', 'x', '--expires', '9d']);
    assert.equal(create.code, 2);
    assert.match(create.stderr, /^fuelprice: Unknown option '--expires'/);
    assert.match(create.stderr, /\nUsage: fuelprice tokens create --name NAME \[--expires-in DURATION\] \[--rate-limit N\]\nRun 'fuelprice tokens create --help' for its options\.\n$/);
  });

  test('an unknown command, or help for one, is exit 2 pointing at the list', async () => {
    for (const args of [['teleport'], ['help', 'teleport'], ['teleport', '--help']]) {
      assert.deepEqual(await runCli(args), { code: 2, stdout: '', stderr: 'fuelprice: unknown command \'teleport\'\nRun \'fuelprice --help\' for the commands.\n' }, args.join(' '));
    }
  });

  test('docs/CLI.md shows every command\'s usage line and every variable', () => {
    const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'CLI.md'), 'utf8');
    for (const spec of Object.values(COMMANDS)) {
      if ('commands' in spec) continue;
      assert.ok(doc.includes(`| \`${usageLine(spec).replaceAll('|', '\\|')}\` |`), spec.name);
    }
    for (const variable of [...Object.keys(ENV), ...Object.keys(FEED_ENV)]) assert.ok(doc.includes(`\`${variable}\``), variable);
  });

  test('the defaults help shows are the ones the code applies', () => {
    const config = loadConfig({});
    assert.equal(ENV.DATABASE_URL.shown, config.databaseUrl);
    assert.equal(ENV.PORT.shown, String(config.port));
    assert.equal(ENV.HOST.shown, config.host);
    assert.equal(ENV.LOG_LEVEL.shown, config.logLevel);
    assert.equal(ENV.FUELPRICE_REDIS_PREFIX.shown, config.redisPrefix);
    assert.equal(ENV.MAX_EVENT_LOOP_DELAY_MS.shown, String(config.maxEventLoopDelayMs));
    assert.equal(ENV.MAX_CONNECTIONS.shown, String(config.maxConnections));
    assert.equal(ENV.KEEP_ALIVE_TIMEOUT_MS.shown, String(config.keepAliveTimeoutMs));
    const feeds = feedConfigs({});
    assert.equal(FEED_ENV.NSW_FUELCHECK_URL?.shown, feeds.nsw.url);
    assert.equal(FEED_ENV.QLD_FPD_URL?.shown, feeds.qld.url);
    assert.equal(FEED_ENV.SA_FPD_URL?.shown, feeds.sa.url);
    assert.equal(FEED_ENV.WA_FUELWATCH_URL?.shown, feeds.wa.url);
    assert.equal(FEED_ENV.WA_FUELWATCH_SOURCE?.shown, feeds.wa.source);
    assert.equal(FEED_ENV.VIC_FAIRFUEL_URL?.shown, feeds.vic.url);
    assert.equal(FEED_ENV.NT_MYFUEL_URL?.shown, feeds.nt.url);
    assert.equal(COMMANDS.demo.options.seed.shown, String(DEFAULT_DEMO.seed));
    assert.equal(COMMANDS.demo.options.years.shown, String(DEFAULT_DEMO.years));
    assert.equal(COMMANDS.demo.options.scale.shown, DEFAULT_DEMO.scale);
    assert.equal(COMMANDS['tokens create'].options['rate-limit'].shown, String(DEFAULT_RATE_LIMIT));
    assert.equal(COMMANDS.copy.options['chunk-rows'].shown, String(DEFAULT_CHUNK_ROWS));
  });
});
