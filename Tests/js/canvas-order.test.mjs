// Reordering components on the preview (Public/js/canvas-order.js): the drop slot of a drag,
// the index it gives, a move, and the keys of the canvas. Run: node --test Tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dropSlot, slotToIndex, moveItem, keyAction } from '../../Public/js/canvas-order.js';

const sections = [
  { index: 0, top: 0, bottom: 100 },
  { index: 2, top: 300, bottom: 400 },
  { index: 1, top: 100, bottom: 300 },
];

test('dropSlot: before the first section whose middle is below the pointer', () => {
  assert.equal(dropSlot(sections, -10), 0);
  assert.equal(dropSlot(sections, 49), 0);
  assert.equal(dropSlot(sections, 51), 1);
  assert.equal(dropSlot(sections, 199), 1);
  assert.equal(dropSlot(sections, 201), 2);
  assert.equal(dropSlot(sections, 351), 3);
  assert.equal(dropSlot(sections, 9999), 3);
  assert.equal(dropSlot([], 10), 0);
});

test('slotToIndex counts the dragged one out', () => {
  assert.equal(slotToIndex(0, 3), 2, 'first to last');
  assert.equal(slotToIndex(2, 0), 0, 'last to first');
  assert.equal(slotToIndex(1, 1), 1, 'dropped where it was');
  assert.equal(slotToIndex(1, 2), 1, 'just below itself: no move');
});

test('moveItem moves one item and leaves the list alone', () => {
  const list = ['a', 'b', 'c', 'd'];
  assert.deepEqual(moveItem(list, 0, 2), ['b', 'c', 'a', 'd']);
  assert.deepEqual(moveItem(list, 3, 0), ['d', 'a', 'b', 'c']);
  assert.equal(moveItem(list, 1, 1), list);
  assert.equal(moveItem(list, 1, 9), list);
  assert.deepEqual(list, ['a', 'b', 'c', 'd']);
  // A drag is the same as a move to slotToIndex(from, slot).
  assert.deepEqual(moveItem(list, 0, slotToIndex(0, dropSlot([
    { index: 0, top: 0, bottom: 10 }, { index: 1, top: 10, bottom: 20 }, { index: 2, top: 20, bottom: 30 }, { index: 3, top: 30, bottom: 40 },
  ], 26))), ['b', 'c', 'a', 'd']);
});

test('keyAction: arrows select, Alt+arrows move, edges are said', () => {
  assert.deepEqual(keyAction('ArrowDown', { selected: null, count: 3 }), { select: 0 });
  assert.deepEqual(keyAction('ArrowUp', { selected: null, count: 3 }), { select: 2 });
  assert.deepEqual(keyAction('ArrowDown', { selected: 1, count: 3 }), { select: 2 });
  assert.deepEqual(keyAction('ArrowDown', { selected: 2, count: 3 }), { edge: 'last' });
  assert.deepEqual(keyAction('ArrowUp', { alt: true, selected: 1, count: 3 }), { move: [1, 0] });
  assert.deepEqual(keyAction('ArrowDown', { alt: true, selected: 1, count: 3 }), { move: [1, 2] });
  assert.deepEqual(keyAction('ArrowUp', { alt: true, selected: 0, count: 3 }), { edge: 'first' });
  assert.deepEqual(keyAction('End', { alt: true, selected: 0, count: 3 }), { move: [0, 2] });
  assert.deepEqual(keyAction('Home', { selected: 2, count: 3 }), { select: 0 });
  assert.deepEqual(keyAction('ArrowDown', { alt: true, selected: null, count: 3 }), { select: 0 }, 'nothing selected: Alt selects first');
  assert.equal(keyAction('Enter', { selected: 0, count: 3 }), null);
  assert.equal(keyAction('ArrowDown', { selected: 0, count: 0 }), null);
});
