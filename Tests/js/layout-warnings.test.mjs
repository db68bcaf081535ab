// The preview's layout warnings as the editor lists them (Public/js/layout-warnings.js). Run: node --test Tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { warningPath, distinctWarnings, describeWarning } from '../../Public/js/layout-warnings.js';

const names = { grid: 'Grid', group: 'Group', list: 'List' };
const nameOf = (type) => names[type] || type;
const components = [
  { component_type: 'list' },
  { component_type: 'grid' },
  { component_type: 'group', ui_components: [{ component_type: 'list' }, { component_type: 'group', ui_components: [{ component_type: 'grid' }] }] },
];

test('a warning names its component by its path, as the drawing names sections, and a click goes to the top-level one', () => {
  assert.deepEqual(describeWarning({ component_index: 0, component_path: [2, 0], message: 'empty' }, components, nameOf),
    { label: 'List 1 in Group 3: empty', pick: 2 });
  assert.deepEqual(describeWarning({ component_index: 0, component_path: [2, 1, 0], message: 'no cell styles' }, components, nameOf),
    { label: 'Grid 1 in Group 2 in Group 3: no cell styles', pick: 2 });
  assert.deepEqual(describeWarning({ component_index: 1, component_path: [1], message: 'x', on: 'iPad' }, components, nameOf),
    { label: 'Grid 2: x (on iPad)', pick: 1 });
  assert.deepEqual(describeWarning({ component_index: null, component_path: null, message: 'sample ignored' }, components, nameOf),
    { label: 'sample ignored', pick: null });
  // A component the screen no longer has (edited since the preview was drawn).
  assert.deepEqual(describeWarning({ component_path: [7], message: 'x' }, components, nameOf), { label: 'Component 8: x', pick: 7 });
});

test('without a path (an older server) a warning is about a top-level component', () => {
  assert.deepEqual(warningPath({ component_index: 1, message: 'x' }), [1]);
  assert.equal(warningPath({ component_index: null, message: 'x' }), null);
  assert.deepEqual(warningPath({ component_index: 0, component_path: [2, 0] }), [2, 0]);
});

test('the same warning on several devices is listed once; a group child\'s is not taken for a top-level one', () => {
  const layout = (warnings) => ({ warnings });
  const list = distinctWarnings([
    { device: { name: 'iPhone' }, layout: layout([{ component_index: 0, component_path: [0], message: 'empty' }]) },
    { device: { name: 'iPad' }, layout: layout([
      { component_index: 0, component_path: [0], message: 'empty' },
      { component_index: 0, component_path: [2, 0], message: 'empty' },
      { component_index: null, component_path: null, message: 'wide' },
    ]) },
  ]);
  assert.deepEqual(list.map((w) => [w.path, w.message, w.on]), [[[0], 'empty', ''], [[2, 0], 'empty', 'iPad'], [null, 'wide', 'iPad']]);
});
