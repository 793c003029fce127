/**
 * docs/HOME-ASSISTANT.md (issues 31 and 50): its YAML parses and uses only keys Home Assistant
 * accepts; and every template of it, taken from the page itself, is rendered with the real Jinja2
 * (Debian's python3-jinja2, through test/http/routes/home_assistant_render.py, which models the rest
 * sensor's update and the Home Assistant filters the page uses) against real answers of a real
 * server on a real port, serving test/fixture.ts: a fuel in stock, one out of stock, one never
 * sold, an id no station has, a search that finds nothing, an answer without a token. Each
 * entity's exact state and attributes are asserted, and that nothing logged an error or warning.
 *
 * Jinja2 itself rather than an npm engine (nunjucks): Home Assistant renders with Jinja2 3.1 in its
 * sandbox, and what the recipe guards against lies exactly where nunjucks differs: strict and
 * lenient undefined names, Jinja's tests (`is true`, `is defined` on a missing index), Python's
 * values (`float(False)` is 0.0, so Home Assistant's is_number(false) is true) and literal_eval of
 * a rendered `True`.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import { NOW, loadFixture } from '../../fixture.ts';
import { type RunningServer, fixedClock, get, servedStore, testBackends } from '../../helpers.ts';

const PAGE = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'HOME-ASSISTANT.md'), 'utf8');
const RENDER = join(import.meta.dirname, 'home_assistant_render.py');

/** Debian's Python, which python3-jinja2 installs into (a python3 first on the PATH may be another). */
const PYTHON = process.env.FUELPRICE_PYTHON || '/usr/bin/python3';
const jinjaProbe = spawnSync(PYTHON, ['-c', 'import jinja2; print(jinja2.__version__)'], { encoding: 'utf8' });
const NO_JINJA = `the Home Assistant templates are rendered with Jinja2 by ${PYTHON}: apt-get install python3-jinja2 (.ci/run does it)`;
/** Without Jinja2 the rendering is skipped, saying why, unless asked for: FUELPRICE_TEST_JINJA=required (.ci/run) fails instead. */
const SKIP = process.env.FUELPRICE_TEST_JINJA !== 'required' && jinjaProbe.status !== 0
  ? `${NO_JINJA}; FUELPRICE_TEST_JINJA=required makes this a failure` : false;

/**
 * The keys of Home Assistant's schemas, from home-assistant/core (dev):
 * homeassistant/components/rest/schema.py COMBINED_SCHEMA = scan_interval + RESOURCE_SCHEMA (resource,
 * resource_template, authentication, headers, params, method, username, password, payload,
 * payload_template, verify_ssl, ssl_cipher_list, timeout, encoding) + sensor + binary_sensor;
 * SENSOR_SCHEMA = TEMPLATE_SENSOR_BASE_SCHEMA (device_class, state_class, unit_of_measurement and
 * TEMPLATE_ENTITY_BASE_SCHEMA's icon, name, picture, unique_id) + json_attributes,
 * json_attributes_path, value_template, force_update, availability; BINARY_SENSOR_SCHEMA =
 * TEMPLATE_ENTITY_BASE_SCHEMA + device_class, value_template, force_update, availability.
 * homeassistant/components/template/sensor.py SENSOR_SCHEMA (state, device_class,
 * unit_of_measurement, state_class, last_reset) + the template entity's name, unique_id, icon,
 * picture, availability, attributes.
 */
const REST_KEYS = new Set(['scan_interval', 'resource', 'resource_template', 'authentication', 'headers', 'params', 'method', 'username',
  'password', 'payload', 'payload_template', 'verify_ssl', 'ssl_cipher_list', 'timeout', 'encoding', 'sensor', 'binary_sensor']);
const ENTITY_KEYS = ['icon', 'name', 'picture', 'unique_id'];
const SENSOR_KEYS = new Set([...ENTITY_KEYS, 'device_class', 'state_class', 'unit_of_measurement', 'json_attributes', 'json_attributes_path',
  'value_template', 'force_update', 'availability']);
const BINARY_SENSOR_KEYS = new Set([...ENTITY_KEYS, 'device_class', 'value_template', 'force_update', 'availability']);
const TEMPLATE_SENSOR_KEYS = new Set([...ENTITY_KEYS, 'state', 'device_class', 'unit_of_measurement', 'state_class', 'last_reset', 'availability', 'attributes']);

/** Home Assistant's own YAML tag: `!secret name` reads secrets.yaml. */
const SECRET = { tag: '!secret', resolve: (name: string) => ({ secret: name }) };

interface RestEntry { resource: string; headers: { Authorization: { secret: string } }; scan_interval: number; sensor?: Array<Record<string, unknown>>; binary_sensor?: Array<Record<string, unknown>> }
interface Configuration { rest: RestEntry[]; template: Array<{ sensor: Array<Record<string, unknown>> }> }

/** The page's YAML blocks, parsed (the shell block is not YAML). */
function yamlBlocks(): unknown[] {
  return [...PAGE.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m): unknown => parse(m[1] ?? '', { customTags: [SECRET], strict: true }));
}

