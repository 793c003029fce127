/**
 * The deployment files (Dockerfile, compose.yaml, docs/fuelprice.service, docs/DEPLOY.md) name
 * commands, options, variables, routes and a Node version that live elsewhere in the code: these
 * tests hold them to the real ones, so that a change on either side that breaks a deployment
 * fails here. No container engine is needed: the image's command runs as a process, with the
 * image's environment, and the image's health check probes it.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { parsePort } from '../../src/config.ts';
import { usageLine } from '../../src/cli/help.ts';
import { COMMANDS as CLI_COMMANDS } from '../../src/cli/spec.ts';
import { feedVariables } from '../../src/ingest/feeds/index.ts';
import { type ServeProcess, freePort, runCli, startServe } from '../helpers.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

interface Instruction { keyword: string; args: string }

/** The Dockerfile's instructions, comments dropped and continued lines joined, split into its stages. */
function dockerStages(text: string): Instruction[][] {
  const logical = text.split('\n').filter((line) => !/^\s*#/.test(line)).join('\n').replace(/\\\n/g, ' ');
  const stages: Instruction[][] = [];
  for (const line of logical.split('\n')) {
    const match = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (!match?.[1] || match[2] === undefined) continue;
    const instruction = { keyword: match[1].toUpperCase(), args: match[2].trim() };
    if (instruction.keyword === 'FROM') stages.push([]);
    stages.at(-1)?.push(instruction);
  }
  return stages;
}

/** The arguments of the last `keyword` instruction of a stage. */
function last(stage: readonly Instruction[], keyword: string): string {
  const found = stage.filter((i) => i.keyword === keyword).at(-1);
  assert.ok(found, `the runtime stage has a ${keyword}`);
  return found.args;
}

/** `KEY=value KEY=value` of the ENV instructions of a stage (no value here has a space). */
function dockerEnv(stage: readonly Instruction[]): Record<string, string> {
  const pairs = stage.filter((i) => i.keyword === 'ENV').flatMap((i) => i.args.split(/\s+/));
  return Object.fromEntries(pairs.map((pair) => {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(\S*)$/.exec(pair);
    assert.ok(match?.[1] !== undefined && match[2] !== undefined, `ENV ${pair} is KEY=value`);
    return [match[1], match[2]];
  }));
}

/**
 * One service of compose.yaml as its lines. compose.yaml is kept in a plain style (two-space
 * indents, flow sequences of double-quoted strings) that these few lines read; a file rewritten
 * in another style fails here rather than passing unchecked.
 */
function composeService(text: string, name: string): string[] {
  const lines = text.split('\n');
  const start = lines.indexOf(`  ${name}:`);
  assert.ok(start > 0, `compose.yaml has a service ${name}`);
  const end = lines.findIndex((line, i) => i > start && /^ {0,2}\S/.test(line));
  return lines.slice(start + 1, end === -1 ? undefined : end).filter((line) => !/^\s*#/.test(line));
}

/** A `key: ["a", "b"]` line of a service, as its list. */
function composeList(service: readonly string[], key: string): string[] {
  const line = service.find((l) => l.trimStart().startsWith(`${key}: [`));
  assert.ok(line, `the service has ${key}: [...]`);
  return JSON.parse(line.slice(line.indexOf('['))) as string[];
}

/** The `environment:` mapping of a service. */
function composeEnv(service: readonly string[]): Record<string, string> {
  const start = service.findIndex((l) => l === '    environment:');
  assert.ok(start >= 0, 'the service has an environment: mapping');
  const env: Record<string, string> = {};
  for (const line of service.slice(start + 1)) {
    const match = /^ {6}([A-Za-z_][A-Za-z0-9_]*): (.*)$/.exec(line);
    if (!match?.[1] || match[2] === undefined) break;
    env[match[1]] = match[2];
  }
  return env;
}

/** `Key=value` lines of the unit's [Service] section, in order. */
function unitService(text: string): Array<[string, string]> {
  const section = text.split(/^\[/m).find((s) => s.startsWith('Service]')) ?? '';
  return section.split('\n').flatMap((line) => {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line);
    return match?.[1] !== undefined && match[2] !== undefined ? [[match[1], match[2]] as [string, string]] : [];
  });
}

const unitValue = (unit: ReadonlyArray<[string, string]>, key: string): string | undefined => unit.filter(([k]) => k === key).at(-1)?.[1];

/** The unit's `Environment=NAME=value` lines. */
function unitEnv(unit: ReadonlyArray<[string, string]>): Record<string, string> {
  return Object.fromEntries(unit.filter(([k]) => k === 'Environment').map(([, v]): [string, string] => {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(v);
    assert.ok(match?.[1] !== undefined && match[2] !== undefined, `Environment=${v} is NAME=value`);
    return [match[1], match[2]];
  }));
}

/** The CLI's subcommands: the first word of each command in its table (src/cli/spec.ts). */
const COMMANDS = new Set(Object.values(CLI_COMMANDS).map((spec) => spec.name.split(' ')[0]));

/**
 * The variables the server reads: those src/config.ts reads (`env.NAME` and the names it passes as strings, 'NAME'),
 * and each feed's, declared beside its adapter (src/ingest/feeds/index.ts feedVariables, what --help lists).
 */
const CONFIG_SOURCE = read('src/config.ts');
const CONFIG_VARIABLES = new Set([
  ...[...CONFIG_SOURCE.matchAll(/env\.([A-Z][A-Z0-9_]*)|'([A-Z][A-Z0-9_]*)'/g)].map((m) => m[1] ?? m[2]),
  ...feedVariables().map(([name]) => name),
]);

const PACKAGE = JSON.parse(read('package.json')) as { bin: Record<string, string>; engines: { node: string } };
const DOCKERFILE = dockerStages(read('Dockerfile'));
const RUNTIME = DOCKERFILE.at(-1) ?? [];
const COMPOSE = read('compose.yaml');
const UNIT = unitService(read('docs/fuelprice.service'));
const INGEST_UNIT = unitService(read('docs/fuelprice-ingest.service'));
const DEPLOY_MD = read('docs/DEPLOY.md');
/** The shell blocks of DEPLOY.md: the commands it tells an operator to type. */
const DEPLOY_SHELL = [...DEPLOY_MD.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '').join('\n');

/**
 * Asserts the real CLI accepts `serve args...` without serving: on an in-memory database, more
 * than one worker is refused (exit 2, one line), and that check comes after every option has
 * been parsed and validated, so an unknown option or a bad value would fail with its own line.
 */
async function assertServeAccepts(args: readonly string[]): Promise<void> {
  const probe = args.includes('--workers') ? [...args] : [...args, '--workers', '2'];
  assert.notEqual(probe[probe.indexOf('--workers') + 1], '1', 'the probe needs more than one worker');
  const r = await runCli(['serve', ...probe], { DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent' });
  assert.equal(r.stderr.split('\n')[0], 'fuelprice: --workers above 1 needs a database the workers share: a sqlite: file or postgres://, not sqlite::memory:', `serve ${args.join(' ')}`);
  assert.equal(r.code, 2);
}

describe('the Dockerfile', () => {
  test('every stage starts from the supported Node major (README, the one CI runs), which package.json\'s engines allow', () => {
    const required = /^>=\s*(\d+)\.(\d+)/.exec(PACKAGE.engines.node);
    assert.ok(required?.[1], `engines.node ${PACKAGE.engines.node} names a minimum`);
    const supported = /Node\.js (\d+) \(LTS\) is the supported runtime/.exec(read('README.md'))?.[1];
    assert.ok(supported, 'the README names the supported Node major');
    assert.ok(Number(supported) >= Number(required[1]), `engines.node ${PACKAGE.engines.node} allows Node ${supported}`);
    assert.match(read('scripts/node24.sh'), new RegExp(`"\\$package@${supported}"`), `CI's Node (scripts/node24.sh) is ${supported}`);
    assert.ok(DOCKERFILE.length >= 2, 'a build stage and a runtime stage');
    for (const stage of DOCKERFILE) {
      const image = stage[0]?.args.split(/\s+/)[0] ?? '';
      const tag = /^node:(\d+)(?:\.(\d+))?-[a-z-]+$/.exec(image);
      assert.ok(tag?.[1], `FROM ${image} is node:<major>[.<minor>]-<variant>`);
      assert.equal(tag[1], supported, `FROM ${image}`);
    }
    assert.match(DOCKERFILE.at(-1)?.[0]?.args ?? '', /-slim$/, 'the runtime stage is a slim image');
  });

  test('the runtime stage runs as a user that is not root, and that user owns the data volume', () => {
    const user = last(RUNTIME, 'USER');
    assert.ok(!/^(root|0)(:|$)/.test(user), `USER ${user}`);
    const [volume] = JSON.parse(last(RUNTIME, 'VOLUME')) as string[];
    assert.ok(volume, 'a data volume');
    assert.ok(RUNTIME.some((i) => i.keyword === 'RUN' && i.args.includes(`chown ${user}:${user} ${volume}`)), `${volume} belongs to ${user}`);
    const userAt = RUNTIME.findIndex((i) => i.keyword === 'USER');
    assert.ok(RUNTIME.slice(userAt).every((i) => i.keyword !== 'RUN'), 'nothing runs as root after USER');
  });

  test('the database defaults to a SQLite file on the volume; the port is the one exposed, checked and configured', () => {
    const env = dockerEnv(RUNTIME);
    const [volume] = JSON.parse(last(RUNTIME, 'VOLUME')) as string[];
    assert.ok(env.DATABASE_URL?.startsWith(`sqlite:${volume}/`), `DATABASE_URL ${env.DATABASE_URL} lies in ${volume}`);
    assert.equal(env.HOST, '0.0.0.0');
    assert.equal(last(RUNTIME, 'EXPOSE'), env.PORT);
    assert.equal(parsePort(undefined), Number(env.PORT), 'the image port is also the configured default the health check falls back on');
    assert.match(last(RUNTIME, 'HEALTHCHECK'), new RegExp(`process\\.env\\.PORT \\|\\| ${env.PORT}\\)`));
  });

  test('ENTRYPOINT is the package executable and CMD a subcommand it has, with options serve accepts', async () => {
    const [executable, ...rest] = JSON.parse(last(RUNTIME, 'ENTRYPOINT')) as string[];
    assert.deepEqual(rest, []);
    const binPath = executable === undefined ? undefined : PACKAGE.bin[executable];
    assert.ok(binPath, `ENTRYPOINT ${executable} is a bin of package.json`);
    const workdir = last(RUNTIME, 'WORKDIR');
    assert.ok(RUNTIME.some((i) => i.keyword === 'RUN' && i.args.includes(`ln -s ${workdir}/${binPath} /usr/local/bin/${executable}`)), `${executable} on the PATH is ${binPath}`);
    const command = JSON.parse(last(RUNTIME, 'CMD')) as string[];
    assert.deepEqual(command.slice(0, 1), ['serve']);
    await assertServeAccepts(command.slice(1));
  });
});

describe('compose.yaml', () => {
  const fuelprice = composeService(COMPOSE, 'fuelprice');
  const ingest = composeService(COMPOSE, 'ingest');

  test('fuelprice runs serve with options serve accepts, more than one worker, on PostgreSQL and Redis once they are healthy', async () => {
    const command = composeList(fuelprice, 'command');
    assert.equal(command[0], 'serve');
    assert.ok(Number(command[command.indexOf('--workers') + 1]) > 1, 'serve --workers N with N above 1');
    await assertServeAccepts(command.slice(1));
    const env = composeEnv(fuelprice);
    assert.match(env.DATABASE_URL ?? '', /^postgres:\/\/fuelprice:\$\{POSTGRES_PASSWORD:\?[^}]+\}@postgres:5432\/fuelprice$/);
    assert.equal(env.REDIS_URL, 'redis://redis:6379');
    const dependsOn = fuelprice.join('\n');
    for (const service of ['postgres', 'redis']) {
      assert.match(dependsOn, new RegExp(`\\n {6}${service}:\\n {8}condition: service_healthy`), `depends on ${service} being healthy`);
      assert.ok(composeService(COMPOSE, service).some((l) => l.startsWith('      test: ["CMD"')), `${service} has a health check`);
    }
  });

  test('ingest runs a subcommand the CLI has, after fuelprice has migrated; neither service runs as root', () => {
    const command = composeList(ingest, 'command');
    assert.deepEqual(command, ['ingest', 'all', '--watch']);
    assert.equal(usageLine(CLI_COMMANDS.ingest), 'fuelprice ingest FEED... [--watch]');
    assert.match(CLI_COMMANDS.ingest.summary, /or all$/);
    assert.match(ingest.join('\n'), /\n {6}fuelprice:\n {8}condition: service_healthy/);
    assert.ok(ingest.includes('      disable: true'), 'no HTTP health check for a process without a port');
    for (const service of [fuelprice, ingest]) assert.ok(!service.some((l) => /^ {4}user:/.test(l)), 'the image\'s own user');
  });

  test('fuelprice\'s health check is the image\'s; the published port is the image\'s', () => {
    const test = composeList(fuelprice, 'test');
    assert.deepEqual(test, ['CMD', ...JSON.parse(last(RUNTIME, 'HEALTHCHECK').replace(/^.*?CMD /, '')) as string[]]);
    assert.ok(fuelprice.includes(`      - "127.0.0.1:${dockerEnv(RUNTIME).PORT}:${dockerEnv(RUNTIME).PORT}"`));
  });

  test('no anonymous volume: the services of the image mount something of their own over its VOLUME, and every named volume is declared', () => {
    interface Mount { type?: string; source?: string; target?: string; read_only?: boolean }
    const compose = parseYaml(COMPOSE) as { services: Record<string, { build?: string; image?: string; volumes?: Array<string | Mount>; environment?: Record<string, string> }>; volumes?: Record<string, unknown> };
    const [volume] = JSON.parse(last(RUNTIME, 'VOLUME')) as string[];
    const declared = Object.keys(compose.volumes ?? {});
    const used = new Set<string>();
    for (const [name, service] of Object.entries(compose.services)) {
      const mounts = (service.volumes ?? []).map((m): Mount => {
        if (typeof m !== 'string') return m;
        const [source, target, ...rest] = m.split(':');
        assert.ok(target !== undefined && rest.length <= 1, `${name}: ${m} is SOURCE:TARGET[:MODE] (a bare path is an anonymous volume)`);
        return { type: source?.startsWith('/') || source?.startsWith('.') ? 'bind' : 'volume', source, target };
      });
      for (const mount of mounts) {
        assert.ok(['tmpfs', 'volume', 'bind'].includes(mount.type ?? ''), `${name}: a mount of a known type`);
        if (mount.type === 'volume') {
          assert.ok(mount.source && declared.includes(mount.source), `${name}: the volume ${String(mount.source)} is named and declared (no anonymous volume)`);
          used.add(mount.source);
        }
      }
      if (service.build !== undefined) {
        // The image's VOLUME would get an anonymous volume per container; on PostgreSQL nothing is written there.
        assert.match(service.environment?.DATABASE_URL ?? '', /^postgres:\/\//, `${name} is on PostgreSQL`);
        assert.deepEqual(mounts.filter((m) => m.target === volume), [{ type: 'tmpfs', target: volume, read_only: true }], `${name}: an empty read-only tmpfs over ${volume}`);
      }
    }
    assert.deepEqual(declared, ['postgres-data']);
    assert.deepEqual([...used], declared, 'every declared volume is used');
    assert.deepEqual(Object.entries(compose.services).filter(([, s]) => s.build !== undefined).map(([n]) => n), ['fuelprice', 'ingest']);
  });

  test('a grace period above the 10 s a stopping process takes at most', () => {
    for (const service of [fuelprice, ingest]) {
      const grace = /^ {4}stop_grace_period: (\d+)s$/.exec(service.find((l) => l.includes('stop_grace_period')) ?? '');
      assert.ok(grace?.[1] !== undefined && Number(grace[1]) > 10, 'stop_grace_period above 10 s');
    }
  });
});

describe('the systemd unit', () => {
  test('runs bin/fuelprice.js serve with options serve accepts, as a dedicated user, hardened, restarted on failure', async () => {
    const [node, script, command, ...args] = (unitValue(UNIT, 'ExecStart') ?? '').split(/\s+/);
    assert.match(node ?? '', /^\/.*\/node$/, 'an absolute path to node');
    assert.ok(script?.endsWith(`/${PACKAGE.bin.fuelprice}`), `ExecStart runs ${PACKAGE.bin.fuelprice}`);
    assert.equal(command, 'serve');
    await assertServeAccepts(args);
    assert.ok(!/^(root|0)$/.test(unitValue(UNIT, 'User') ?? 'root'), 'User= is set and not root');
    for (const [key, value] of [['NoNewPrivileges', 'yes'], ['ProtectSystem', 'strict'], ['ProtectHome', 'yes'], ['PrivateTmp', 'yes'], ['Restart', 'on-failure'], ['KillMode', 'mixed']]) {
      assert.equal(unitValue(UNIT, key ?? ''), value, `${key}=${value}`);
    }
    assert.ok(Number(/^(\d+)$/.exec(unitValue(UNIT, 'TimeoutStopSec') ?? '')?.[1]) > 10, 'TimeoutStopSec above the 10 s a stopping process takes at most');
    // Without it a call outside the filter kills the process, and Node makes one (pkey_alloc) at start.
    if (unitValue(UNIT, 'SystemCallFilter') !== undefined) assert.equal(unitValue(UNIT, 'SystemCallErrorNumber'), 'EPERM');
    assert.equal(unitValue(UNIT, 'MemoryDenyWriteExecute'), undefined, 'V8 compiles code into memory it then runs');
  });

  test('the database is a SQLite file in the state directory, the only place the unit may write', () => {
    const state = unitValue(UNIT, 'StateDirectory');
    assert.ok(state, 'StateDirectory=');
    const url = unitEnv(UNIT).DATABASE_URL ?? '';
    assert.match(url, new RegExp(`^sqlite:/var/lib/${state}/[^/]+\\.db$`));
    assert.equal(unitValue(UNIT, 'WorkingDirectory'), `/var/lib/${state}`);
    // The command line reads the environment file, not the unit: the file must name the same database.
    assert.ok(DEPLOY_MD.includes(`# /etc/fuelprice/fuelprice.env\nDATABASE_URL=${url}\n`), 'DEPLOY.md\'s environment file sets the unit\'s DATABASE_URL');
    assert.equal(unitValue(UNIT, 'ReadWritePaths'), undefined);
  });
});

describe('the scheduled ingest\'s systemd unit', () => {
  test('runs ingest all --watch beside the server: the same node, program, user, environment file, database and hardening; always restarted', async () => {
    const [node, script, ...args] = (unitValue(INGEST_UNIT, 'ExecStart') ?? '').split(/\s+/);
    const [serverNode, serverScript] = (unitValue(UNIT, 'ExecStart') ?? '').split(/\s+/);
    assert.deepEqual([node, script], [serverNode, serverScript]);
    assert.deepEqual(args, ['ingest', 'all', '--watch']);
    const spec = CLI_COMMANDS.ingest;
    assert.ok('watch' in spec.options, 'ingest has --watch');
    for (const key of ['User', 'Group', 'EnvironmentFile', 'WorkingDirectory', 'StateDirectory', 'UMask', 'NoNewPrivileges', 'ProtectSystem', 'ProtectHome', 'PrivateTmp',
      'RestrictAddressFamilies', 'CapabilityBoundingSet', 'SystemCallFilter', 'SystemCallErrorNumber']) {
      assert.equal(unitValue(INGEST_UNIT, key), unitValue(UNIT, key), key);
    }
    assert.equal(unitEnv(INGEST_UNIT).DATABASE_URL, unitEnv(UNIT).DATABASE_URL, 'the same database');
    for (const variable of Object.keys(unitEnv(INGEST_UNIT))) assert.ok(CONFIG_VARIABLES.has(variable), variable);
    assert.equal(unitValue(INGEST_UNIT, 'Restart'), 'always');
    assert.ok(Number(unitValue(INGEST_UNIT, 'TimeoutStopSec')) > 30, 'above the 30 s a feed request may take');
    assert.match(DEPLOY_SHELL, /install -m 0644 docs\/fuelprice\.service docs\/fuelprice-ingest\.service \/etc\/systemd\/system\//);
    assert.match(DEPLOY_SHELL, /systemctl enable --now fuelprice fuelprice-ingest/);
  });

  test('DEPLOY.md says a new database is empty until data is written, and each way ends on an answer with data', () => {
    assert.match(DEPLOY_MD, /\*\*A new database is empty\.\*\*/);
    const dataAnswers = [...DEPLOY_SHELL.matchAll(/curl -H "Authorization: Bearer fp_\.\.\." "http:\/\/127\.0\.0\.1:8080\/v1\/cities\?state=WA"/g)];
    assert.equal(dataAnswers.length, 3, 'container, compose and systemd each end on cities with data');
    assert.equal(existsSync(join(ROOT, 'docs', 'DEPLOYMENT.md')), false, 'one deploy document');
  });
});

/** Where DEPLOY.md installs Node 24 for the units (`export FUELPRICE_NODE24_DIR=...` before `. scripts/node24.sh`). */
const NODE24_DIR = /^export FUELPRICE_NODE24_DIR=(\/\S+)/m.exec(DEPLOY_SHELL)?.[1];
const SYSTEMD_ANALYZE = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
/** Without systemd-analyze (package systemd) the check is skipped, saying why, unless FUELPRICE_TEST_SYSTEMD=required (.ci/run). */
const NO_SYSTEMD = process.env.FUELPRICE_TEST_SYSTEMD !== 'required' && SYSTEMD_ANALYZE.status !== 0
  ? 'systemd-analyze is missing: apt-get install systemd (.ci/run does it); FUELPRICE_TEST_SYSTEMD=required makes this a failure' : false;

describe('the units start on a Debian 12 host, whose own node is too old', () => {
  test('both run the Node 24 DEPLOY.md installs for them, at a path ProtectHome=yes leaves visible, and so does every command DEPLOY.md runs as the service', () => {
    assert.ok(NODE24_DIR, 'DEPLOY.md exports FUELPRICE_NODE24_DIR before sourcing scripts/node24.sh');
    assert.match(DEPLOY_SHELL, new RegExp(`export FUELPRICE_NODE24_DIR=${NODE24_DIR}[^\\n]*\\n\\. scripts/node24\\.sh`));
    const node = `${NODE24_DIR}/bin/node`;
    for (const unit of [UNIT, INGEST_UNIT]) {
      assert.equal((unitValue(unit, 'ExecStart') ?? '').split(/\s+/)[0], node);
      assert.equal(unitValue(unit, 'ProtectHome'), 'yes');
    }
    // ProtectHome=yes makes /home, /root and /run/user empty for the service; ~/.cache is under them.
    assert.ok(!/^\/(home|root|run\/user)(\/|$)/.test(node), `${node} is outside what ProtectHome=yes hides`);
    const runs = [...DEPLOY_SHELL.matchAll(/exec (\S+) \/opt\/fuelprice\/bin\/fuelprice\.js/g)].map((m) => m[1]);
    assert.ok(runs.length >= 5, 'migrate, tokens, ingest status, upgrade and backup run as the service');
    for (const run of runs) assert.equal(run, node);
  });

  test('npm ci builds (the prepare script): DEPLOY.md does not build a second time', () => {
    assert.match((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.prepare ?? '', /^npm run build\b/);
    assert.doesNotMatch(DEPLOY_SHELL, /npm run build/);
    assert.equal([...DEPLOY_SHELL.matchAll(/\bnpm ci && npm prune --omit=dev\b/g)].length, 2, 'install and upgrade');
  });

  test('scripts/node24.sh with FUELPRICE_NODE24_DIR installs there even under Node 24, and links DIR/bin/node to it', { skip: process.platform !== 'linux' && 'the npm package of Node is named per platform; checked on Linux' }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'fuelprice-node24-'));
    try {
      // A Node 24 already installed there (this process's own, linked in): the script keeps it and makes the link.
      const packageBin = join(dir, 'node_modules', `node-linux-${process.arch}`, 'bin');
      mkdirSync(packageBin, { recursive: true });
      symlinkSync(process.execPath, join(packageBin, 'node'));
      const run = spawnSync('sh', ['-c', '. scripts/node24.sh && command -v node'], {
        cwd: ROOT, encoding: 'utf8', env: { ...process.env, FUELPRICE_NODE24_DIR: dir, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` },
      });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stdout.trim(), join(packageBin, 'node'), 'first on the PATH');
      assert.equal(readlinkSync(join(dir, 'bin', 'node')), `../node_modules/node-linux-${process.arch}/bin/node`);
      const version = spawnSync(join(dir, 'bin', 'node'), ['--version'], { encoding: 'utf8' });
      assert.equal(version.stdout.trim(), process.version);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('systemd-analyze verify finds nothing in either unit, laid out as DEPLOY.md installs them', { skip: NO_SYSTEMD }, () => {
    assert.equal(SYSTEMD_ANALYZE.status, 0, `systemd-analyze --version: ${SYSTEMD_ANALYZE.error?.message ?? SYSTEMD_ANALYZE.stderr}`);
    const root = mkdtempSync(join(tmpdir(), 'fuelprice-units-'));
    try {
      // /opt/fuelprice moved under a temporary folder: its node (this process's Node 24) and program, nothing else changed.
      mkdirSync(join(root, 'opt', 'fuelprice', 'node24', 'bin'), { recursive: true });
      mkdirSync(join(root, 'opt', 'fuelprice', 'bin'), { recursive: true });
      symlinkSync(process.execPath, join(root, 'opt', 'fuelprice', 'node24', 'bin', 'node'));
      symlinkSync(join(ROOT, PACKAGE.bin.fuelprice ?? ''), join(root, 'opt', 'fuelprice', 'bin', 'fuelprice.js'));
      const verify = (files: Record<string, string>): { status: number | null; output: string } => {
        const paths = Object.entries(files).map(([name, text]) => {
          writeFileSync(join(root, name), text.replaceAll('/opt/fuelprice/', `${root}/opt/fuelprice/`));
          return join(root, name);
        });
        const result = spawnSync('systemd-analyze', ['verify', ...paths], { encoding: 'utf8' });
        return { status: result.status, output: `${result.stdout}${result.stderr}` };
      };
      const units = { 'fuelprice.service': read('docs/fuelprice.service'), 'fuelprice-ingest.service': read('docs/fuelprice-ingest.service') };
      assert.match(units['fuelprice.service'], new RegExp(`^ExecStart=${NODE24_DIR ?? ''}/bin/node `, 'm'));
      assert.deepEqual(verify(units), { status: 0, output: '' });
      // The check sees a mistake: an unknown key is only a warning to systemd, so any output fails above.
      const broken = verify({ 'fuelprice.service': units['fuelprice.service'].replace('[Service]\n', '[Service]\nProtectHomes=yes\n') });
      assert.match(broken.output, /Unknown key.*ProtectHomes/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('variables, routes and commands the deployment files name', () => {
  test('every variable set for fuelprice is one src/config.ts or a feed reads', () => {
    assert.ok(CONFIG_VARIABLES.has('DATABASE_URL') && CONFIG_VARIABLES.has('KEEP_ALIVE_TIMEOUT_MS') && CONFIG_VARIABLES.has('QLD_FPD_TOKEN'), 'the reading of config.ts and the feeds found their variables');
    const envFile = /```sh\n# \/etc\/fuelprice\/fuelprice\.env\n([\s\S]*?)```/.exec(DEPLOY_MD)?.[1];
    assert.ok(envFile, 'DEPLOY.md shows /etc/fuelprice/fuelprice.env');
    const named: Array<[string, string[]]> = [
      ['Dockerfile', Object.keys(dockerEnv(RUNTIME))],
      ['compose.yaml fuelprice', Object.keys(composeEnv(composeService(COMPOSE, 'fuelprice')))],
      ['compose.yaml ingest', Object.keys(composeEnv(composeService(COMPOSE, 'ingest')))],
      ['docs/fuelprice.service', Object.keys(unitEnv(UNIT))],
      ['docs/DEPLOY.md fuelprice.env', [...envFile.matchAll(/^#?\s?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1] ?? '')],
    ];
    for (const [file, variables] of named) {
      assert.ok(variables.length > 0, `${file} sets variables`);
      for (const variable of variables) assert.ok(CONFIG_VARIABLES.has(variable), `${file}: ${variable} is not read by src/config.ts or a feed`);
    }
  });

  test('the subcommands the files run are the CLI\'s', () => {
    assert.ok(COMMANDS.has('serve') && COMMANDS.has('tokens') && COMMANDS.has('migrate'), `usage lists ${[...COMMANDS].join(' ')}`);
    // `fuelprice WORD` is the CLI and its subcommand, or a container, service or image named fuelprice followed by the CLI.
    const runs = [...DEPLOY_SHELL.matchAll(/\bfuelprice(?:\.js)? (?=([a-z]+)\b)/g)].map((m) => m[1] ?? '').filter((word) => word !== 'fuelprice');
    for (const taught of ['serve', 'tokens', 'migrate', 'copy']) assert.ok(runs.includes(taught), `DEPLOY.md shows fuelprice ${taught}`);
    for (const command of runs) assert.ok(COMMANDS.has(command), `DEPLOY.md runs fuelprice ${command}`);
  });

  describe('the image\'s command, with the image\'s environment, and its health check', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fuelprice-deploy-'));
    let server: ServeProcess | undefined;
    after(async () => {
      server?.child.kill('SIGTERM');
      await server?.exited;
      rmSync(dir, { recursive: true, force: true });
    });
    const health = JSON.parse(last(RUNTIME, 'HEALTHCHECK').replace(/^.*?CMD /, '')) as string[];
    const probe = (port: number): Promise<number | null> => new Promise((resolve, reject) => {
      assert.equal(health[0], 'node');
      const child = spawn(process.execPath, health.slice(1), { env: { PORT: String(port) }, stdio: 'ignore', timeout: 20_000 });
      child.on('error', reject);
      child.on('close', resolve);
    });

    test('serve starts; the health check passes on /health without a token; a token made as DEPLOY.md says opens the API; SIGTERM exits 0', async () => {
      assert.match(health.join(' '), /'\/health'\)/, 'the health check asks for /health');
      const port = await freePort();
      // The image's environment, the volume moved into a temporary folder and the port to a free one.
      const env = { ...dockerEnv(RUNTIME), PORT: String(port), DATABASE_URL: dockerEnv(RUNTIME).DATABASE_URL?.replace(/^sqlite:\/[^/]+/, `sqlite:${dir}`) ?? '' };
      const [command, ...args] = JSON.parse(last(RUNTIME, 'CMD')) as string[];
      assert.equal(command, 'serve');
      server = await startServe(args, env);
      assert.equal(await probe(port), 0);

      const creates = [...DEPLOY_SHELL.matchAll(/\bfuelprice(?:\.js)? tokens create ((?:--[a-z-]+ [^\s'#]+ *)+)/g)].map((m) => (m[1] ?? '').trim().split(/\s+/));
      assert.ok(creates.length >= 3, 'DEPLOY.md makes a token for each way to run');
      let token = '';
      for (const options of creates) {
        const created = await runCli(['tokens', 'create', ...options], { DATABASE_URL: env.DATABASE_URL });
        assert.equal(created.code, 0, `tokens create ${options.join(' ')}: ${created.stderr}`);
        assert.match(created.stdout, /^fp_[a-z2-7]{8}_[A-Za-z0-9_-]{43}\n$/);
        token = created.stdout.trim();
      }
      const base = `http://127.0.0.1:${port}`;
      assert.equal((await fetch(`${base}/v1/fuel-types`)).status, 401);
      const answer = await fetch(`${base}/v1/fuel-types`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(answer.status, 200);
      assert.equal(((await answer.json()) as { data: unknown[] }).data.length, 19);

      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0);
      server = undefined;
      assert.equal(await probe(port), 1, 'nothing listens: the health check fails');
    });
  });
});
