import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { listenError } from '../../src/cli/errors.ts';
import { SQLITE_MIGRATIONS } from '../../src/storage/migrations/sqlite.ts';
import { freePort, runCli, startServe } from '../helpers.ts';

describe('fuelprice errors name their context', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'fuelprice-errors-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a refused PostgreSQL connection names the address and DATABASE_URL, never the password: exit 1', async () => {
    const port = await freePort();
    const url = `postgres://fuelprice:s3cret-pw@127.0.0.1:${port}/fuelprice`;
    for (const args of [['migrate'], ['tokens', 'list'], ['ingest', 'status'], ['serve', '--port', '0']]) {
      const r = await runCli(args, { DATABASE_URL: url });
      assert.deepEqual(r, {
        code: 1, stdout: '', stderr: `fuelprice: cannot connect to PostgreSQL at 127.0.0.1:${port} (from DATABASE_URL): connection refused\n`,
      }, args.join(' '));
    }
  });

  test('a URL with a password is shown with the password masked, in every error: an unsupported scheme, a bad feed URL', async () => {
    // A feed's address is read by ingest, which reads the feeds' variables (ingest/feeds/index.ts).
    const cases: Array<[Record<string, string>, string, string[]]> = [
      [{ DATABASE_URL: 'mysql://app:S3cretPw@db.example/fuel' }, "fuelprice: DATABASE_URL: must start with sqlite: or postgres://, got 'mysql://app:***@db.example/fuel'\n", ['tokens', 'list']],
      [{ DATABASE_URL: 'mysql://app:S3cr@tPw@db.example/fuel?password=S3cretPw' }, "fuelprice: DATABASE_URL: must start with sqlite: or postgres://, got 'mysql://app:***@db.example/fuel?password=***'\n", ['tokens', 'list']],
      [{ NSW_FUELCHECK_URL: 'ftp://user:S3cretPw@feeds.example/nsw' }, "fuelprice: NSW_FUELCHECK_URL: must be an http(s) URL, got 'ftp://user:***@feeds.example/nsw'\n", ['ingest', 'nsw']],
    ];
    for (const [env, stderr, args] of cases) {
      const r = await runCli(args, env);
      assert.deepEqual(r, { code: 2, stdout: '', stderr }, JSON.stringify(env));
      assert.ok(!`${r.stdout}${r.stderr}`.includes('S3cr'), 'nothing of the password');
    }
  });

  test('copy names the option the refused database came from', async () => {
    const port = await freePort();
    const source = join(dir, 'source.db');
    assert.equal((await runCli(['migrate'], { DATABASE_URL: `sqlite:${source}` })).code, 0);
    const r = await runCli(['copy', '--from', `sqlite:${source}`, '--to', `postgres://postgres@127.0.0.1:${port}/target`]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, `fuelprice: cannot connect to PostgreSQL at 127.0.0.1:${port} (from --to): connection refused\n`);
  });

  test('a SQLite file that does not exist, in a folder that does or does not, is exit 2 naming the path and DATABASE_URL; nothing is created', async () => {
    const folder = join(dir, 'no-such-folder');
    const file = join(dir, 'history.csv');
    writeFileSync(file, 'ServiceStationName,Address,Suburb,Postcode,Brand,FuelCode,PriceUpdatedDate,Price\n');
    const migrateHint = '`fuelprice migrate`';
    const serveHint = '`fuelprice migrate`, or start with `serve --create` (`serve --demo` for the demo dataset)';
    const commands: Array<[string[], string]> = [
      [['serve', '--port', '0'], serveHint], [['tokens', 'list'], migrateHint], [['tokens', 'create', '--name', 'x'], migrateHint],
      [['ingest', 'status'], migrateHint], [['import', 'nsw-history', file], migrateHint],
    ];
    for (const [path, where] of [[join(folder, 'fuelprice.db'), `the folder ${folder} does not exist`], [join(dir, 'fuelpirce.db'), `there is no database at ${join(dir, 'fuelpirce.db')}`]] as const) {
      const url = `sqlite:${path}`;
      for (const [args, hint] of commands) {
        const r = await runCli(args, { DATABASE_URL: url });
        assert.deepEqual(r, { code: 2, stdout: '', stderr: `fuelprice: DATABASE_URL names ${url}, but ${where} (check the name, or create it with ${hint})\n` }, args.join(' '));
      }
      assert.equal(existsSync(path), false);
    }
    assert.equal(existsSync(folder), false);
  });

  test('migrate creates a SQLite database and its folder, and says what it did each time: created, up to date, upgraded', async () => {
    const folder = join(dir, 'made', 'by', 'migrate');
    const path = join(folder, 'fuelprice.db');
    const url = `sqlite:${path}`;
    const created = await runCli(['migrate'], { DATABASE_URL: url });
    assert.equal(created.code, 0);
    const latest = Number(/schema version (\d+)/.exec(created.stderr)?.[1]);
    assert.equal(created.stderr, `Created a new database at ${path} (schema version ${latest}).\n`);
    assert.ok(existsSync(path));
    const again = await runCli(['migrate'], { DATABASE_URL: url });
    assert.deepEqual(again, { code: 0, stdout: '', stderr: `The schema of ${url} is already up to date (version ${latest}); nothing changed.\n` });
    // A database of the schema before the latest: every migration but the last, as an older release left it.
    const older = join(dir, 'older.db');
    const db = new Database(older);
    for (const [i, sql] of SQLITE_MIGRATIONS.slice(0, latest - 1).entries()) {
      db.exec(sql);
      db.pragma(`user_version = ${i + 1}`);
    }
    db.close();
    const upgraded = await runCli(['migrate'], { DATABASE_URL: `sqlite:${older}` });
    assert.deepEqual(upgraded, { code: 0, stdout: '', stderr: `Upgraded the schema of sqlite:${older} from version ${latest - 1} to ${latest}.\n` });
  });

  test('serve --create makes a missing SQLite database and serves it', async () => {
    const path = join(dir, 'created-by-serve.db');
    const server = await startServe(['--create', '--port', '0'], { DATABASE_URL: `sqlite:${path}` });
    try {
      assert.equal((await fetch(`${server.address}/health`)).status, 200);
      assert.ok(existsSync(path));
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  test('a SQLite path that cannot be opened names the path, the variable and why: exit 1', async () => {
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'not a database, just some words in a file that is long enough to have a header\n'.repeat(4));
    const folder = join(dir, 'a-folder');
    mkdirSync(folder);
    const cases: Array<[string, string, string]> = [
      [text, text, 'not a SQLite database'],
      [folder, folder, 'the file cannot be opened (a folder, or no permission?)'],
      [join(text, 'x.db'), join(text, 'x.db'), 'a part of the path is a file, not a folder'],
    ];
    for (const [path, shown, reason] of cases) {
      const r = await runCli(['tokens', 'list'], { DATABASE_URL: `sqlite:${path}` });
      assert.deepEqual(r, { code: 1, stdout: '', stderr: `fuelprice: cannot open the SQLite database at ${shown} (from DATABASE_URL): ${reason}\n` }, path);
    }
  });

  describe('a port in use', () => {
    let taken: Server;
    let port: number;
    before(async () => {
      taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      const address = taken.address();
      assert.ok(address !== null && typeof address !== 'string');
      port = address.port;
    });
    after(() => taken.close());

    test('from PORT: exit 1, naming the port, PORT and --port', async () => {
      const r = await runCli(['serve', '--create'], { DATABASE_URL: `sqlite:${join(dir, 'serve.db')}`, PORT: String(port) });
      assert.deepEqual(r, { code: 1, stdout: '', stderr: `fuelprice: port ${port} is in use (from PORT); choose a free port with PORT=N or --port N\n` });
    });

    test('from --port: exit 1, naming the port, --port and PORT', async () => {
      const r = await runCli(['serve', '--create', '--port', String(port)], { DATABASE_URL: `sqlite:${join(dir, 'serve.db')}` });
      assert.deepEqual(r, { code: 1, stdout: '', stderr: `fuelprice: port ${port} is in use (from --port); choose a free port with --port N or PORT=N (--port wins over PORT)\n` });
    });

    test('the default port, with neither set: says so and names both', () => {
      const busy = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
      const error = listenError(busy, { port: 8080, portFrom: 'default', host: '127.0.0.1', hostFrom: 'HOST' });
      assert.equal(error?.message, 'port 8080 is in use (the default: neither --port nor PORT is set); choose a free port with --port N or PORT=N');
    });
  });
});
