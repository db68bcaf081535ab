// What changed, in the editor's words (Public/js/changes.js): field by field, component by
// component, screen by screen. The drawing (renderChanges, fieldLine) is the browser suite's; the
// comparisons and the text are checked here. Run: node --test Tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  fieldLabel, showValue, fieldChanges, flattenComponents, componentChanges, documentChanges, fieldText, summarize, changeLines,
} from '../../Public/js/changes.js';
import { state } from '../../Public/js/state.js';

state.componentTypes = [{ id: 'list', name: 'List' }, { id: 'group', name: 'Group' }, { id: 'grid', name: 'Grid' }];
const HOME = '0f8fad5b-d9cb-469f-a165-70867728950e';
const SHOP = '7c9e6679-7425-40de-944c-e07fc1f90ae7';
state.screens = [{ id: HOME, name: 'Home' }];

const c = (id, extra = {}) => ({ id, component_type: 'list', ...extra });
const paths = (changes) => changes.map((f) => f.path.join('/'));

test('field labels: known paths in words, others member by member', () => {
  assert.equal(fieldLabel(['rules', 'item_limit']), 'item limit');
  assert.equal(fieldLabel(['styles', 'cell_styles']), 'cell styles');
  assert.equal(fieldLabel(['data', 'target']), 'tapping an item opens');
  assert.equal(fieldLabel(['rules', 'refresh_rate']), 'rules › refresh rate');
  assert.equal(fieldLabel(['cell_styles', 'Big', 'height']), 'cell styles › Big › height');
  // The last two members known: the rest before them in words.
  assert.equal(fieldLabel(['navigations', 'Main', 'data', 'source']), 'navigation › Main › data source');
  assert.equal(fieldLabel(['some_member']), 'some member');
  assert.equal(fieldLabel([]), '');
});

