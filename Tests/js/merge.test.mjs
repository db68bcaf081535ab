// The three-way merge of a conflict (Public/js/merge.js): base (what the user started from), theirs
// (saved meanwhile) and mine (the draft). Run: node --test Tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { merge3, describeConflict } from '../../Public/js/merge.js';
import { state } from '../../Public/js/state.js';

// Components are named by their type's name in the catalog ("List 2").
state.componentTypes = [{ id: 'list', name: 'List' }, { id: 'group', name: 'Group' }, { id: 'grid', name: 'Grid' }];

const c = (id, extra = {}) => ({ id, component_type: 'list', cell_styles: ['LIST_1'], ...extra });
const screen = (components, extra = {}) => ({ name: 'S', ui_components: components, ...extra });
const ids = (list) => list.map((x) => x.id).join(',');
const clone = (v) => JSON.parse(JSON.stringify(v));

test('nothing changed, or one side only: no overlap, that side taken', () => {
  const base = screen([c('a'), c('b')], { styles: { header: { visible: true } } });
  assert.deepEqual(merge3(base, clone(base), clone(base)), { merged: base, conflicts: [] });
  const theirs = { ...clone(base), name: 'T' };
  assert.deepEqual(merge3(base, theirs, clone(base)), { merged: theirs, conflicts: [] });
  const mine = { ...clone(base), name: 'M', ui_components: [c('b')] };
  assert.deepEqual(merge3(base, clone(base), mine), { merged: mine, conflicts: [] });
});

test('both changed the same way: taken once, no overlap', () => {
  const base = screen([c('a')], { rules: { item_limit: '3' } });
  const both = screen([c('a', { rules: { item_limit: 9 } })], { rules: { item_limit: '6' }, name: 'New' });
  const { merged, conflicts } = merge3(base, clone(both), clone(both));
  assert.deepEqual(merged, both);
  assert.deepEqual(conflicts, []);
});

test('changes to different members, at any depth, are all kept', () => {
  const base = { name: 'S', styles: { header: { visible: true, style: 'plain' }, footer: { visible: false } }, hooks: { preload_plugins: ['p'] } };
  const theirs = clone(base); theirs.styles.header.visible = false; theirs.name = 'T';
  const mine = clone(base); mine.styles.header.style = 'bold'; mine.styles.footer.visible = true; mine.extra = { y: 2 };
  const { merged, conflicts } = merge3(base, theirs, mine);
  assert.deepEqual(conflicts, []);
  assert.deepEqual(merged, {
    name: 'T', styles: { header: { visible: false, style: 'bold' }, footer: { visible: true } }, hooks: { preload_plugins: ['p'] }, extra: { y: 2 },
  });
});

test('unknown members are merged like any other (the browser suite\'s case)', () => {
  const r = merge3({ name: 'S', extra: { x: 1 } }, { name: 'T', extra: { x: 1 } }, { name: 'S', extra: { x: 1, y: 2 } });
  assert.deepEqual(r, { merged: { name: 'T', extra: { x: 1, y: 2 } }, conflicts: [] });
});

test('one field changed differently by both is an overlap: reported, mine kept until chosen', () => {
  const base = { name: 'Home', rules: { item_limit: '3' } };
  const theirs = { name: 'Start', rules: { item_limit: '3' } };
  const mine = { name: 'Begin', rules: { item_limit: '6' } };
  const r = merge3(base, theirs, mine);
  assert.deepEqual(r.conflicts, [{ key: '/name', kind: 'value', base: 'Home', theirs: 'Start', mine: 'Begin', where: 'this', field: 'name' }]);
  assert.deepEqual(r.merged, { name: 'Begin', rules: { item_limit: '6' } }, 'mine (not to be saved as it is)');
  assert.deepEqual(describeConflict(r.conflicts[0]), { title: 'name', theirs: '“Start”', mine: '“Begin”' });

  const theirsChosen = merge3(base, theirs, mine, { '/name': 'theirs' });
  assert.deepEqual(theirsChosen, { merged: { name: 'Start', rules: { item_limit: '6' } }, conflicts: [] });
  const mineChosen = merge3(base, theirs, mine, { '/name': 'mine' });
  assert.deepEqual(mineChosen, { merged: { name: 'Begin', rules: { item_limit: '6' } }, conflicts: [] });
});

