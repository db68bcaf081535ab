// The event-stream parser of the editor's live stream (Public/js/sse.js). Run: node --test Tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createParser, parseEvents, backoff } from '../../Public/js/sse.js';

test('an event with an id, a name and JSON data', () => {
  const events = parseEvents('id: 42\nevent: change\ndata: {"kind":"screen"}\n\n');
  assert.deepEqual(events, [{ id: '42', event: 'change', data: '{"kind":"screen"}' }]);
});

test('data on several lines is joined with newlines; no name is a message', () => {
  assert.deepEqual(parseEvents('data: one\ndata: two\ndata:three\n\n'), [{ id: '', event: 'message', data: 'one\ntwo\nthree' }]);
});

test('comments (the heartbeat) and retry are not events', () => {
  const parser = createParser();
  assert.deepEqual(parser.feed('retry: 2000\n: connected\n\n: heartbeat\n\n'), []);
  assert.equal(parser.retry, 2000);
});

test('CRLF and CR end lines too, even split between chunks', () => {
  assert.deepEqual(parseEvents('event: presence\r\ndata: {}\r\n\r\n').map((e) => e.event), ['presence']);
  assert.deepEqual(parseEvents('event: a\rdata: 1\r\r').map((e) => [e.event, e.data]), [['a', '1']]);
  const parser = createParser();
  assert.deepEqual(parser.feed('event: a\r'), []);
  assert.deepEqual(parser.feed('\ndata: 1\r'), []);
  // The LF after a CR that ended a chunk is the same line end, not an empty line.
  assert.deepEqual(parser.feed('\n'), []);
  assert.deepEqual(parser.feed('\r\n').map((e) => [e.event, e.data]), [['a', '1']]);
});

test('chunks cut anywhere give the same events', () => {
  const text = 'id: 7\nevent: change\ndata: {"a": "b: c"}\n\n: heartbeat\n\nevent: presence\ndata: {"people":[]}\n\nid: 8\nevent: change\ndata: x\n\n';
  const whole = parseEvents(text);
  assert.equal(whole.length, 3);
  for (let size = 1; size <= 7; size += 1) {
    const parser = createParser();
    const out = [];
    for (let i = 0; i < text.length; i += size) out.push(...parser.feed(text.slice(i, i + size)));
    assert.deepEqual(out, whole, `chunks of ${size}`);
  }
  // An event keeps the last id seen (the presence after id 7), as the standard says.
  assert.deepEqual(whole.map((e) => e.id), ['7', '7', '8']);
  assert.equal(whole[0].data, '{"a": "b: c"}');
});

test('an event not yet ended by a blank line waits for it', () => {
  const parser = createParser();
  assert.deepEqual(parser.feed('event: change\ndata: {}\n'), []);
  assert.equal(parser.feed('\n').length, 1);
});

test('an event without data is not dispatched; a field without a colon is a name with no value', () => {
  assert.deepEqual(parseEvents('event: nothing\n\n'), []);
  assert.deepEqual(parseEvents('data\n\n'), [{ id: '', event: 'message', data: '' }]);
});

test('reconnecting waits longer each time, up to 30 s', () => {
  const fixed = () => 0.5;
  assert.deepEqual([0, 1, 2, 3, 4, 5, 9].map((n) => backoff(n, fixed)), [1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  assert.ok(backoff(0, () => 0) >= 750 && backoff(0, () => 0.999) <= 1250);
});
