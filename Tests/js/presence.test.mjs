// Presence in words and colours (Public/js/presence.js). Run: node --test Tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  initials, hueOf, colorOf, placeOf, placeText, fieldText, others, peopleAt, pointerTargets, concerns, listOf, isNewer,
} from '../../Public/js/presence.js';

test('initials of people and tokens', () => {
  assert.equal(initials('Ann Editor'), 'AE');
  assert.equal(initials('ann'), 'AN');
  assert.equal(initials('Mary Ann de Vries'), 'MV');
  assert.equal(initials('token ci bot'), 'CB');
  assert.equal(initials(''), '?');
});

test('a colour per person, the same every time', () => {
  assert.equal(hueOf('user:1'), hueOf('user:1'));
  assert.notEqual(hueOf('user:1'), hueOf('user:2'));
  assert.match(colorOf('token:9'), /^hsl\(\d+ 70% 32%\)$/);
  const hues = new Set(Array.from({ length: 50 }, (_, i) => hueOf(`user:${i}`)));
  assert.ok(hues.size > 30, 'spread over the wheel');
});

test('the place of an address', () => {
  assert.equal(placeOf('/screens/ab-1?focus=/name'), 'screens/ab-1');
  assert.equal(placeOf('/screens'), 'screens');
  assert.equal(placeOf('/publish'), 'publish');
  assert.equal(placeOf('/families/new'), 'families');
  assert.equal(placeOf(''), 'screens');
});

test('a place and a field in words', () => {
  assert.equal(placeText('screens/a', (area, id) => (id === 'a' ? 'Home' : null)), 'screen “Home”');
  assert.equal(placeText('layouts/x'), 'layout “x”');
  assert.equal(placeText('publish'), 'Publish');
  assert.equal(fieldText('/ui_components/2/data/source'), 'component 3, data, source');
  assert.equal(fieldText('/name'), 'name');
  assert.equal(fieldText(''), '');
});

test('others leave me out, each once', () => {
  const people = [{ who: 'user:1', where: 'a' }, { who: 'user:2', where: 'b' }, { who: 'user:2', where: 'c' }];
  assert.deepEqual(others(people, 'user:1'), [{ who: 'user:2', where: 'c' }]);
  assert.deepEqual(peopleAt(people, 'b').map((p) => p.who), ['user:2']);
});

test('a field shows at itself, then at the components holding it', () => {
  assert.deepEqual(pointerTargets('/ui_components/2/data/source'), ['/ui_components/2/data/source', '/ui_components/2']);
  assert.deepEqual(pointerTargets('/ui_components/1/ui_components/0/name'),
    ['/ui_components/1/ui_components/0/name', '/ui_components/1/ui_components/0', '/ui_components/1']);
  assert.deepEqual(pointerTargets('/ui_components/2'), ['/ui_components/2']);
  assert.deepEqual(pointerTargets('/name'), ['/name']);
  assert.deepEqual(pointerTargets(''), []);
});

test('which changes concern what is open, and which are news', () => {
  const change = { kind: 'screen', resource_id: 'a', revision: 3 };
  assert.ok(concerns(change, 'screens/a'));
  assert.ok(!concerns(change, 'screens/b'));
  assert.ok(!concerns(change, 'families/a'));
  assert.ok(!concerns(change, 'publish'));
  assert.equal(listOf(change), 'screens');
  assert.equal(listOf({ kind: 'version' }), null);
  assert.ok(isNewer(change, 2));
  assert.ok(!isNewer(change, 3), 'my own save');
  assert.ok(isNewer({ kind: 'screen' }, 3), 'no revision: look');
});
