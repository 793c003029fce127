/**
 * The long fault run: `npm run chaos -- --kills 60 [--backend sqlite|postgres] [--seed S]
 * [--feed crash|qld|all] [--api-kills N]`.
 *
 * Kills an ingest process with SIGKILL at seeded random points, --kills times per feed, and
 * checks the database after each kill (test/ingest/kill-harness.ts); then kills
 * `fuelprice serve` under load while an ingest process writes to the same SQLite file,
 * --api-kills times (test/ingest/api-kill.ts). PostgreSQL comes from FUELPRICE_TEST_POSTGRES.
 * Prints the figures; exits 1 when anything was lost, half applied or corrupt.
 */
import { parseArgs } from 'node:util';
import { type ApiKillFigures, apiKillRound, emptyApiFigures } from '../test/ingest/api-kill.ts';
import { type BackendName, type KillFigures, type KillScenario, crashScenario, killRounds, qldScenario, seededRandom } from '../test/ingest/kill-harness.ts';

const { values } = parseArgs({
  options: {
    kills: { type: 'string', default: '60' },
    backend: { type: 'string', default: 'sqlite' },
    seed: { type: 'string', default: '1' },
    feed: { type: 'string', default: 'crash' },
    'api-kills': { type: 'string', default: '0' },
    'kills-per-step': { type: 'string', default: '4' },
  },
});

function count(name: string, text: string, max: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > max) {
    process.stderr.write(`chaos: --${name} must be an integer from 0 to ${max}\n`);
    process.exit(2);
  }
  return n;
}

const kills = count('kills', values.kills, 10_000);
const apiKills = count('api-kills', values['api-kills'], 1_000);
const killsPerStep = Math.max(1, count('kills-per-step', values['kills-per-step'], 100));
const seed = count('seed', values.seed, 2 ** 31);
const backend = values.backend as BackendName;
if (backend !== 'sqlite' && backend !== 'postgres') {
  process.stderr.write('chaos: --backend is sqlite or postgres\n');
  process.exit(2);
}
const feeds = values.feed === 'all' ? ['crash', 'qld'] : [values.feed];
if (!feeds.every((f) => f === 'crash' || f === 'qld')) {
  process.stderr.write('chaos: --feed is crash, qld or all\n');
  process.exit(2);
}

const random = seededRandom(seed);
const line = (text: string): void => { process.stdout.write(`${text}\n`); };
let failed = false;

line(`chaos: backend ${backend}, seed ${seed}, ${kills} ingest kills per feed (${feeds.join(', ')}), ${apiKills} API kills`);
for (const feed of feeds) {
  const started = Date.now();
  const scenario: KillScenario = feed === 'qld' ? await qldScenario(backend) : await crashScenario(backend);
  line(`${scenario.name}: ${scenario.references.length} reference states, kill points drawn in the first ${scenario.spanMs} ms`);
  let figures: KillFigures;
  let reported = 0;
  try {
    figures = await killRounds(scenario, {
      backend, kills, killsPerStep, random,
      onKill: (f) => {
        if (f.kills % 10 === 0 && f.kills > reported) process.stderr.write(`  ${f.kills} kills...\n`);
        reported = f.kills;
      },
    });
  } finally {
    await scenario.close();
  }
  line(`  kills done:           ${figures.kills} (in ${figures.rounds} rounds; ${figures.finishedFirst} runs had finished before their kill; last span ${figures.spanMs} ms)`);
  line(`  integrity failures:   ${figures.integrityFailures}`);
  line(`  half-applied batches: ${figures.halfApplied}`);
  line(`  city means equal only to 12 digits (PostgreSQL float sums in scan order): ${figures.lastBitMeans}`);
  line(`  batches lost:         ${figures.wentBack}`);
  line(`  final mismatches:     ${figures.finalMismatches}`);
  line(`  kills by state left (k-th state of the uninterrupted run; for the crash feed k batches): ${Object.entries(figures.killedAfter).map(([k, n]) => `${k}:${n}`).join(' ')}`);
  line(`  took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  for (const p of figures.problems) line(`  PROBLEM ${p}`);
  if (figures.integrityFailures + figures.halfApplied + figures.wentBack + figures.finalMismatches > 0 || figures.problems.length > 0) failed = true;
}

if (apiKills > 0) {
  const started = Date.now();
  const figures: ApiKillFigures = emptyApiFigures();
  for (let i = 0; i < apiKills; i++) {
    await apiKillRound({ random, concurrency: 16 }, figures);
    if ((i + 1) % 5 === 0) process.stderr.write(`  ${i + 1} API kills...\n`);
  }
  line('fuelprice serve killed under load (SQLite file, an ingest process writing):');
  line(`  kills done:             ${figures.kills}`);
  line(`  requests answered:      ${figures.answered} before the kills (${figures.shed} shed with 503 + Retry-After, ${figures.non200} other non-200)`);
  line(`  integrity failures:     ${figures.integrityFailures}`);
  line(`  restarts serving 200:   ${figures.cleanRestarts}`);
  line(`  sealed answers changed: ${figures.changedAnswers}`);
  line(`  took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  for (const p of figures.problems) line(`  PROBLEM ${p}`);
  if (figures.integrityFailures + figures.changedAnswers + figures.non200 > 0 || figures.cleanRestarts !== figures.kills) failed = true;
}

process.exit(failed ? 1 : 0);
