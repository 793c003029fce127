import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backoffSeconds, rateLimitResetSeconds, retryAfterSeconds, serverDelaySeconds } from '../../clients/typescript/src/retry.ts';

const NOW_MS = Date.parse('2026-11-23T01:00:00Z');

test('Retry-After: whole seconds, or an HTTP date as the seconds until it (0 once past); anything else says nothing', () => {
  assert.equal(retryAfterSeconds('7', NOW_MS), 7);
  assert.equal(retryAfterSeconds(' 0 ', NOW_MS), 0);
  assert.equal(retryAfterSeconds('Mon, 23 Nov 2026 01:00:30 GMT', NOW_MS), 30);
  assert.equal(retryAfterSeconds('Mon, 23 Nov 2026 01:00:29 GMT', NOW_MS + 500), 29);
  assert.equal(retryAfterSeconds('Mon, 23 Nov 2026 00:59:00 GMT', NOW_MS), 0);
  for (const bad of ['-1', '1.5', 'soon', '']) assert.equal(retryAfterSeconds(bad, NOW_MS), undefined, bad);
  assert.equal(retryAfterSeconds(null, NOW_MS), undefined);
});

test('RateLimit (the form the server sends): the reset of a policy with nothing remaining; none while requests remain', () => {
  assert.equal(rateLimitResetSeconds('"default";r=0;t=42'), 42);
  assert.equal(rateLimitResetSeconds('"default";r=3;t=42'), undefined);
  assert.equal(rateLimitResetSeconds('"burst";r=0;t=5, "daily";r=0;t=600'), 600);
  assert.equal(rateLimitResetSeconds('"burst";r=2;t=5, "daily";r=0;t=600'), 600);
  assert.equal(rateLimitResetSeconds('"default";t=42'), undefined);
  assert.equal(rateLimitResetSeconds('"default";r=0;t=x'), undefined);
  assert.equal(rateLimitResetSeconds(null), undefined);
});

test('the wait a 429 or 503 asks for: Retry-After first, else RateLimit; backoff doubles from 1 s when neither says', () => {
  assert.equal(serverDelaySeconds(new Headers({ 'retry-after': '3', ratelimit: '"default";r=0;t=9' }), NOW_MS), 3);
  assert.equal(serverDelaySeconds(new Headers({ ratelimit: '"default";r=0;t=9' }), NOW_MS), 9);
  assert.equal(serverDelaySeconds(new Headers({ ratelimit: '"default";r=1;t=9' }), NOW_MS), undefined);
  assert.equal(serverDelaySeconds(new Headers(), NOW_MS), undefined);
  assert.deepEqual([1, 2, 3, 4].map(backoffSeconds), [1, 2, 4, 8]);
});