const [SECRETS, CONFIGURATION] = yamlBlocks() as [Record<string, string>, Configuration];

interface EntityState { state: string | null; attributes: Record<string, unknown> }
interface Rendered { jinja2: string; states: Record<string, EntityState>; log: string[] }

/**
 * The page's configuration with its station ids replaced (`ids` maps the page's to the fixture's,
 * in resources and templates alike) and each resource's query changed by `query`, answered by the
 * server (with the page's token, or none), then rendered by Home Assistant's rules.
 */
async function render(server: RunningServer, ids: Record<string, string>, query: (url: URL) => void, token: string | null = server.token): Promise<Rendered> {
  let text = JSON.stringify(CONFIGURATION);
  for (const [page, fixture] of Object.entries(ids)) text = text.replaceAll(page, fixture);
  const configuration = JSON.parse(text) as Configuration;
  const answers: Record<string, string> = {};
  for (const entry of configuration.rest) {
    const url = new URL(entry.resource);
    query(url);
    const answer = await get(server, `${url.pathname}${url.search}`, { token });
    answers[entry.resource] = answer.text;
  }
  const child = spawnSync(PYTHON, [RENDER], { input: JSON.stringify({ now: NOW, answers, ...configuration }), encoding: 'utf8', timeout: 30_000 });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout) as Rendered;
}

const PAGE_IDS = ['metro-fuel-black-gardens', 'united-lake-creek'];
/** A point with no station within 5 km in the fixture (Hobart: the nearest station is in Sydney). */
const NOWHERE = '-42.8794,147.3294';
const UNAVAILABLE: EntityState = { state: 'unavailable', attributes: {} };

