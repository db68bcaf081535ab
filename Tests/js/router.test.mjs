// Hash addresses (Public/js/router.js): every address names its app, #/apps/{app}/…; the pure
// parts, splitting an address and writing one. Mounting views is the browser suite's.
// Run: node --test Tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitHash, appHash } from '../../Public/js/router.js';
import { state } from '../../Public/js/state.js';

test('an address split into its app and the rest', () => {
  assert.deepEqual(splitHash('#/apps/news/screens/1?focus=/name'), { app: 'news', rest: '/screens/1?focus=/name' });
  assert.deepEqual(splitHash('#/apps/my%20app/families'), { app: 'my app', rest: '/families' });
  assert.deepEqual(splitHash('#/apps/news'), { app: 'news', rest: '/screens' }, 'the app alone opens its screens');
  assert.deepEqual(splitHash('/apps/news/layouts'), { app: 'news', rest: '/layouts' }, 'without the #');
});

test('an address without an app (older links, the views\' own) has app null', () => {
  assert.deepEqual(splitHash('#/screens/1'), { app: null, rest: '/screens/1' });
  assert.deepEqual(splitHash('#/apps'), { app: null, rest: '/apps' });
  assert.deepEqual(splitHash('#/apps/'), { app: null, rest: '/apps/' });
  for (const empty of ['', '#', null, undefined]) assert.deepEqual(splitHash(empty), { app: null, rest: '/screens' }, String(empty));
});

test('an address in an app: the app given, else the one open, else none', () => {
  assert.equal(appHash('/screens/1', 'news'), '#/apps/news/screens/1');
  assert.equal(appHash('#/screens/1', 'news'), '#/apps/news/screens/1');
  assert.equal(appHash('screens/1', 'news'), '#/apps/news/screens/1');
  assert.equal(appHash('/families', 'my app/x'), '#/apps/my%20app%2Fx/families', 'the app is escaped');
  state.app = { slug: 'open-app', id: 'A1' };
  assert.equal(appHash('/layouts'), '#/apps/open-app/layouts');
  state.app = null;
  assert.equal(appHash('/layouts'), '#/layouts');
  assert.equal(appHash('#/layouts', ''), '#/layouts');
});

test('written and split again, an address gives back its app and path', () => {
  for (const [path, app] of [['/screens/1?focus=/ui_components/0', 'news'], ['/families', 'a b/c?d'], ['/', 'x']]) {
    assert.deepEqual(splitHash(appHash(path, app)), { app, rest: path });
  }
});
