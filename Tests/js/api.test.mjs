// The editor's API client (Public/js/api.js): every write carries an Idempotency-Key, and a write
// whose outcome is unknown is sent again with the same key (issue 24).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Api, newIdempotencyKey, isRetryableWrite, ApiError } from '../../Public/js/api.js';

function answer(status, body, headers = {}) {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status, headers: { 'Content-Type': status >= 400 ? 'application/problem+json' : 'application/json', ...headers },
  });
}

test('keys are 32 hex digits and differ', () => {
  const a = newIdempotencyKey(), b = newIdempotencyKey();
  assert.match(a, /^[0-9a-f]{32}$/);
  assert.notEqual(a, b);
});

test('only unreached writes, unknown outcomes and writes too busy to start are retried', () => {
  assert.equal(isRetryableWrite(new ApiError(0, {}, {})), true);
  assert.equal(isRetryableWrite(new ApiError(503, { type: '/problems/write-outcome-unknown' }, {})), true);
  assert.equal(isRetryableWrite(new ApiError(503, { type: '/problems/busy' }, {})), true);
  assert.equal(isRetryableWrite(new ApiError(503, { type: '/problems/database-unavailable' }, {})), false);
  assert.equal(isRetryableWrite(new ApiError(422, { type: '/problems/validation' }, {})), false);
});

test('a write is sent again with the same key after a lost answer; reads carry no key', async () => {
  const sent = [];
  const answers = [
    () => { throw new TypeError('network down'); },
    () => answer(503, { type: '/problems/write-outcome-unknown', title: 'may or may not' }),
    () => answer(200, { id: 'S1', revision: 2 }),
    () => answer(200, { items: [] }),
  ];
  globalThis.fetch = async (url, init) => { sent.push({ url, init }); return answers[sent.length - 1](); };
  const api = new Api('rvs_token');
  const saved = await api.request('PATCH', 'apps/a/screens/S1', { body: { name: 'x' }, etag: '"1"' });
  assert.equal(saved.data.revision, 2);
  assert.equal(sent.length, 3, 'two retries');
  const keys = sent.map((s) => s.init.headers['Idempotency-Key']);
  assert.match(keys[0], /^[0-9a-f]{32}$/);
  assert.deepEqual(new Set(keys).size, 1, 'one key for every attempt of one write');
  assert.equal(sent[0].init.headers['If-Match'], '"1"');
  await api.request('GET', 'apps/a/screens');
  assert.equal(sent[3].init.headers['Idempotency-Key'], undefined);
});

test('a refusal is not retried, and each write gets its own key', async () => {
  const sent = [];
  globalThis.fetch = async (url, init) => { sent.push(init); return answer(422, { type: '/problems/validation', errors: [] }); };
  const api = new Api('rvs_token');
  await assert.rejects(api.request('POST', 'apps/a/families', { body: {} }), (e) => e.status === 422);
  await assert.rejects(api.request('POST', 'apps/a/families', { body: {} }), (e) => e.status === 422);
  assert.equal(sent.length, 2);
  assert.notEqual(sent[0].headers['Idempotency-Key'], sent[1].headers['Idempotency-Key']);
});

test('a write refused as busy is sent again after Retry-After, with the same key', async () => {
  const sent = [];
  const answers = [
    () => answer(503, { type: '/problems/busy', title: 'Too busy' }, { 'Retry-After': '1' }),
    () => answer(200, { id: 'S1', revision: 3 }),
  ];
  globalThis.fetch = async (url, init) => { sent.push({ at: Date.now(), init }); return answers[sent.length - 1](); };
  const saved = await new Api('rvs_token').request('PATCH', 'apps/a/screens/S1', { body: { name: 'y' } });
  assert.equal(saved.data.revision, 3);
  assert.equal(sent.length, 2);
  assert.equal(sent[0].init.headers['Idempotency-Key'], sent[1].init.headers['Idempotency-Key']);
  assert.ok(sent[1].at - sent[0].at >= 950, `waited ${sent[1].at - sent[0].at} ms`);
});
