import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pino from 'pino';
import { errorSerializer } from '../src/http/server/request-log.ts';
import { maskSecrets } from '../src/secrets.ts';

describe('maskSecrets: no password of a URL is ever written', () => {
  test('the password of any scheme, anywhere in a message, is ***; the rest stays', () => {
    const cases: Array<[string, string]> = [
      ['mysql://app:S3cretPw@db.example/fuel', 'mysql://app:***@db.example/fuel'],
      ['postgres://app:p@ss:w0rd@db:5432/fuel?sslmode=require', 'postgres://app:***@db:5432/fuel?sslmode=require'],
      ['postgresql://app:pw@db/fuel?password=other&sslpassword=x', 'postgresql://app:***@db/fuel?password=***&sslpassword=***'],
      ['rediss://:S3cret@cache.example:6380', 'rediss://:***@cache.example:6380'],
      ["got 'postgres://a:one@h/d' and redis://b:two@r", "got 'postgres://a:***@h/d' and redis://b:***@r"],
      ['postgres://app@db/fuel', 'postgres://app@db/fuel'],
      ['sqlite:./data/fuelprice.db', 'sqlite:./data/fuelprice.db'],
      ['connect ECONNREFUSED 127.0.0.1:5432', 'connect ECONNREFUSED 127.0.0.1:5432'],
      ['write to me@example.com: http://example.com/a?b=c', 'write to me@example.com: http://example.com/a?b=c'],
    ];
    for (const [text, shown] of cases) assert.equal(maskSecrets(text), shown, text);
  });

  test('a logged error ({ err }) has its message and stack masked, in pino\'s own shape', () => {
    const lines: string[] = [];
    const log = pino({ serializers: { err: errorSerializer } }, { write: (line: string) => { lines.push(line); } });
    log.error({ err: new Error('cannot reach postgres://app:S3cretPw@db.example/fuel') }, 'failed');
    assert.equal(lines.length, 1);
    assert.ok(!lines[0]?.includes('S3cretPw'), lines[0]);
    const { err } = JSON.parse(lines[0] ?? '{}') as { err: { type: string; message: string; stack: string } };
    assert.equal(err.type, 'Error');
    assert.equal(err.message, 'cannot reach postgres://app:***@db.example/fuel');
    assert.match(err.stack, /^Error: cannot reach postgres:\/\/app:\*\*\*@db\.example\/fuel\n {4}at /);
  });
});
