// Sample content of the preview (Public/js/sample-feed.js). Run: node --test Tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  hash, feedKey, feedLabel, defaultFeed, feedFor, cleanFeed, itemTitle, itemSubtitle, parseTitles, formatTitles,
  loadFeeds, saveFeed, artOf, STORAGE_PREFIX, MAX_TITLES,
} from '../../Public/js/sample-feed.js';

class Memory {
  constructor() { this.map = new Map(); }
  getItem(k) { return this.map.has(k) ? this.map.get(k) : null; }
  setItem(k, v) { this.map.set(k, String(v)); }
  removeItem(k) { this.map.delete(k); }
}

test('a feed per data source; components without one get their own', () => {
  assert.equal(feedKey({ data: { source: '3119', type: 'APPLICASTER_COLLECTION' } }), 'APPLICASTER_COLLECTION|3119');
  assert.equal(feedKey({ data: { source: ' 3119 ', type: '' } }), '|3119');
  assert.equal(feedKey({ id: 'c1', data: { source: '', type: '' } }, 4), '#c1');
  assert.equal(feedKey({}, 2), '#2');
  assert.equal(feedKey(null, 0), '#0');
  assert.equal(feedLabel('APPLICASTER_COLLECTION|3119'), 'Source 3119 (APPLICASTER_COLLECTION)');
  assert.equal(feedLabel('#c1', 'Hero 1'), 'Hero 1');
});

test('the default feed is the same every time and differs between sources', () => {
  assert.equal(hash('abc'), hash('abc'));
  assert.notEqual(hash('abc'), hash('abd'));
  const a = defaultFeed('X|1');
  assert.deepEqual(a, defaultFeed('X|1'));
  assert.equal(a.items.length, 12);
  assert.ok(a.title.length > 0);
  assert.ok(a.items.every((t) => /^\S+( \S+)+$/.test(t)));
  const titles = new Set(Array.from({ length: 30 }, (_, i) => defaultFeed(`X|${i}`).title));
  assert.ok(titles.size > 4, 'section titles vary');
});

test('the user’s feed wins; what they leave empty falls back', () => {
  const feeds = { 'X|1': { title: 'My shows', items: ['One', 'Two'] }, 'X|2': { title: '  ', items: ['Only'] }, 'X|3': { title: 'Named', items: [] } };
  assert.deepEqual(feedFor(feeds, 'X|1'), { title: 'My shows', items: ['One', 'Two'] });
  assert.equal(feedFor(feeds, 'X|2').title, defaultFeed('X|2').title);
  assert.deepEqual(feedFor(feeds, 'X|2').items, ['Only']);
  assert.deepEqual(feedFor(feeds, 'X|3').items, defaultFeed('X|3').items);
  assert.deepEqual(feedFor({}, 'X|4'), defaultFeed('X|4'));
  assert.deepEqual(feedFor(null, 'X|4'), defaultFeed('X|4'));
  // Not an own property: no prototype keys.
  assert.deepEqual(feedFor({}, 'constructor'), defaultFeed('constructor'));
});

test('item titles repeat past the end; subtitles are seeded', () => {
  const feed = { title: 't', items: ['A', 'B', 'C'] };
  assert.deepEqual([0, 1, 2, 3, 4].map((i) => itemTitle(feed, i)), ['A', 'B', 'C', 'A', 'B']);
  assert.equal(itemTitle({ items: [] }, 3), 'Untitled');
  assert.match(itemSubtitle('X|1', 0), /^20\d\d · \S+/);
  assert.equal(itemSubtitle('X|1', 5), itemSubtitle('X|1', 5));
});

test('titles one a line: trimmed, empty lines dropped, bounded', () => {
  assert.deepEqual(parseTitles(' One \n\n Two\r\nThree  \n'), ['One', 'Two', 'Three']);
  assert.deepEqual(parseTitles(''), []);
  assert.equal(parseTitles(Array.from({ length: 100 }, (_, i) => `T${i}`).join('\n')).length, MAX_TITLES);
  assert.equal(parseTitles('x'.repeat(300))[0].length, 80);
  assert.equal(formatTitles(['A', 'B']), 'A\nB');
  assert.deepEqual(cleanFeed({ title: 5, items: ['a', '', null, ' b '] }), { title: '5', items: ['a', 'b'] });
  assert.deepEqual(cleanFeed(undefined), { title: '', items: [] });
});

test('kept per app in storage; broken storage reads as nothing', () => {
  const s = new Memory();
  assert.deepEqual(loadFeeds(s, 'app1'), {});
  saveFeed(s, 'app1', 'X|1', { title: 'Mine', items: ['A'] });
  saveFeed(s, 'app2', 'X|1', { title: 'Theirs', items: [] });
  assert.deepEqual(loadFeeds(s, 'app1'), { 'X|1': { title: 'Mine', items: ['A'] } });
  assert.equal(loadFeeds(s, 'app2')['X|1'].title, 'Theirs');
  const after = saveFeed(s, 'app1', 'X|1', null);
  assert.deepEqual(after, {});
  assert.equal(s.getItem(`${STORAGE_PREFIX}app1`), null, 'the last feed forgotten leaves no key');
  s.setItem(`${STORAGE_PREFIX}app3`, '{not json');
  assert.deepEqual(loadFeeds(s, 'app3'), {});
  s.setItem(`${STORAGE_PREFIX}app3`, '[1,2]');
  assert.deepEqual(loadFeeds(s, 'app3'), {});
  assert.deepEqual(loadFeeds(null, 'x'), {});
});

test('pictures are seeded: the same item looks the same, items differ', () => {
  assert.deepEqual(artOf('X|1', 0), artOf('X|1', 0));
  assert.notDeepEqual(artOf('X|1', 0), artOf('X|1', 1));
  const a = artOf('X|1', 0);
  assert.match(a.from, /^hsl\(\d+ 62% 46%\)$/);
  assert.ok(['sun', 'hills', 'rings', 'stripes'].includes(a.shape));
  assert.ok(a.x >= 0.25 && a.x < 0.75 && a.y >= 0.25 && a.y < 0.55);
  const hues = new Set(Array.from({ length: 20 }, (_, i) => artOf('X|1', i).from));
  assert.ok(hues.size > 10);
});
