// Undo and redo of an editor's draft (Public/js/history.js, DraftHistory): one step per change,
// typing into one field one step until the field changes or the user pauses (1.5 s), at most 200
// steps. Run: node --test Tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DraftHistory } from '../../Public/js/history.js';

/** A draft with a history, the clock in the test's hands. */
function setup(t, start = { name: 'A', list: [1] }) {
  let clock = 1_000_000;
  t.mock.method(Date, 'now', () => clock);
  const box = { draft: structuredClone(start), sets: 0, changes: 0 };
  const history = new DraftHistory({
    get: () => box.draft,
    set: (draft) => { box.draft = draft; box.sets += 1; },
    onChange: () => { box.changes += 1; },
  });
  const edit = (change, label, key) => { change(box.draft); return history.record(label, key); };
  const wait = (ms) => { clock += ms; };
  return { box, history, edit, wait };
}

test('a new history has nothing to undo or redo', (t) => {
  const { history, box } = setup(t);
  assert.equal(history.canUndo, false);
  assert.equal(history.canRedo, false);
  assert.equal(history.undoLabel, '');
  assert.equal(history.redoLabel, '');
  assert.equal(history.undo(), false);
  assert.equal(history.redo(), false);
  assert.equal(box.sets, 0, 'the draft is left alone');
  assert.equal(box.changes, 1, 'told once, at the start');
});

test('each change is a step: undo goes back one at a time, redo forward', (t) => {
  const { history, box, edit } = setup(t);
  edit((d) => { d.name = 'B'; }, 'rename');
  edit((d) => { d.list.push(2); }, 'add 2');
  edit((d) => { d.nested = { x: 1 }; }, 'add nested');
  assert.equal(history.undoLabel, 'add nested');

  assert.equal(history.undo(), 'add nested');
  assert.deepEqual(box.draft, { name: 'B', list: [1, 2] });
  assert.equal(history.redoLabel, 'add nested');
  assert.equal(history.undo(), 'add 2');
  assert.deepEqual(box.draft, { name: 'B', list: [1] });
  assert.equal(history.undo(), 'rename');
  assert.deepEqual(box.draft, { name: 'A', list: [1] });
  assert.equal(history.canUndo, false);
  assert.equal(history.undo(), false);

  assert.equal(history.redo(), 'rename');
  assert.equal(history.redo(), 'add 2');
  assert.equal(history.redo(), 'add nested');
  assert.deepEqual(box.draft, { name: 'B', list: [1, 2], nested: { x: 1 } });
  assert.equal(history.redo(), false);
  assert.equal(history.undoLabel, 'add nested');
});

test('the draft put back is a copy: editing it does not change the steps', (t) => {
  const { history, box, edit } = setup(t);
  edit((d) => { d.list.push(2); }, 'add 2');
  history.undo();
  const restored = box.draft;
  restored.list.push(99); // edited in place without recording
  history.redo();
  history.undo();
  assert.deepEqual(box.draft, { name: 'A', list: [1] });
  assert.notEqual(box.draft, restored);
});

test('recording without a change is no step', (t) => {
  const { history, box, edit } = setup(t);
  const before = box.changes;
  edit(() => {}, 'nothing');
  edit((d) => { d.list = [1]; }, 'same list again');
  assert.equal(history.canUndo, false);
  assert.equal(box.changes, before, 'nobody told');
});

test('a change after an undo drops what could be redone', (t) => {
  const { history, box, edit } = setup(t);
  edit((d) => { d.name = 'B'; }, 'rename B');
  edit((d) => { d.name = 'C'; }, 'rename C');
  history.undo();
  assert.equal(history.canRedo, true);
  edit((d) => { d.name = 'D'; }, 'rename D');
  assert.equal(history.canRedo, false);
  assert.equal(history.redo(), false);
  assert.equal(history.undo(), 'rename D');
  assert.equal(box.draft.name, 'B');
  assert.equal(history.undo(), 'rename B');
  assert.equal(box.draft.name, 'A');
});

test('typing into one field is one step until a pause of 1.5 s', (t) => {
  const { history, box, edit, wait } = setup(t);
  for (const text of ['H', 'He', 'Hel', 'Hell', 'Hello']) { edit((d) => { d.name = text; }, 'edit Name', 'name'); wait(1000); }
  assert.equal(history.past.length, 1, 'pauses under 1.5 s between keys: one step');
  wait(500); // 1.5 s since the last key
  edit((d) => { d.name = 'Hello!'; }, 'edit Name again', 'name');
  assert.equal(history.past.length, 2);
  assert.equal(history.undoLabel, 'edit Name again');
  assert.equal(history.undo(), 'edit Name again');
  assert.equal(box.draft.name, 'Hello');
  assert.equal(history.undo(), 'edit Name', 'the first key\'s label');
  assert.equal(box.draft.name, 'A');
});

