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

// EventStream over a fetch that answers from a script: what it sends, what it dispatches.
function scriptedFetch(answers) {
  const calls = [];
  const fetch = async (url, options) => {
    calls.push({ url, headers: { ...options.headers } });
    const answer = answers.shift();
    if (!answer) return new Promise((_, reject) => options.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));
    if (answer.status) return new Response(JSON.stringify({ title: 'no' }), { status: answer.status });
    const body = new ReadableStream({
      start(controller) {
        for (const chunk of answer.chunks) controller.enqueue(new TextEncoder().encode(chunk));
        controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
  };
  return { fetch, calls };
}

const until = async (check, ms = 3000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

test('a stream dispatches its events and reconnects with Last-Event-ID after it ends', async () => {
  const { EventStream } = await import('../../Public/js/sse.js');
  const { fetch, calls } = scriptedFetch([
    { chunks: ['retry: 10\n: connected\n\nid: 41\nevent: change\nda', 'ta: {"kind":"screen"}\n\nevent: presence\ndata: {"people":[]}\n\n'] },
    { chunks: ['id: 42\nevent: change\ndata: {}\n\n'] },
  ]);
  const saved = globalThis.fetch;
  globalThis.fetch = fetch;
  const events = [];
  const stream = new EventStream('/events', { headers: () => ({ Authorization: 'Bearer t' }), onEvent: (e) => events.push(e) });
  try {
    stream.start();
    await until(() => events.length === 3);
    assert.deepEqual(events.map((e) => [e.event, e.id]), [['change', '41'], ['presence', '41'], ['change', '42']]);
    assert.equal(calls[0].headers.Authorization, 'Bearer t');
    assert.equal(calls[0].headers['Last-Event-ID'], undefined);
    assert.equal(calls[1].headers['Last-Event-ID'], '41');
    await until(() => calls.length === 3);
    assert.equal(calls[2].headers['Last-Event-ID'], '42');
  } finally {
    stream.close();
    globalThis.fetch = saved;
  }
});

test('a refusal (401) is told and ends the stream; close() stops everything', async () => {
  const { EventStream } = await import('../../Public/js/sse.js');
  const { fetch, calls } = scriptedFetch([{ status: 401 }]);
  const saved = globalThis.fetch;
  globalThis.fetch = fetch;
  const errors = [];
  const stream = new EventStream('/events', { onError: (e) => { errors.push(e.status); return false; } });
  try {
    stream.start();
    await until(() => stream.state === 'closed');
    assert.deepEqual(errors, [401]);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(calls.length, 1, 'not tried again');
  } finally {
    globalThis.fetch = saved;
  }
});