test('overlaps on nested members have a key and a label of their own', () => {
  const base = { rules: { item_limit: '3', refresh_rate: 1 }, styles: { header: { style: 'a' } } };
  const theirs = { rules: { item_limit: '4', refresh_rate: 2 }, styles: { header: { style: 'b' } } };
  const mine = { rules: { item_limit: '5', refresh_rate: 1 }, styles: { header: { style: 'c' } } };
  const r = merge3(base, theirs, mine);
  assert.deepEqual(r.conflicts.map((x) => [x.key, x.field]), [
    ['/rules/item_limit', 'item limit'],
    ['/styles/header/style', 'header style'],
  ]);
  assert.equal(r.merged.rules.refresh_rate, 2, 'only theirs changed it');
  const chosen = merge3(base, theirs, mine, { '/rules/item_limit': 'theirs', '/styles/header/style': 'mine' });
  assert.deepEqual(chosen, { merged: { rules: { item_limit: '4', refresh_rate: 2 }, styles: { header: { style: 'c' } } }, conflicts: [] });
});

test('a member removed by one side and changed by the other is an overlap; choosing the removal removes it', () => {
  const base = { name: 'S', note: 'a' };
  const r = merge3(base, { name: 'S' }, { name: 'S', note: 'b' });
  assert.equal(r.conflicts.length, 1);
  assert.equal(r.conflicts[0].key, '/note');
  assert.equal(r.conflicts[0].theirs, undefined);
  assert.deepEqual(describeConflict(r.conflicts[0]), { title: 'note', theirs: 'none', mine: '“b”' });
  const removed = merge3(base, { name: 'S' }, { name: 'S', note: 'b' }, { '/note': 'theirs' });
  assert.deepEqual(removed, { merged: { name: 'S' }, conflicts: [] });
  assert.equal(Object.hasOwn(removed.merged, 'note'), false, 'no member left as undefined');
  // Removed by one side and left alone by the other: removed.
  assert.deepEqual(merge3(base, { name: 'T' }, { name: 'S', note: 'a' }), { merged: { name: 'T' }, conflicts: [] });
  assert.deepEqual(merge3(base, { name: 'T', note: 'a' }, { name: 'S' }), { merged: { name: 'T' }, conflicts: [] });
});

test('members added by both sides differently are an overlap; from nothing, objects merge by member', () => {
  const r = merge3({}, { a: 1, b: 2 }, { a: 1, c: 3, b: 4 });
  assert.deepEqual(r.conflicts.map((x) => [x.key, x.base, x.theirs, x.mine]), [['/b', undefined, 2, 4]]);
  assert.deepEqual(merge3(undefined, { a: 1, b: 2 }, { a: 1, c: 3 }), { merged: { a: 1, b: 2, c: 3 }, conflicts: [] });
  assert.deepEqual(merge3(null, { a: 1 }, { c: 3 }), { merged: { a: 1, c: 3 }, conflicts: [] });
});

test('a whole value in conflict (not an object) is one overlap, "the whole"', () => {
  const r = merge3('a', 'b', 'c');
  assert.deepEqual(r, { merged: 'c', conflicts: [{ key: '', kind: 'value', base: 'a', theirs: 'b', mine: 'c', where: 'this', field: '' }] });
  assert.deepEqual(describeConflict(r.conflicts[0]), { title: 'the whole', theirs: '“b”', mine: '“c”' });
  // A value that became an object on one side and something else on the other.
  assert.equal(merge3({ x: 1 }, { x: 2 }, 'gone').conflicts.length, 1);
});

test('lists of text are one field: both changing them differently is one overlap', () => {
  const base = { hooks: { preload_plugins: ['a'] } };
  assert.deepEqual(merge3(base, { hooks: { preload_plugins: ['a', 'b'] } }, clone(base)).merged, { hooks: { preload_plugins: ['a', 'b'] } });
  const r = merge3(base, { hooks: { preload_plugins: ['a', 'b'] } }, { hooks: { preload_plugins: ['c'] } });
  assert.equal(r.conflicts.length, 1);
  assert.deepEqual(describeConflict(r.conflicts[0]), { title: 'plugins run before loading', theirs: '“a”, “b”', mine: '“c”' });
  assert.deepEqual(r.merged.hooks.preload_plugins, ['c']);
});

