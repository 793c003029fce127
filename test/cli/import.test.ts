import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { runCli } from '../helpers.ts';

const NOW = '2026-03-02T00:00:00Z';
const HISTORY = [
  'ServiceStationName,Address,Suburb,Postcode,Brand,FuelCode,PriceUpdatedDate,Price',
  'Ampol Foodary Surry Hills,"120 Cleveland Street, Surry Hills NSW 2010",Surry Hills,2010,Ampol,E10,01/02/2026 06:05,183.9',
  'Ampol Foodary Surry Hills,"120 Cleveland Street, Surry Hills NSW 2010",Surry Hills,2010,Ampol,U91,01/02/2026 06:05,185.9',
  'Ampol Foodary Surry Hills,"120 Cleveland Street, Surry Hills NSW 2010",Surry Hills,2010,Ampol,P98,02/02/2026 07:10,213.9',
  '',
].join('\n');

describe('fuelprice import of a file whose every row is rejected', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fuelprice-import-cli-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('is exit 1, not marked imported, and imports once the cause is fixed, without --restart', async () => {
    const path = join(dir, 'nsw.db');
    const env = { DATABASE_URL: `sqlite:${path}`, FUELPRICE_NOW: NOW };
    const file = join(dir, 'FuelCheck_2026_02.csv');
    writeFileSync(file, HISTORY);
    assert.equal((await runCli(['migrate'], env)).code, 0);

    // The clock is a month early (FUELPRICE_NOW): every price is dated ahead of it and rejected.
    const early = { ...env, FUELPRICE_NOW: '2026-01-20T00:00:00Z' };
    const rejected = `import nsw-history ${file}: FAILED: every row was rejected, so the file is not marked imported: `
      + 'fix what the rejections name, then import it again; so far 3 rows read = 0 stored + 0 already known + 0 corrected + '
      + '3 rejected (3 price dated more than two days ahead [first: line 2]); 1 station added\n';
    assert.deepEqual(await runCli(['import', 'nsw-history', file], early), { code: 1, stdout: '', stderr: rejected });
    // Not "already imported": the same command reads it again (the station the first run created is found, not added again).
    assert.deepEqual(await runCli(['import', 'nsw-history', file], early), { code: 1, stdout: '', stderr: rejected.replace('; 1 station added', '') });

    // The cause fixed (the clock right): the rows land, on the station the file itself names.
    assert.deepEqual(await runCli(['import', 'nsw-history', file], env), {
      code: 0, stdout: '', stderr: `import nsw-history ${file}: 3 rows read = 3 stored + 0 already known + 0 corrected + 0 rejected\n`,
    });
    assert.deepEqual(await runCli(['import', 'nsw-history', file], env), {
      code: 0, stdout: '', stderr: `import nsw-history ${file}: already imported (3 rows), skipped (--restart reads it again)\n`,
    });
  });
});

describe('fuelprice import of several files and a folder', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fuelprice-import-many-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const REAL = join(import.meta.dirname, '..', 'fixtures', 'import', 'real');

  test('reads each file in turn (a folder\'s in name order), one summary each, then the total equation', async () => {
    // After the snapshots' days (April 2026).
    const env = { DATABASE_URL: `sqlite:${join(dir, 'wa.db')}`, FUELPRICE_NOW: '2026-11-01T00:00:00Z' };
    const folder = join(dir, 'snapshots');
    mkdirSync(folder);
    for (const name of ['2026-04-07_ULP.json.gz', '2026-04-06_ULP.json.gz']) copyFileSync(join(REAL, name), join(folder, name));
    writeFileSync(join(folder, '.hidden.csv'), 'not read');
    writeFileSync(join(folder, 'MANIFEST.tsv'), 'not read either');
    const e85 = join(REAL, '2026-04-06_E85.json.gz');
    // The database is made first, as an operator runs migrate (an import does not create one).
    assert.equal((await runCli(['migrate'], env)).code, 0);
    const run = await runCli(['import', 'wa-history', e85, folder], env);
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stderr.trim().split('\n');
    assert.deepEqual(lines.map((l) => l.replace(/:.*/, '')), [
      `import wa-history ${e85}`, `import wa-history ${join(folder, '2026-04-06_ULP.json.gz')}`, `import wa-history ${join(folder, '2026-04-07_ULP.json.gz')}`,
      'import wa-history, 3 files (3 imported)',
    ]);
    // Every line is an equation that adds up, and the total is the sum of the files'.
    const terms = lines.map((line) => {
      const m = /: (\d+) rows? read = (\d+) stored \+ (\d+) already known \+ (\d+) corrected \+ (\d+) rejected/.exec(line);
      assert.ok(m, line);
      const [read, stored, known, corrected, rejected] = m.slice(1).map(Number) as [number, number, number, number, number];
      assert.equal(read, stored + known + corrected + rejected, line);
      return [read, stored, known, corrected, rejected];
    });
    const files = terms.slice(0, 3);
    assert.deepEqual(terms[3], [0, 1, 2, 3, 4].map((i) => files.reduce((sum, t) => sum + (t[i] ?? 0), 0)));

    // Again: each file is already imported, and the total says so.
    const again = await runCli(['import', 'wa-history', e85, folder], env);
    assert.equal(again.code, 0);
    assert.match(again.stderr, /already imported .*\n.*already imported .*\n.*already imported .*\nimport wa-history, 3 files \(0 imported, 3 already imported\): 0 rows read = 0 stored/);
  });

  test('a folder with no files is a usage error naming it', async () => {
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    const run = await runCli(['import', 'wa-history', empty], { DATABASE_URL: `sqlite:${join(dir, 'x.db')}`, FUELPRICE_NOW: NOW });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /no \.csv, \.xlsx, \.json or \.json\.gz files in the folder .*empty/);
  });
});
