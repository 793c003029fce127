import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort, runCli } from '../helpers.ts';

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
    const cases: Array<[Record<string, string>, string]> = [
      [{ DATABASE_URL: 'mysql://app:S3cretPw@db.example/fuel' }, "fuelprice: DATABASE_URL: must start with sqlite: or postgres://, got 'mysql://app:***@db.example/fuel'\n"],
      [{ DATABASE_URL: 'mysql://app:S3cr@tPw@db.example/fuel?password=S3cretPw' }, "fuelprice: DATABASE_URL: must start with sqlite: or postgres://, got 'mysql://app:***@db.example/fuel?password=***'\n"],
      [{ NSW_FUELCHECK_URL: 'ftp://user:S3cretPw@feeds.example/nsw' }, "fuelprice: NSW_FUELCHECK_URL: must be an http(s) URL, got 'ftp://user:***@feeds.example/nsw'\n"],
    ];
    for (const [env, stderr] of cases) {
      const r = await runCli(['tokens', 'list'], env);
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

  test('a SQLite path in a folder that does not exist is exit 2 naming the path and DATABASE_URL; nothing is created', async () => {
    const folder = join(dir, 'no-such-folder');
    const url = `sqlite:${join(folder, 'fuelprice.db')}`;
    const file = join(dir, 'history.csv');
    writeFileSync(file, 'ServiceStationName,Address,Suburb,Postcode,Brand,FuelCode,PriceUpdatedDate,Price\n');
    for (const args of [['serve', '--port', '0'], ['tokens', 'list'], ['tokens', 'create', '--name', 'x'], ['ingest', 'status'], ['import', 'nsw-history', file]]) {
      const r = await runCli(args, { DATABASE_URL: url });
      assert.deepEqual(r, {
        code: 2, stdout: '',
        stderr: `fuelprice: DATABASE_URL names ${url}, but the folder ${folder} does not exist (create it, or run \`fuelprice migrate\`, which does)\n`,
      }, args.join(' '));
    }
    assert.equal(existsSync(folder), false);
  });

  test('migrate creates the missing folder of a SQLite database', async () => {
    const folder = join(dir, 'made', 'by', 'migrate');
    const r = await runCli(['migrate'], { DATABASE_URL: `sqlite:${join(folder, 'fuelprice.db')}` });
    assert.equal(r.code, 0);
    assert.ok(existsSync(join(folder, 'fuelprice.db')));
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

    test('from PORT: exit 1, naming the port and PORT', async () => {
      const r = await runCli(['serve'], { DATABASE_URL: `sqlite:${join(dir, 'serve.db')}`, PORT: String(port) });
      assert.deepEqual(r, { code: 1, stdout: '', stderr: `fuelprice: port ${port} is in use (from PORT); set PORT to a free port\n` });
    });

    test('from --port: exit 1, naming the port and --port', async () => {
      const r = await runCli(['serve', '--port', String(port)], { DATABASE_URL: `sqlite:${join(dir, 'serve.db')}` });
      assert.deepEqual(r, { code: 1, stdout: '', stderr: `fuelprice: port ${port} is in use (from --port); choose a free --port\n` });
    });
  });
});