test('components: they reorder, I change one: their order with my change, no overlap', () => {
  const base = screen([c('a'), c('b'), c('c')]);
  const r = merge3(base, screen([c('c'), c('a'), c('b')]), screen([c('a'), c('b', { rules: { item_limit: 2 } }), c('c')]));
  assert.equal(ids(r.merged.ui_components), 'c,a,b');
  assert.deepEqual(r.merged.ui_components[2].rules, { item_limit: 2 });
  assert.deepEqual(r.conflicts, []);
  // And the other way round: I reorder, they change one.
  const r2 = merge3(base, screen([c('a'), c('b', { rules: { item_limit: 2 } }), c('c')]), screen([c('b'), c('c'), c('a')]));
  assert.equal(ids(r2.merged.ui_components), 'b,c,a');
  assert.deepEqual(r2.merged.ui_components[0].rules, { item_limit: 2 });
  assert.deepEqual(r2.conflicts, []);
});

test('components both sides add are all kept, each after its neighbour', () => {
  const base = screen([c('a'), c('b'), c('c')]);
  const r = merge3(base, screen([c('a'), c('t'), c('b'), c('c')]), screen([c('a'), c('b'), c('c'), c('m')]));
  assert.equal(ids(r.merged.ui_components), 'a,t,b,c,m');
  assert.deepEqual(r.conflicts, []);
  // One added in front of everything stays in front.
  const r2 = merge3(base, screen([c('t'), c('a'), c('b'), c('c')]), screen([c('a'), c('b'), c('m'), c('c')]));
  assert.equal(ids(r2.merged.ui_components), 't,a,b,m,c');
  // The same component added by both, alike: once.
  const r3 = merge3(base, screen([c('a'), c('b'), c('c'), c('n')]), screen([c('a'), c('b'), c('c'), c('n')]));
  assert.equal(ids(r3.merged.ui_components), 'a,b,c,n');
});

test('removals: by both, or by one with the other leaving it alone, remove it', () => {
  const base = screen([c('a'), c('b'), c('c'), c('d')]);
  const r = merge3(base, screen([c('b'), c('c', { name: 'T' }), c('d')]), screen([c('c'), c('d', { name: 'M' })]));
  assert.equal(ids(r.merged.ui_components), 'c,d');
  assert.deepEqual(r.merged.ui_components.map((x) => x.name), ['T', 'M']);
  assert.deepEqual(r.conflicts, []);
});

test('I remove a component they changed: an overlap (removed-by-me); theirs keeps it, mine removes it', () => {
  const base = screen([c('a'), c('b'), c('c')]);
  const theirs = screen([c('a', { rules: { item_limit: 5 } }), c('b')]);
  const mine = screen([c('b'), c('c')]);
  const r = merge3(base, theirs, mine);
  assert.equal(r.conflicts.length, 1);
  const [overlap] = r.conflicts;
  assert.equal(overlap.kind, 'removed-by-me');
  assert.equal(overlap.key, '/ui_components/a');
  assert.equal(overlap.where, 'List 1');
  assert.equal(overlap.mine, undefined);
  assert.deepEqual(overlap.theirs, theirs.ui_components[0]);
  assert.deepEqual(describeConflict(overlap), { title: 'List 1', theirs: 'they changed it', mine: 'you removed it' });
  assert.equal(ids(r.merged.ui_components), 'b', 'mine until chosen (c: they removed it, I left it alone)');
  const kept = merge3(base, theirs, mine, { '/ui_components/a': 'theirs' });
  assert.equal(ids(kept.merged.ui_components), 'a,b');
  assert.deepEqual(kept.merged.ui_components[0].rules, { item_limit: 5 });
  assert.deepEqual(kept.conflicts, []);
  assert.deepEqual(merge3(base, theirs, mine, { '/ui_components/a': 'mine' }), { merged: screen([c('b')]), conflicts: [] });
});

test('they remove a component I changed: an overlap (removed-by-them)', () => {
  const base = screen([c('a'), c('b'), c('c')]);
  const theirs = screen([c('a'), c('c')]);
  const mine = screen([c('a'), c('b', { data: { source: '42' } }), c('c')]);
  const r = merge3(base, theirs, mine);
  assert.deepEqual(r.conflicts.map((x) => [x.kind, x.key, x.where]), [['removed-by-them', '/ui_components/b', 'List 2']]);
  assert.deepEqual(describeConflict(r.conflicts[0]), { title: 'List 2', theirs: 'they removed it', mine: 'you changed it' });
  assert.equal(ids(r.merged.ui_components), 'a,b,c', 'mine until chosen');
  assert.equal(ids(merge3(base, theirs, mine, { '/ui_components/b': 'theirs' }).merged.ui_components), 'a,c');
  const kept = merge3(base, theirs, mine, { '/ui_components/b': 'mine' });
  assert.deepEqual(kept.merged, mine);
  assert.deepEqual(kept.conflicts, []);
});

