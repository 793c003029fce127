/**
 * Every published file in ../shared/realdata/ (or the folder given) through `fuelprice import`,
 * as a user runs it, each state into a fresh SQLite database: the command's own summary line
 * (read = stored + already known + corrected + rejected by reason), wall time, CPU time (user +
 * system) and peak memory (GNU time's maximum resident set size), and the load average before each. The NSW months are also timed one by one, each into a
 * fresh database: the bar is a ~75k-row month in under 3 s.
 *
 *   npx tsx bench/real-data.ts [REALDATA_DIR]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const data = resolve(process.argv[2] ?? join(root, '..', 'shared', 'realdata'));
if (!existsSync(data)) throw new Error(`no ${data}`);
const bin = join(root, 'bin', 'fuelprice.js');
const dir = mkdtempSync(join(tmpdir(), 'fuelprice-real-'));

interface Measured { label: string; seconds: number; user: number; system: number; peakMb: number; load: string; lines: string[]; code: number | null }

function run(label: string, db: string, args: string[]): Measured {
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', process.execPath, bin, ...args], {
    env: { ...process.env, DATABASE_URL: `sqlite:${join(dir, db)}`, FUELPRICE_NOW: '2026-11-26T12:00:00Z', LOG_LEVEL: 'warn' },
    encoding: 'utf8', maxBuffer: 64 * 1024 * 1024,
  });
  const lines = r.stderr.trim().split('\n');
  const [seconds = 'NaN', user = 'NaN', system = 'NaN', kb = 'NaN'] = (lines.pop() ?? '').split(' ');
  return { label, seconds: Number(seconds), user: Number(user), system: Number(system), peakMb: Number(kb) / 1024, load, lines: lines.filter((l) => l.startsWith('import ') || l.startsWith('total')), code: r.status };
}

const results: Measured[] = [];
try {
  const nsw = join(data, 'nsw_fuelcheck_monthly_xlsx');
  const months = readdirSync(nsw).filter((f) => f.endsWith('.xlsx')).sort();
  for (const [i, month] of months.entries()) {
    run('migrate', `nsw-${i}.db`, ['migrate']);
    results.push(run(`nsw-history ${month} (fresh database)`, `nsw-${i}.db`, ['import', 'nsw-history', join(nsw, month)]));
  }
  run('migrate', 'nsw-all.db', ['migrate']);
  results.push(run('nsw-history: the three months in one command', 'nsw-all.db', ['import', 'nsw-history', nsw]));
  run('migrate', 'qld.db', ['migrate']);
  results.push(run('qld-history: the monthly file and the flattened API answer', 'qld.db', ['import', 'qld-history',
    join(data, 'qld_fuel_price_reporting_monthly_csv'), join(data, 'qld_fpd_api_getsitesprices_flattened', '25_33.csv')]));
  run('migrate', 'wa.db', ['migrate']);
  results.push(run('wa-history: every daily snapshot of April and May 2026', 'wa.db', ['import', 'wa-history', join(data, 'wa_fuelwatch_api_daily_snapshots')]));
  for (const r of results) {
    console.log(`## ${r.label}: exit ${r.code}, ${r.seconds.toFixed(2)} s wall, CPU ${r.user.toFixed(2)} s user + ${r.system.toFixed(2)} s system, `
      + `peak ${r.peakMb.toFixed(0)} MB (load average before: ${r.load})`);
    for (const line of r.lines.slice(-4)) console.log(`   ${line}`);
  }
  console.log(`(databases in ${dir}, removed)`);
} finally {
  if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true });
}