describe('docs/HOME-ASSISTANT.md', () => {
  test('its YAML parses, and every key is one of Home Assistant\'s schemas', () => {
    assert.match(SECRETS.fuelprice_authorization ?? '', /^Bearer /);
    assert.deepEqual(Object.keys(CONFIGURATION), ['rest', 'template']);
    assert.equal(CONFIGURATION.rest.length, 2);
    for (const entry of CONFIGURATION.rest) {
      for (const key of Object.keys(entry)) assert.ok(REST_KEYS.has(key), `rest: ${key}`);
      assert.deepEqual(entry.headers, { Authorization: { secret: 'fuelprice_authorization' } });
      assert.ok(Number.isInteger(entry.scan_interval) && entry.scan_interval >= 60);
      for (const sensor of entry.sensor ?? []) {
        for (const key of Object.keys(sensor)) assert.ok(SENSOR_KEYS.has(key), `sensor: ${key}`);
        assert.equal(typeof sensor.availability, 'string', `${String(sensor.name)} has an availability template`);
      }
      for (const sensor of entry.binary_sensor ?? []) for (const key of Object.keys(sensor)) assert.ok(BINARY_SENSOR_KEYS.has(key), `binary_sensor: ${key}`);
    }
    for (const entry of CONFIGURATION.template) for (const sensor of entry.sensor) for (const key of Object.keys(sensor)) assert.ok(TEMPLATE_SENSOR_KEYS.has(key), `template sensor: ${key}`);
    // Every station id of the page is one of its resources' ids.
    assert.equal(new URL(CONFIGURATION.rest[0]?.resource ?? '').searchParams.get('ids'), PAGE_IDS.join(','));
  });

  test('the page says how the server is made reachable: HOST, whose default is 127.0.0.1 (docs/CONFIGURATION.md)', () => {
    const configuration = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'CONFIGURATION.md'), 'utf8');
    assert.match(configuration, /^\| `HOST` \| `127\.0\.0\.1` \|/m);
    assert.match(PAGE, /listens on `127\.0\.0\.1` unless told otherwise/);
    assert.match(PAGE, /HOST=0\.0\.0\.0 PORT=8080 fuelprice serve/);
  });

  for (const backend of testBackends()) {
    describe(`rendered with Jinja2 against a real server on ${backend.name}`, { skip: SKIP }, () => {
      const { server } = servedStore(backend, fixedClock(NOW), (store) => loadFixture(store));
      const asIs = (): void => undefined;
      /** Each rest entry's query as the page has it, the point moved where the fixture has no station. */
      const nowhere = (url: URL): void => { if (url.searchParams.has('near')) url.searchParams.set('near', NOWHERE); };

      test('in stock: the price with its attributes; out of stock: unavailable, and the binary sensor off; the cheapest nearby', async () => {
        // Black Gardens is alpha-sydney (ulp91 185.0 in stock since 21-11 18:00 Sydney, 1_795_244_400; e10 177.0 OUT of
        // stock since 23-11 08:00), Lake Creek is beta-sydney (diesel 199.0 since 22-11 10:00, 1_795_302_000). The
        // cheapest ulp91 within 5 km of the page's point: beta-sydney, 175.0 since 23-11 09:00 (1_795_384_800), 1.5 km
        // away (alpha-sydney's 185.0 is dearer; the Perth and country stations are far).
        const rendered = await render(server, { [PAGE_IDS[0] ?? '']: 'alpha-sydney', [PAGE_IDS[1] ?? '']: 'beta-sydney' }, asIs);
        assert.deepEqual(rendered.log, []);
        assert.deepEqual(rendered.states, {
          'sensor.black_gardens_ulp91': { state: '185.0', attributes: { available: true, updated_at: 1_795_244_400, tomorrow: false } },
          'sensor.black_gardens_e10': UNAVAILABLE,
          'sensor.lake_creek_diesel': { state: '199.0', attributes: { available: true, updated_at: 1_795_302_000 } },
          'binary_sensor.black_gardens_e10_in_stock': { state: 'off', attributes: {} },
          'sensor.cheapest_ulp91_near_home': {
            state: '175.0',
            attributes: { station_id: 'beta-sydney', name: 'Beta Sydney', brand: 'bp', address: '', distance_km: '1.5', updated_at: 1_795_384_800 },
          },
          // NOW is 23-11 12:00 Sydney: 151,200 s after 21-11 18:00 is 42.0 hours.
          'sensor.black_gardens_ulp91_age': { state: '42.0', attributes: {} },
        });
      });

      test('a fuel the station never sold (price false, which Home Assistant\'s is_number counts a number) is unavailable; an empty search is unavailable', async () => {
        // The other way round: Black Gardens is beta-sydney (ulp91 175.0 since 23-11 09:00; e10 never sold), Lake
        // Creek is alpha-sydney (diesel never sold). No station within 5 km of Hobart.
        const rendered = await render(server, { [PAGE_IDS[0] ?? '']: 'beta-sydney', [PAGE_IDS[1] ?? '']: 'alpha-sydney' }, nowhere);
        assert.deepEqual(rendered.log, []);
        assert.deepEqual(rendered.states, {
          'sensor.black_gardens_ulp91': { state: '175.0', attributes: { available: true, updated_at: 1_795_384_800, tomorrow: false } },
          'sensor.black_gardens_e10': UNAVAILABLE,
          'sensor.lake_creek_diesel': UNAVAILABLE,
          'binary_sensor.black_gardens_e10_in_stock': { state: 'off', attributes: {} },
          'sensor.cheapest_ulp91_near_home': UNAVAILABLE,
          // 10,800 s after 23-11 09:00.
          'sensor.black_gardens_ulp91_age': { state: '3.0', attributes: {} },
        });
      });

      test('an id no station has moves the others up: their sensors are unavailable, never another station\'s price', async () => {
        // Black Gardens is an id no station has, Lake Creek beta-sydney: data is [beta-sydney], unknown the other.
        const rendered = await render(server, { [PAGE_IDS[0] ?? '']: 'no-such-station', [PAGE_IDS[1] ?? '']: 'beta-sydney' }, nowhere);
        assert.deepEqual(rendered.log, []);
        for (const [entity, state] of Object.entries(rendered.states)) assert.deepEqual(state, UNAVAILABLE, entity);
        assert.equal(Object.keys(rendered.states).length, 6);
      });

      test('an error answer (no token: 401) makes every sensor unavailable, with nothing logged', async () => {
        const rendered = await render(server, { [PAGE_IDS[0] ?? '']: 'alpha-sydney', [PAGE_IDS[1] ?? '']: 'beta-sydney' }, asIs, null);
        assert.deepEqual(rendered.log, []);
        for (const [entity, state] of Object.entries(rendered.states)) assert.deepEqual(state, UNAVAILABLE, entity);
        assert.equal(Object.keys(rendered.states).length, 6);
      });

      test('the old recipe\'s failures, rendered by the same rules: false under a unit is refused, and data[0] of an empty search is an error', async () => {
        // Not the page: the templates it had before issue 50, to show the harness sees what Home Assistant saw.
        const child = spawnSync(PYTHON, [RENDER], {
          encoding: 'utf8',
          input: JSON.stringify({
            now: NOW,
            answers: { e10: (await get(server, '/v1/stations/prices?ids=beta-sydney')).text, cheapest: (await get(server, `/v1/prices/cheapest?fuel=ulp91&near=${NOWHERE}&radius=5&limit=1`)).text },
            rest: [
              { resource: 'e10', sensor: [{ name: 'old e10', value_template: '{{ value_json.data[0].prices[0].price }}', unit_of_measurement: 'c/L' }] },
              { resource: 'cheapest', sensor: [{ name: 'old cheapest', value_template: '{{ value_json.data[0].price }}', unit_of_measurement: 'c/L' }] },
            ],
          }),
        });
        assert.equal(child.status, 0, child.stderr);
        const old = JSON.parse(child.stdout) as Rendered;
        assert.deepEqual(old.states, { 'sensor.old_e10': { state: null, attributes: {} }, 'sensor.old_cheapest': { state: 'unknown', attributes: {} } });
        assert.match(old.log[0] ?? '', /non-numeric value: 'False'/);
        assert.match(old.log[1] ?? '', /^ERROR Template variable error: .*no element 0/);
      });
    });
  }
});