test('both reorder differently: one overlap about the order', () => {
  const base = screen([c('a'), c('b'), c('c')]);
  const theirs = screen([c('b'), c('a'), c('c')]);
  const mine = screen([c('a'), c('c'), c('b')]);
  const r = merge3(base, theirs, mine);
  assert.deepEqual(r.conflicts, [{
    key: '/ui_components/order', kind: 'order', base: ['a', 'b', 'c'], theirs: ['b', 'a', 'c'], mine: ['a', 'c', 'b'],
    where: 'this', field: 'components › order',
  }]);
  assert.deepEqual(describeConflict(r.conflicts[0]), { title: 'the order of the components', theirs: 'their order', mine: 'your order' });
  assert.equal(ids(r.merged.ui_components), 'a,c,b');
  assert.equal(ids(merge3(base, theirs, mine, { '/ui_components/order': 'theirs' }).merged.ui_components), 'b,a,c');
  assert.equal(ids(merge3(base, theirs, mine, { '/ui_components/order': 'mine' }).merged.ui_components), 'a,c,b');
  // Both moved the same way: no overlap.
  assert.deepEqual(merge3(base, clone(theirs), clone(theirs)).conflicts, []);
});

test('a field of one component changed differently by both: an overlap named by the component', () => {
  const base = screen([c('a'), c('b', { rules: { item_limit: 3 } })]);
  const r = merge3(base, screen([c('a'), c('b', { rules: { item_limit: 5 } })]), screen([c('a', { name: 'x' }), c('b', { rules: { item_limit: 6 } })]));
  assert.deepEqual(r.conflicts.map((x) => [x.key, x.where, x.field]), [['/ui_components/b/rules/item_limit', 'List 2', 'item limit']]);
  assert.deepEqual(describeConflict(r.conflicts[0]), { title: 'List 2 › item limit', theirs: '5', mine: '6' });
  assert.equal(r.merged.ui_components[0].name, 'x');
});

test('components inside components merge entry by entry, named "List 1 in Group 1"', () => {
  const g = (children) => ({ id: 'g', component_type: 'group', ui_components: children });
  const base = screen([g([c('x', { rules: { item_limit: 1 } }), c('y')])]);
  const r = merge3(base, screen([g([c('x', { rules: { item_limit: 2 } }), c('y')])]), screen([g([c('x', { rules: { item_limit: 3 } }), c('y')])]));
  assert.deepEqual(r.conflicts.map((x) => [x.key, x.where, x.field]), [['/ui_components/g/ui_components/x/rules/item_limit', 'List 1 in Group 1', 'item limit']]);
  assert.deepEqual(describeConflict(r.conflicts[0]), { title: 'List 1 in Group 1 › item limit', theirs: '2', mine: '3' });

  // They reorder inside the group, I add inside it (after y) and after it: no overlap; mine goes
  // after its neighbour in their order.
  const r2 = merge3(base, screen([g([c('y'), c('x', { rules: { item_limit: 1 } })])]), screen([g([c('x', { rules: { item_limit: 1 } }), c('y'), c('z')]), c('q')]));
  assert.deepEqual(r2.conflicts, []);
  assert.equal(ids(r2.merged.ui_components), 'g,q');
  assert.equal(ids(r2.merged.ui_components[0].ui_components), 'y,z,x');

  // Both reorder inside the group: the order of the components in the group.
  const r3 = merge3(screen([g([c('x'), c('y'), c('z')])]), screen([g([c('y'), c('x'), c('z')])]), screen([g([c('x'), c('z'), c('y')])]));
  assert.deepEqual(r3.conflicts.map((x) => [x.key, x.kind, x.where]), [['/ui_components/g/ui_components/order', 'order', 'Group 1']]);
  assert.equal(describeConflict(r3.conflicts[0]).title, 'the order of the components in Group 1');
});

