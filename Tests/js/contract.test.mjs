// The editor's reading of the server's contract (Public/js/contract.js) against the real
// document the server serves (Sources/RiversServer/openapi.json is what GET /api/openapi.json
// answers): every problem of a body at once, each at the pointer the server's 422 would give.
// Run: node --test Tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Contract, mergeProblems, loadContract, contract, checkAgainst } from '../../Public/js/contract.js';

const doc = JSON.parse(readFileSync(new URL('../../Sources/RiversServer/openapi.json', import.meta.url), 'utf8'));
const c = new Contract(doc);
const pointers = (problems) => problems.map((p) => p.pointer).sort();

const goodFamily = {
  id: 'PHONES', name: 'Phones', reference_size: { width: 375, height: 667 },
  insets: { top: 0, left: 10, bottom: 0, right: 10 }, interitem_spacing: 10, line_spacing: { fixed: 8 },
  cell_styles: [{ id: 'LIST_1', columns: 1, height: 80 }, { id: 'GRID_1', width: { fixed: 120 }, aspect_ratio: 1.5 }],
};

test('a good family has no problems', () => {
  assert.deepEqual(c.validate('FamilyCreate', goodFamily), []);
  assert.deepEqual(c.validate('Family', goodFamily), []);
});

test('a family with several bad fields: every one at once, at the server’s pointers', () => {
  const bad = {
    id: 'bad id', name: '', reference_size: { width: 0, height: 20000 },
    insets: { top: -1, left: 0, bottom: 0, right: 0 }, interitem_spacing: -3, line_spacing: 20000,
    cell_styles: [{ id: 'A', columns: 0, height: 80 }, { id: 'B', columns: 1, aspect_ratio: 500 }, { id: 'C', columns: 1.5, height: { fixed: -1 } }],
    colour: 'red',
  };
  const problems = c.validate('FamilyCreate', bad);
  assert.deepEqual(pointers(problems), [
    '/cell_styles/0/columns', '/cell_styles/1/aspect_ratio', '/cell_styles/2/columns', '/cell_styles/2/height/fixed',
    '/colour', '/id', '/insets/top', '/interitem_spacing', '/line_spacing', '/name',
    '/reference_size/height', '/reference_size/width',
  ]);
  const by = Object.fromEntries(problems.map((p) => [p.pointer, p.message]));
  assert.equal(by['/interitem_spacing'], 'must not be negative');
  assert.equal(by['/line_spacing'], 'must be at most 10,000');
  assert.equal(by['/reference_size/width'], 'must be at least 1');
  assert.equal(by['/cell_styles/0/columns'], 'must be at least 1');
  assert.equal(by['/cell_styles/2/columns'], 'must be a whole number');
  assert.equal(by['/cell_styles/2/height/fixed'], 'must be more than 0');
  assert.equal(by['/name'], 'must not be empty');
  assert.equal(by['/id'], 'use only upper-case letters, digits and _ (like GRID_1)');
  assert.equal(by['/colour'], 'is not a known field');
});

test('required members, types and blank names', () => {
  const problems = c.validate('FamilyCreate', { name: '   ', reference_size: { width: 'wide' } });
  const by = Object.fromEntries(problems.map((p) => [p.pointer, p.message]));
  assert.equal(by['/id'], 'is required');
  assert.equal(by['/reference_size/height'], 'is required');
  assert.equal(by['/reference_size/width'], 'must be a number');
  assert.equal(by['/name'], 'must not be blank');
});

test('a screen: components, rules and nav items, all at once', () => {
  const screen = {
    name: 'Home', family: 'PHONES',
    ui_components: [
      { component_type: 'list', cell_styles: ['LIST_1'], rules: { item_limit: -2 } },
      { component_type: 'grid', cell_styles: ['grid 1'], rules: { item_limit: 20000 }, header: { visible: 'yes' } },
    ],
    navigations: [{ category: 'tab_bar', navigation_type: 'tab_bar_menu', nav_items: [
      { title: 'Web', type: 'button', data: { type: 'WEB_URL', source: 'javascript:alert(1)', target: null } },
      { title: 'Home', type: 'button', data: { target: 'not-a-uuid' } },
    ] }],
  };
  const problems = c.validate('Screen', screen);
  assert.deepEqual(pointers(problems), [
    '/navigations/0/category',
    '/navigations/0/nav_items/0/data/source',
    '/navigations/0/nav_items/1/data/target',
    '/ui_components/0/rules/item_limit',
    '/ui_components/1/cell_styles/0',
    '/ui_components/1/header/visible',
    '/ui_components/1/rules/item_limit',
  ]);
  const by = Object.fromEntries(problems.map((p) => [p.pointer, p.message]));
  assert.equal(by['/ui_components/0/rules/item_limit'], 'must not be negative');
  assert.equal(by['/ui_components/1/rules/item_limit'], 'must be at most 10,000');
  assert.equal(by['/navigations/0/category'], 'must be one of "nav_bar", "menu"');
  assert.match(by['/navigations/0/nav_items/0/data/source'], /web address/);
  assert.equal(by['/ui_components/1/header/visible'], 'must be true or false');
});

test('a web link takes http, https and an app scheme, never javascript:', () => {
  const item = (source) => ({ title: 'x', type: 'button', data: { type: 'WEB_URL', source } });
  assert.deepEqual(c.validate('NavItem', item('https://example.com')), []);
  assert.deepEqual(c.validate('NavItem', item('myapp://home')), []);
  assert.equal(c.validate('NavItem', item('JavaScript:alert(1)')).length, 1);
  assert.equal(c.validate('NavItem', item('example.com')).length, 1);
});

test('a preview request is checked like the preview endpoint reads it', () => {
  assert.deepEqual(c.validate('PreviewRequest', { screen: { family: 'PHONES', ui_components: [] }, device: 'phone-375x667' }), []);
  const problems = c.validate('PreviewRequest', { screen: { ui_components: [{ component_type: 'list', rules: { item_limit: -1 } }] } });
  assert.deepEqual(pointers(problems), ['/screen/family', '/screen/ui_components/0/rules/item_limit']);
});

test('read-only members are not checked (the server ignores them)', () => {
  const saved = { ...goodFamily, revision: 0, created_at: 'whenever' };
  saved.cell_styles = [{ ...goodFamily.cell_styles[0], computed: { width: 'x' } }];
  assert.deepEqual(c.validate('Family', saved), []);
});

test('mergeProblems keeps the first word on a field', () => {
  const merged = mergeProblems([{ pointer: '/name', message: 'give it a name' }],
    [{ pointer: '/name', message: 'must not be empty' }, { pointer: '/id', message: 'x' }, { pointer: '/name/x', message: 'y' }]);
  assert.deepEqual(merged, [{ pointer: '/name', message: 'give it a name' }, { pointer: '/id', message: 'x' }]);
});

test('loaded once and cached; unknown schemas check nothing', async () => {
  let calls = 0;
  const fetcher = async () => { calls += 1; return doc; };
  const [a, b] = await Promise.all([loadContract(fetcher), loadContract(fetcher)]);
  assert.equal(a, b);
  assert.equal(calls, 1);
  assert.equal(contract(), a);
  assert.equal(checkAgainst('Family', { ...goodFamily, interitem_spacing: -1 })[0].pointer, '/interitem_spacing');
  assert.deepEqual(c.validate('NoSuchSchema', {}), []);
});