test('values as people read them', () => {
  for (const nothing of [undefined, null, '', [], {}]) assert.equal(showValue(nothing), 'none', JSON.stringify(nothing));
  assert.equal(showValue('Home'), '“Home”');
  assert.equal(showValue('6'), '6', 'numbers written as text read as numbers');
  assert.equal(showValue('-1.5'), '-1.5');
  assert.equal(showValue('1e3'), '“1e3”');
  assert.equal(showValue(0), '0');
  assert.equal(showValue(true), 'yes');
  assert.equal(showValue(false), 'no');
  assert.equal(showValue(['a', 2, true]), '“a”, 2, yes');
  assert.equal(showValue([{ a: 1 }]), '1 item');
  assert.equal(showValue([{ a: 1 }, { b: 2 }]), '2 items');
  assert.equal(showValue({ item_limit: '6', a: true }), 'a yes, item limit 6', 'members sorted, in words');
  const long = 'x'.repeat(100);
  assert.equal(showValue(long), `“${'x'.repeat(77)}…”`);
  const wide = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${String(i).padStart(2, '0')}`, 'value']));
  assert.equal(showValue(wide).length, 88);
  assert.ok(showValue(wide).endsWith('…'));
});

test('screen ids read as screen names: from the names given, then the app\'s screens', () => {
  assert.equal(showValue(HOME), 'screen “Home”');
  assert.equal(showValue(HOME.toUpperCase()), 'screen “Home”');
  assert.equal(showValue(SHOP), 'another screen');
  assert.equal(showValue(SHOP, new Map([[SHOP, 'Shop']])), 'screen “Shop”');
  assert.equal(showValue([HOME, SHOP], new Map([[SHOP, 'Shop']])), 'screen “Home”, screen “Shop”');
});

test('field changes: every differing leaf, nested members included, sorted by path', () => {
  const before = { name: 'A', styles: { header: { visible: true, style: 'x' }, footer: { visible: false } }, rules: { item_limit: '3' }, same: { deep: [1] } };
  const after = { name: 'A', styles: { header: { visible: false, style: 'x' }, footer: { visible: false, style: 'y' } }, rules: {}, same: { deep: [1] }, added: 1 };
  const changes = fieldChanges(before, after);
  assert.deepEqual(changes, [
    { path: ['added'], label: 'added', before: undefined, after: 1 },
    { path: ['rules', 'item_limit'], label: 'item limit', before: '3', after: undefined },
    { path: ['styles', 'footer', 'style'], label: 'footer style', before: undefined, after: 'y' },
    { path: ['styles', 'header', 'visible'], label: 'header shown', before: true, after: false },
  ]);
  assert.deepEqual(fieldChanges(before, structuredClone(before)), []);
  // Member order does not count.
  assert.deepEqual(fieldChanges({ a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 }), []);
});

test('field changes: `ignore` leaves out top-level members only', () => {
  const before = { revision: 1, ui_components: [c('a')], data: { revision: 1 } };
  const after = { revision: 2, ui_components: [], data: { revision: 2 } };
  assert.deepEqual(paths(fieldChanges(before, after, { ignore: ['revision', 'ui_components'] })), ['data/revision']);
});

test('field changes: entries with ids are matched by id, named by name, title or id', () => {
  const before = { cell_styles: [{ id: 'S1', name: 'Big', height: 1 }, { id: 'S2', height: 2 }, { id: HOME, title: 'Gone' }] };
  const after = { cell_styles: [{ id: 'S3', identifier: 'new_one' }, { id: 'S1', name: 'Big', height: 3 }, { id: 'S2', height: 2 }] };
  assert.deepEqual(fieldChanges(before, after), [
    { path: ['cell_styles', 'new_one'], label: 'cell styles: new_one', before: undefined, after: after.cell_styles[0], added: true },
    { path: ['cell_styles', 'Big', 'height'], label: 'cell styles › Big › height', before: 1, after: 3 },
    { path: ['cell_styles', 'Gone'], label: 'cell styles: Gone', before: before.cell_styles[2], after: undefined, removed: true },
  ]);
  // An entry whose id is a UUID and that has no name is named by its place.
  const removed = fieldChanges({ items: [{ id: SHOP }] }, { items: [] });
  assert.deepEqual(removed.map((f) => [f.label, f.removed]), [['items: item 1', true]]);
});

test('field changes: lists of objects without ids compare place by place when as long, else whole', () => {
  assert.deepEqual(fieldChanges({ x: [{ a: 1 }, { a: 2 }] }, { x: [{ a: 1 }, { a: 3 }] }), [
    { path: ['x', 'item 2', 'a'], label: 'x › item 2 › a', before: 2, after: 3 },
  ]);
  const longer = fieldChanges({ x: [{ a: 1 }] }, { x: [{ a: 1 }, { a: 3 }] });
  assert.deepEqual(longer.map((f) => [f.path, f.before.length, f.after.length]), [[['x'], 1, 2]]);
  // Lists of text are one value, their order included.
  assert.deepEqual(fieldChanges({ x: [1, 2] }, { x: [2, 1] }), [{ path: ['x'], label: 'x', before: [1, 2], after: [2, 1] }]);
});

test('components flattened depth first, keyed by id (or place), labelled by type and place', () => {
  const flat = flattenComponents([c('a'), { component_type: 'group', ui_components: [c('x'), { component_type: 'grid' }] }]);
  assert.deepEqual(flat.map((p) => [p.key, p.parent, p.index, p.label]), [
    ['id:a', '', 0, 'List 1'],
    ['#1', '', 1, 'Group 2'],
    ['id:x', '#1/', 0, 'List 1 in Group 2'],
    ['#1/#1', '#1/', 1, 'Grid 2 in Group 2'],
  ]);
  assert.deepEqual(flattenComponents(undefined), []);
  // A type the catalog does not know is named by its id.
  assert.equal(flattenComponents([{ component_type: 'hero' }])[0].label, 'hero 1');
});

test('component changes: added, removed, changed (position and children left out)', () => {
  const from = [c('a'), c('b', { rules: { item_limit: 3 } }), c('c')];
  const to = [c('a', { position: 9 }), c('b', { rules: { item_limit: 6 } }), c('n')];
  const r = componentChanges(from, to);
  assert.deepEqual(r.added.map((x) => x.label), ['List 3']);
  assert.deepEqual(r.removed.map((x) => x.label), ['List 3']);
  assert.deepEqual(r.changed.map((x) => [x.label, x.fields.map((f) => fieldText(f))]), [['List 2', ['item limit: 3 → 6']]]);
  assert.deepEqual(r.moved, []);
  // A child's change is the child's, not its parent's.
  const g = (kids, extra = {}) => ({ id: 'g', component_type: 'group', ui_components: kids, ...extra });
  const nested = componentChanges([g([c('x', { data: { source: '6' } })])], [g([c('x', { data: { source: '7' } })])]);
  assert.deepEqual(nested.changed.map((x) => [x.label, x.fields.map((f) => f.label)]), [['List 1 in Group 1', ['data source']]]);
  assert.deepEqual(componentChanges(undefined, null), { added: [], removed: [], changed: [], moved: [] });
});

test('component moves: a new order among the same siblings, or a new parent; not a shift from an addition or removal', () => {
  const swapped = componentChanges([c('a'), c('b'), c('c')], [c('b'), c('a'), c('c')]);
  assert.deepEqual(swapped.moved.map((x) => [x.label, x.from]), [['List 1', 'List 2'], ['List 2', 'List 1']]);
  // Only shifted by an addition before it, or a removal before it: not moved.
  assert.deepEqual(componentChanges([c('a'), c('b')], [c('n'), c('a'), c('b')]).moved, []);
  assert.deepEqual(componentChanges([c('a'), c('b'), c('c')], [c('b'), c('c')]).moved, []);
  // Into a group: moved, with its old place.
  const g = (kids) => ({ id: 'g', component_type: 'group', ui_components: kids });
  const into = componentChanges([c('a'), c('b'), g([c('x')])], [c('a'), g([c('x'), c('b')])]);
  assert.deepEqual(into.moved.map((x) => [x.label, x.from]), [['List 2 in Group 2', 'List 2']]);
});

test('a component that only shifts because another moved out of (or into) its list has not moved', () => {
  // The group used to be reported as "Group 3 moved (was Group 3)" when b, before it, went into it.
  const g = (kids) => ({ id: 'g', component_type: 'group', ui_components: kids });
  const into = componentChanges([c('a'), c('b'), g([c('x')])], [c('a'), g([c('x'), c('b')])]);
  assert.deepEqual(into.moved.map((x) => x.label), ['List 2 in Group 2']);
  const out = componentChanges([c('a'), g([c('x'), c('b')]), c('z')], [c('b'), c('a'), g([c('x')]), c('z')]);
  assert.deepEqual(out.moved.map((x) => [x.label, x.from]), [['List 1', 'List 2 in Group 2']]);
});

test('document changes: screens added, removed, changed (with fields and components) and unchanged', () => {
  const from = [
    { id: 'S1', name: 'A', ui_components: [c('a')] },
    { id: 'S2', name: 'B', ui_components: [c('a'), c('b')] },
    { id: 'S3', name: 'C' },
  ];
  const to = [
    { id: 'S1', name: 'A', ui_components: [c('a')] },
    { id: 'S2', name: 'BB', home: true, ui_components: [c('b')] },
    { id: 'S4', name: 'D' },
  ];
  const r = documentChanges(from, to);
  assert.deepEqual(r.added, [{ id: 'S4', name: 'D' }]);
  assert.deepEqual(r.removed, [{ id: 'S3', name: 'C' }]);
  assert.equal(r.unchanged, 1);
  assert.equal(r.changed.length, 1);
  const [s2] = r.changed;
  assert.equal(s2.previousName, 'B');
  assert.deepEqual(s2.fields.map((f) => fieldText(f)), ['home screen: none → yes', 'name: “B” → “BB”']);
  assert.deepEqual(s2.components.removed.map((x) => x.label), ['List 1']);
  assert.deepEqual(s2.components.moved, []);
  assert.equal(r.names.get('s4'), 'D', 'names of both sides, by lower-case id');
  assert.equal(summarize(r), '1 screen changed, 1 screen added, 1 screen removed');
  // Screens without ids are matched by place.
  const byPlace = documentChanges([{ name: 'X' }], [{ name: 'Y' }]);
  assert.deepEqual([byPlace.added.length, byPlace.removed.length, byPlace.changed[0].previousName], [0, 0, 'X']);
  assert.deepEqual(documentChanges(null, undefined), { added: [], removed: [], changed: [], unchanged: 0, names: new Map() });
});

test('summaries count screens', () => {
  assert.equal(summarize({ added: [], removed: [], changed: [] }), '');
  assert.equal(summarize({ added: [1, 2], removed: [], changed: [1] }), '1 screen changed, 2 screens added');
});

test('a changed field as text', () => {
  assert.equal(fieldText({ label: 'item limit', before: '3', after: '6' }), 'item limit: 3 → 6');
  assert.equal(fieldText({ label: 'data source', before: undefined, after: SHOP }, new Map([[SHOP, 'Shop']])), 'data source: none → screen “Shop”');
  assert.equal(fieldText({ label: 'cell styles: Big', added: true }), 'added cell styles: Big');
  assert.equal(fieldText({ label: 'cell styles: Big', removed: true }), 'removed cell styles: Big');
});

test('change lines of one resource (the conflict dialog\'s): fields, then components; bookkeeping left out', () => {
  const before = { name: 'Home', revision: 1, updated_at: 'a', created_at: 'a', rules: { item_limit: null }, ui_components: [c('a'), c('b'), c('c')] };
  const after = {
    name: 'Start', revision: 2, updated_at: 'b', created_at: 'b', rules: { item_limit: '6' },
    ui_components: [c('c'), c('b', { rules: { item_limit: 2 } }), c('n')],
  };
  assert.deepEqual(changeLines(before, after), [
    'name: “Home” → “Start”',
    'item limit: none → 6',
    'List 3 added',
    'List 1 removed',
    'List 1 moved (was List 3)',
    'List 2 moved (was List 2)',
    'List 2: rules: none → item limit 2',
  ]);
  assert.deepEqual(changeLines(before, after, { ignore: ['name', 'rules'] }).slice(0, 1), ['List 3 added']);
  assert.deepEqual(changeLines(null, undefined), []);
  assert.deepEqual(changeLines(before, structuredClone(before)), []);
});

test('entries with ids put in another order: said once, for the list', () => {
  // A new order of navigation items (or cell styles) used to be no change at all: the screen was
  // listed as changed with nothing under it, and the conflict dialog did not say they reordered.
  const nav = (items) => ({ navigations: [{ id: 'main', title: 'Main', nav_items: items }] });
  const a = { id: 'A', title: 'News' };
  const b = { id: 'B', title: 'Shop' };
  const changes = fieldChanges(nav([a, b]), nav([b, a]));
  assert.deepEqual(changes, [{
    path: ['navigations', 'Main', 'nav_items'], label: 'navigation › Main › items', before: [a, b], after: [b, a], reordered: true,
  }]);
  assert.equal(fieldText(changes[0]), 'reordered navigation › Main › items');
  assert.deepEqual(changeLines({ name: 'F', cell_styles: [{ id: 'S1', name: 'Big' }, { id: 'S2', name: 'Small' }] },
    { name: 'F', cell_styles: [{ id: 'S2', name: 'Small' }, { id: 'S1', name: 'Big', height: 5 }] }),
  ['reordered cell styles', 'cell styles › Big › height: none → 5']);
  // Additions and removals alone are no new order.
  assert.deepEqual(fieldChanges(nav([a, b]), nav([{ id: 'C' }, a, b])).map((f) => fieldText(f)), ['added navigation › Main › items: C']);
  assert.deepEqual(fieldChanges(nav([a, { id: 'C' }, b]), nav([a, b])).map((f) => fieldText(f)), ['removed navigation › Main › items: C']);
  const screen = documentChanges([{ id: 'S', name: 'Home', ...nav([a, b]) }], [{ id: 'S', name: 'Home', ...nav([b, a]) }]).changed[0];
  assert.deepEqual(screen.fields.map((f) => fieldText(f)), ['reordered navigation › Main › items']);
});
