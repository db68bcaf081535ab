// Server-Sent Events over fetch. The browser's EventSource cannot send an Authorization header,
// and the editor may be signed in with an API token: so the stream is read with fetch, parsed here
// (the HTML standard's event-stream format), and opened again after it ends, with Last-Event-ID.
// `parseEvents` is pure (node --test reads it); `EventStream` does the connecting.

/**
 * A parser that is fed the stream's text as it arrives (in chunks cut anywhere) and answers the
 * events completed by each chunk: [{event, data, id}] (`event` 'message' when none was named;
 * `id` the last id seen so far, as the standard says, or '' before any). Comments (':') are
 * skipped; `retry: n` sets `retry` on the parser; lines end with LF, CRLF or CR.
 */
export function createParser() {
  let buffer = '';
  let pendingCR = false;
  let data = [];
  let event = '';
  let hasData = false;
  const parser = {
    lastId: '',
    retry: null,
    /** Takes the next piece of text; answers the events it completed. */
    feed(chunk) {
      const out = [];
      let text = String(chunk);
      // A CR that ended the previous chunk may be the first half of a CRLF.
      if (pendingCR && text.startsWith('\n')) text = text.slice(1);
      pendingCR = false;
      buffer += text;
      for (;;) {
        const m = /\r\n|\r|\n/.exec(buffer);
        if (!m) break;
        // A CR at the very end may be followed by an LF in the next chunk.
        if (m[0] === '\r' && m.index === buffer.length - 1) pendingCR = true;
        const line = buffer.slice(0, m.index);
        buffer = buffer.slice(m.index + m[0].length);
        line === '' ? dispatch(out) : take(line);
      }
      return out;
    },
  };
  function take(line) {
    if (line.startsWith(':')) return; // a comment (the heartbeat)
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (name === 'data') { data.push(value); hasData = true; } else if (name === 'event') event = value;
    else if (name === 'id') { if (!value.includes('\0')) parser.lastId = value; } else if (name === 'retry') {
      if (/^\d+$/.test(value)) parser.retry = Number(value);
    }
  }
  function dispatch(out) {
    if (hasData) out.push({ event: event || 'message', data: data.join('\n'), id: parser.lastId });
    data = [];
    event = '';
    hasData = false;
  }
  return parser;
}

/** Parses a whole stream's text at once (tests, and nothing else). */
export function parseEvents(text) { return createParser().feed(text); }

/** The wait before the n-th reconnect in a row (n from 0): 1 s, 2 s, 4 s … up to 30 s, with jitter. */
export function backoff(n, random = Math.random) {
  const base = Math.min(30000, 1000 * 2 ** Math.min(n, 5));
  return Math.round(base * (0.75 + random() * 0.5));
}

/**
 * One stream, kept open until `close()`: connects with `headers()` (asked at each connect, so a
 * changed credential is used), calls `onEvent({event, data, id})` for each event and reconnects
 * after the stream ends or fails, sending Last-Event-ID. `onOpen()` after each connect, `onError(e)`
 * for an answer that is not the stream ({status, problem}: 401, 403, 404 end the stream for good
 * unless `onError` answers true), `onState(text)`: 'connecting', 'open', 'waiting'.
 */
export class EventStream {
  constructor(url, { headers = () => ({}), onEvent, onOpen, onError, onState } = {}) {
    this.url = url;
    this.headers = headers;
    this.onEvent = onEvent || (() => {});
    this.onOpen = onOpen || (() => {});
    this.onError = onError || (() => false);
    this.onState = onState || (() => {});
    this.lastId = '';
    this.failures = 0;
    this.closed = false;
    this.controller = null;
    this.timer = null;
    this.state = 'idle';
  }

  setState(s) { this.state = s; this.onState(s); }

  start() { this.closed = false; this.connect(); return this; }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    this.controller?.abort();
    this.controller = null;
    this.setState('closed');
  }

  /** Ends the current connection now and opens another at once (a reload event). */
  restart(delay = 0) {
    if (this.closed) return;
    this.controller?.abort();
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  schedule(wait) {
    if (this.closed) return;
    this.setState('waiting');
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), wait);
  }

  async connect() {
    if (this.closed) return;
    this.controller?.abort();
    const controller = new AbortController();
    this.controller = controller;
    this.setState('connecting');
    const headers = { Accept: 'text/event-stream', ...this.headers() };
    if (this.lastId) headers['Last-Event-ID'] = this.lastId;
    let response;
    try {
      response = await fetch(this.url, { headers, signal: controller.signal, cache: 'no-store' });
    } catch {
      if (controller.signal.aborted || this.closed) return;
      this.schedule(backoff(this.failures++));
      return;
    }
    if (!response.ok) {
      let problem = {};
      try { problem = await response.json(); } catch { /* not JSON */ }
      if (controller.signal.aborted || this.closed) return;
      const keepTrying = this.onError({ status: response.status, problem, retryAfter: Number(response.headers.get('Retry-After')) || 0 });
      if ([401, 403, 404].includes(response.status) && !keepTrying) { this.close(); return; }
      const after = Number(response.headers.get('Retry-After')) || 0;
      this.schedule(Math.max(after * 1000, backoff(this.failures++)));
      return;
    }
    this.setState('open');
    this.onOpen();
    const parser = createParser();
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let received = false;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        if (!received) { received = true; this.failures = 0; }
        for (const item of parser.feed(decoder.decode(value, { stream: true }))) {
          if (item.id) this.lastId = item.id;
          if (controller.signal.aborted) return;
          try { this.onEvent(item); } catch (error) { console.error('live event', error); }
        }
      }
    } catch {
      // Aborted, or the connection dropped: reconnect below unless closed.
    }
    if (controller.signal.aborted || this.closed || this.controller !== controller) return;
    // The stream ended (the server stopped, a proxy closed it): again, soon.
    this.schedule(received ? Math.max(parser.retry ?? 1000, 500) : backoff(this.failures++));
  }
}