test('typing into another field, or a change without a field, is a new step', (t) => {
  const { history, box, edit, wait } = setup(t);
  edit((d) => { d.name = 'B'; }, 'edit Name', 'name');
  wait(10);
  edit((d) => { d.title = 'T'; }, 'edit Title', 'title');
  wait(10);
  edit((d) => { d.title = 'Tt'; }, 'edit Title', 'title');
  wait(10);
  edit((d) => { d.list.push(2); }, 'add 2');
  wait(10);
  edit((d) => { d.list.push(3); }, 'add 3');
  assert.deepEqual(history.past.map((s) => s.label), ['edit Name', 'edit Title', 'add 2', 'add 3']);
  history.undo(); history.undo(); history.undo();
  assert.deepEqual(box.draft, { name: 'B', list: [1] });
});

test('typing again after an undo starts a new step', (t) => {
  const { history, box, edit, wait } = setup(t);
  edit((d) => { d.name = 'B'; }, 'edit Name', 'name');
  wait(10);
  edit((d) => { d.name = 'BC'; }, 'edit Name', 'name');
  history.undo();
  assert.equal(box.draft.name, 'A');
  wait(10);
  edit((d) => { d.name = 'X'; }, 'edit Name', 'name');
  wait(10);
  edit((d) => { d.name = 'XY'; }, 'edit Name', 'name');
  assert.equal(history.past.length, 1);
  history.undo();
  assert.equal(box.draft.name, 'A');
});

test('at most 200 steps are kept: the oldest go first', (t) => {
  const { history, box, edit } = setup(t, { n: 0 });
  for (let i = 1; i <= 205; i += 1) edit((d) => { d.n = i; }, `set ${i}`);
  assert.equal(history.past.length, 200);
  let undone = 0;
  while (history.undo()) undone += 1;
  assert.equal(undone, 200);
  assert.deepEqual(box.draft, { n: 5 }, 'the five oldest steps are gone');
  let redone = 0;
  while (history.redo()) redone += 1;
  assert.equal(redone, 200);
  assert.deepEqual(box.draft, { n: 205 });
});

test('reset forgets every step: the draft now is the start', (t) => {
  const { history, box, edit } = setup(t);
  edit((d) => { d.name = 'B'; }, 'rename');
  edit((d) => { d.name = 'C'; }, 'rename');
  history.undo();
  history.reset();
  assert.equal(history.canUndo, false);
  assert.equal(history.canRedo, false);
  edit((d) => { d.name = 'D'; }, 'rename D');
  history.undo();
  assert.equal(box.draft.name, 'B', 'back to the draft at the reset');
});

test('onChange is told of every record, undo, redo and reset', (t) => {
  const { history, box, edit } = setup(t);
  const start = box.changes;
  edit((d) => { d.name = 'B'; }, 'rename');
  history.undo();
  history.redo();
  history.reset();
  assert.equal(box.changes - start, 4);
});

test('keys: Ctrl+Z undoes, Ctrl+Shift+Z and Ctrl+Y redo (Cmd too); others are not ours', (t) => {
  const { history, box, edit } = setup(t);
  edit((d) => { d.name = 'B'; }, 'rename');
  const press = (key, mods = {}) => {
    const event = { key, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, ...mods, prevented: false };
    event.preventDefault = () => { event.prevented = true; };
    return [history.handleKey(event), event.prevented];
  };
  assert.deepEqual(press('z', { ctrlKey: true }), [true, true]);
  assert.equal(box.draft.name, 'A');
  assert.deepEqual(press('Z', { ctrlKey: true, shiftKey: true }), [true, true]);
  assert.equal(box.draft.name, 'B');
  assert.deepEqual(press('z', { metaKey: true }), [true, true]);
  assert.equal(box.draft.name, 'A');
  assert.deepEqual(press('y', { ctrlKey: true }), [true, true]);
  assert.equal(box.draft.name, 'B');
  assert.deepEqual(press('z'), [false, false]);
  assert.deepEqual(press('z', { ctrlKey: true, altKey: true }), [false, false]);
  assert.deepEqual(press('x', { ctrlKey: true }), [false, false]);
  assert.equal(box.draft.name, 'B');
});
