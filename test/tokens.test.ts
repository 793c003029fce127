import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hashToken, newToken, parseDuration } from '../src/tokens.ts';

describe('tokens', () => {
  test('a new token has the public id in it and only its hash is kept', () => {
    const { token, record } = newToken('app', 1000, { expiresInSec: 60, rateLimit: 5 });
    assert.match(token, /^fp_[a-z2-7]{8}_[A-Za-z0-9_-]{43}$/);
    assert.equal(token.slice(3, 11), record.id);
    assert.deepEqual(record.hash, hashToken(token));
    assert.equal(record.expiresAt, 1060);
    assert.equal(record.rateLimit, 5);
    assert.ok(!JSON.stringify(record).includes(token.slice(12)));
  });

  test('durations', () => {
    assert.equal(parseDuration('90d'), 7_776_000);
    assert.equal(parseDuration('12h'), 43_200);
    assert.equal(parseDuration('30m'), 1800);
    assert.equal(parseDuration('3600'), 3600);
    assert.equal(parseDuration('2w'), 1_209_600);
    for (const bad of ['0d', '-1d', '1.5d', 'soon', '', '10y']) assert.equal(parseDuration(bad), undefined, bad);
  });
});
