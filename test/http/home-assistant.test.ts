/**
 * docs/HOME-ASSISTANT.md (issue 31, part 6): its YAML parses, uses only keys Home Assistant's
 * `rest` integration accepts, and each sensor's value_template and json_attributes_path name a
 * value present in a real answer of the server (test/fixture.ts served on a real port) for its
 * resource's route.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import { NOW, loadFixture } from '../fixture.ts';
import { fixedClock, get, servedStore, testBackends } from '../helpers.ts';

const PAGE = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'HOME-ASSISTANT.md'), 'utf8');

/**
 * The keys of Home Assistant's `rest:` schema, copied from home-assistant/core
 * homeassistant/components/rest/schema.py (commit 03917c11eb98cc8e952e69d52e95cccc2a435b74):
 * COMBINED_SCHEMA = scan_interval + RESOURCE_SCHEMA + sensor + binary_sensor (CONF_CHARACTER_ENCODING is
 * 'encoding'); SENSOR_SCHEMA = TEMPLATE_SENSOR_BASE_SCHEMA (homeassistant/helpers/template_entity.py:
 * device_class, state_class, unit_of_measurement, and TEMPLATE_ENTITY_BASE_SCHEMA's icon, name, picture,
 * unique_id) + json_attributes, json_attributes_path, value_template, force_update.
 */
const REST_KEYS = new Set(['scan_interval', 'resource', 'resource_template', 'authentication', 'headers', 'params', 'method', 'username',
  'password', 'payload', 'verify_ssl', 'timeout', 'encoding', 'sensor', 'binary_sensor']);
const SENSOR_KEYS = new Set(['device_class', 'state_class', 'unit_of_measurement', 'icon', 'name', 'picture', 'unique_id',
  'json_attributes', 'json_attributes_path', 'value_template', 'force_update']);

/** Home Assistant's own YAML tag: `!secret name` reads secrets.yaml. */
const SECRET = { tag: '!secret', resolve: (name: string) => ({ secret: name }) };

/** The page's YAML blocks, parsed. */
function yamlBlocks(): unknown[] {
  return [...PAGE.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m): unknown => parse(m[1] ?? '', { customTags: [SECRET], strict: true }));
}

/**
 * The value a path names, or undefined: a template's `value_json.a[0].b` or a JSONPath `$.a[0].b`
 * (the only forms the page uses; anything else fails the test).
 */
function at(answer: unknown, path: string): unknown {
  const steps = [...path.matchAll(/\.([A-Za-z_][A-Za-z0-9_]*)|\[([0-9]+)\]/g)];
  assert.equal(steps.map((s) => s[0]).join(''), path, `a path of .key and [n] steps: ${path}`);
  let value: unknown = answer;
  for (const [, key, index] of steps) {
    if (value === null || typeof value !== 'object') return undefined;
    value = key !== undefined ? (value as Record<string, unknown>)[key] : (value as unknown[])[Number(index)];
  }
  return value;
}

interface Sensor { value_template: string; json_attributes_path?: string; json_attributes?: string[] }
interface RestEntry { resource: string; headers: { Authorization: { secret: string } }; scan_interval: number; sensor: Sensor[] }

describe('docs/HOME-ASSISTANT.md', () => {
  test('its YAML parses, and every key is one of Home Assistant\'s rest schema', () => {
    const [secrets, configuration] = yamlBlocks() as [Record<string, string>, { rest: RestEntry[] }];
    assert.match(secrets.fuelprice_authorization ?? '', /^Bearer /);
    assert.deepEqual(Object.keys(configuration), ['rest']);
    assert.equal(configuration.rest.length, 2);
    for (const entry of configuration.rest) {
      for (const key of Object.keys(entry)) assert.ok(REST_KEYS.has(key), `rest: ${key}`);
      assert.deepEqual(entry.headers, { Authorization: { secret: 'fuelprice_authorization' } });
      assert.ok(Number.isInteger(entry.scan_interval) && entry.scan_interval >= 60);
      assert.ok(entry.sensor.length > 0);
      for (const sensor of entry.sensor) for (const key of Object.keys(sensor)) assert.ok(SENSOR_KEYS.has(key), `sensor: ${key}`);
    }
  });

  for (const backend of testBackends()) {
    describe(`against a real server on ${backend.name}`, () => {
      const { server } = servedStore(backend, fixedClock(NOW), (store) => loadFixture(store));

      test('every value_template and json_attributes_path names a value of the answer of its resource', async () => {
        const configuration = yamlBlocks()[1] as { rest: RestEntry[] };
        const routes = new Set<string>();
        for (const entry of configuration.rest) {
          const url = new URL(entry.resource);
          routes.add(url.pathname);
          // The page's station ids are the demo's: asked here for the fixture's, in the same number.
          if (url.pathname === '/v1/stations/prices') url.searchParams.set('ids', 'alpha-sydney,beta-sydney');
          const r = await get(server, `${url.pathname}${url.search}`);
          assert.equal(r.status, 200, r.text);
          for (const sensor of entry.sensor) {
            const template = /^\{\{ value_json((?:\.[A-Za-z_]+|\[[0-9]+\])+) \}\}$/.exec(sensor.value_template);
            assert.ok(template, `a plain value_json path: ${sensor.value_template}`);
            const value = at(r.body, template[1] ?? '');
            assert.ok(typeof value === 'string' && /^[0-9]+\.[0-9]$/.test(value), `${sensor.value_template} is a price: ${String(value)}`);
            if (sensor.json_attributes_path !== undefined) {
              assert.ok(sensor.json_attributes_path.startsWith('$'));
              const attributes = at(r.body, sensor.json_attributes_path.slice(1)) as Record<string, unknown>;
              for (const name of sensor.json_attributes ?? []) assert.ok(Object.hasOwn(attributes, name), `${sensor.json_attributes_path}.${name}`);
            }
          }
        }
        assert.deepEqual([...routes].sort(), ['/v1/prices/cheapest', '/v1/stations/prices']);
      });
    });
  }
});
