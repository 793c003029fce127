import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { SCHEMA_FILE, clientTypes } from '../../scripts/client-types.ts';

/** The typed client's committed types are those of the document the server serves now. */
test('clients/typescript/src/schema.ts is generated from the current OpenAPI document', async () => {
  const committed = readFileSync(SCHEMA_FILE, 'utf8');
  const current = await clientTypes();
  assert.ok(committed === current, 'clients/typescript/src/schema.ts is not what the served OpenAPI document generates: run `npm run client:types` and commit the result');
});
