// Web addresses apps open (Public/js/web-address.js): https, with a whole host name; anything else
// is said in words. Run: node --test Tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webAddressProblem } from '../../Public/js/web-address.js';

test('a whole https address is fine, with a path, query, port or spaces around it', () => {
  for (const ok of ['https://example.com', 'https://www.example.com/a/b?c=d#e', 'https://example.com:8443/x', '  https://example.com  ',
    'HTTPS://EXAMPLE.COM', 'https://sub.domain.example.co.uk/', 'https://xn--bcher-kva.example/']) {
    assert.equal(webAddressProblem(ok), '', ok);
  }
});

test('nothing given asks for an address', () => {
  for (const none of ['', '   ', null, undefined]) assert.equal(webAddressProblem(none), 'enter the web address this opens, like https://example.com');
});

test('plain http is refused, with the reason', () => {
  assert.equal(webAddressProblem('http://example.com'), 'use https:// (apps do not open plain http addresses)');
});

test('another scheme, or no scheme at all', () => {
  assert.equal(webAddressProblem('ftp://example.com'), 'enter a web address that starts with https://');
  assert.equal(webAddressProblem('mailto:a@example.com'), 'enter a web address that starts with https://');
  assert.equal(webAddressProblem('javascript:alert(1)'), 'enter a web address that starts with https://');
  assert.equal(webAddressProblem('example.com'), 'enter a whole web address, like https://example.com');
  assert.equal(webAddressProblem('//example.com'), 'enter a whole web address, like https://example.com');
});

test('a host name that is not whole', () => {
  assert.equal(webAddressProblem('https://'), 'enter a whole web address, like https://example.com');
  assert.equal(webAddressProblem('https://localhost'), 'enter a whole web address, like https://example.com');
  assert.equal(webAddressProblem('https://intranet/page'), 'enter a whole web address, like https://example.com');
});
