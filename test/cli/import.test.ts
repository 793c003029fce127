import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
      + 'fix what the rejections name, then import it again; so far 3 rows, 1 station added, 0 accepted, 0 ignored as already known, '
      + '3 rejected (3 price dated more than two days ahead)\n';
    assert.deepEqual(await runCli(['import', 'nsw-history', file], early), { code: 1, stdout: '', stderr: rejected });
    // Not "already imported": the same command reads it again (the station the first run created is found, not added again).
    assert.deepEqual(await runCli(['import', 'nsw-history', file], early), { code: 1, stdout: '', stderr: rejected.replace('1 station added, ', '') });

    // The cause fixed (the clock right): the rows land, on the station the file itself names.
    assert.deepEqual(await runCli(['import', 'nsw-history', file], env), {
      code: 0, stdout: '', stderr: `import nsw-history ${file}: 3 rows, 3 accepted, 0 ignored as already known, 0 rejected\n`,
    });
    assert.deepEqual(await runCli(['import', 'nsw-history', file], env), {
      code: 0, stdout: '', stderr: `import nsw-history ${file}: already imported (3 rows), skipped (--restart reads it again)\n`,
    });
  });
});