test('cell styles of a family merge by id: different styles changed, no overlap; one style both changed, an overlap', () => {
  const s = (id, extra = {}) => ({ id, name: id, columns: 1, height: 10, ...extra });
  const base = { name: 'F', cell_styles: [s('BIG'), s('SMALL')] };
  const r = merge3(base, { name: 'F', cell_styles: [s('BIG', { height: 20 }), s('SMALL')] }, { name: 'F', cell_styles: [s('BIG'), s('SMALL', { columns: 2 })] });
  assert.deepEqual(r, { merged: { name: 'F', cell_styles: [s('BIG', { height: 20 }), s('SMALL', { columns: 2 })] }, conflicts: [] });
  const r2 = merge3(base, { name: 'F', cell_styles: [s('BIG', { height: 20 }), s('SMALL')] }, { name: 'F', cell_styles: [s('BIG', { height: 30 }), s('SMALL')] });
  assert.deepEqual(r2.conflicts.map((x) => [x.key, x.where, x.field]), [['/cell_styles/BIG/height', 'this', 'cell styles › BIG › height']]);
  assert.deepEqual(describeConflict(r2.conflicts[0]), { title: 'cell styles › BIG › height', theirs: '20', mine: '30' });
});

test('an overlap on the order of a list other than components names that list', () => {
  // The dialog said "the order of the components" for every list (fixed in describeConflict).
  const s = (id) => ({ id, name: id, columns: 1, height: 10 });
  const base = { name: 'F', cell_styles: [s('A'), s('B'), s('C')] };
  const r = merge3(base, { name: 'F', cell_styles: [s('B'), s('A'), s('C')] }, { name: 'F', cell_styles: [s('A'), s('C'), s('B')] });
  assert.deepEqual(r.conflicts.map((x) => [x.key, x.kind, x.field]), [['/cell_styles/order', 'order', 'cell styles › order']]);
  assert.deepEqual(describeConflict(r.conflicts[0]), { title: 'the order of the cell styles', theirs: 'their order', mine: 'your order' });
});

test('entries with ids that are UUIDs are named by their place; names and titles otherwise', () => {
  const u1 = '0f8fad5b-d9cb-469f-a165-70867728950e';
  const u2 = '7c9e6679-7425-40de-944c-e07fc1f90ae7';
  const nav = (items) => ({ navigations: [{ id: 'main', title: 'Main', nav_items: items }] });
  const base = nav([{ id: u1, target: 'x' }, { id: u2, title: 'Shop', target: 'y' }]);
  const r = merge3(base, nav([{ id: u1, target: 'a' }, { id: u2, title: 'Shop', target: 'b' }]), nav([{ id: u1, target: 'c' }, { id: u2, title: 'Shop', target: 'd' }]));
  assert.deepEqual(r.conflicts.map((x) => x.key), [`/navigations/main/nav_items/${u1}/target`, `/navigations/main/nav_items/${u2}/target`]);
  assert.deepEqual(r.conflicts.map((x) => x.field), ['navigation › Main › items › nav items 1 › target', 'navigation › Main › items › Shop › target']);
});

test('choices for every overlap of a first pass leave none', () => {
  const base = screen([c('a'), c('b'), c('c'), c('d')], { name: 'A' });
  const theirs = screen([c('b', { name: 't' }), c('a'), c('c'), c('d', { name: 't' })], { name: 'B' });
  const mine = screen([c('a'), c('c'), c('b', { name: 'm' })], { name: 'C' });
  const first = merge3(base, theirs, mine);
  assert.deepEqual(first.conflicts.map((x) => [x.kind, x.key]).sort(), [
    ['order', '/ui_components/order'], ['removed-by-me', '/ui_components/d'], ['value', '/name'], ['value', '/ui_components/b/name'],
  ]);
  const expected = { mine: ['C', 'a,c,b', 'm'], theirs: ['B', 'b,a,c,d', 't'] };
  for (const side of ['mine', 'theirs']) {
    const choices = Object.fromEntries(first.conflicts.map((x) => [x.key, side]));
    const again = merge3(base, theirs, mine, choices);
    assert.deepEqual(again.conflicts, [], side);
    const b = again.merged.ui_components.find((x) => x.id === 'b');
    assert.deepEqual([again.merged.name, ids(again.merged.ui_components), b.name], expected[side], side);
  }
});

test('the inputs are not changed', () => {
  const base = screen([c('a'), c('b')]);
  const theirs = screen([c('b'), c('a', { name: 't' })]);
  const mine = screen([c('a'), c('b', { name: 'm' }), c('n')]);
  const copies = clone([base, theirs, mine]);
  merge3(base, theirs, mine);
  assert.deepEqual([base, theirs, mine], copies);
});
