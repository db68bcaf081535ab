// Undo and redo for an editor's draft (Ctrl+Z, Ctrl+Shift+Z or Ctrl+Y): every change is a step
// (an edit, a move, a removal, an addition); typing into one field is one step until the field
// changes or the user pauses. The draft is replaced by a copy of the earlier one and the view
// draws itself again; nothing is saved.
import { announce } from './notify.js';

const PAUSE = 1500; // ms of quiet after which typing in the same field is a new step

export class DraftHistory {
  /**
   * @param {{get: () => object, set: (draft: object) => void, onChange?: () => void}} options
   *   get: the draft now; set: puts an earlier draft in place (and draws it); onChange: the
   *   number of steps changed (buttons).
   */
  constructor({ get, set, onChange }) {
    this.get = get;
    this.set = set;
    this.onChange = onChange;
    this.reset();
  }

  /** Forgets every step (after a save, a reload or a restore): the draft now is the start. */
  reset() {
    this.past = [];
    this.future = [];
    this.current = JSON.stringify(this.get());
    this.lastKey = null;
    this.lastAt = 0;
    this.onChange?.();
  }

  /**
   * Records the draft as it is now, after a change called `label` ("remove List 2"). `key` names
   * the field typed into: changes with the same key close together are one step.
   */
  record(label, key = null) {
    const now = JSON.stringify(this.get());
    if (now === this.current) return;
    const time = Date.now();
    const merge = key && key === this.lastKey && time - this.lastAt < PAUSE && this.past.length;
    if (!merge) this.past.push({ state: this.current, label });
    this.current = now;
    this.future = [];
    this.lastKey = key;
    this.lastAt = time;
    if (this.past.length > 200) this.past.shift();
    this.onChange?.();
  }

  get canUndo() { return this.past.length > 0; }
  get canRedo() { return this.future.length > 0; }
  get undoLabel() { return this.past[this.past.length - 1]?.label || ''; }
  get redoLabel() { return this.future[this.future.length - 1]?.label || ''; }

  undo() {
    const step = this.past.pop();
    if (!step) { announce('Nothing to undo.'); return false; }
    this.future.push({ state: this.current, label: step.label });
    this.apply(step.state);
    announce(`Undone: ${step.label}.`);
    return step.label;
  }

  redo() {
    const step = this.future.pop();
    if (!step) { announce('Nothing to redo.'); return false; }
    this.past.push({ state: this.current, label: step.label });
    this.apply(step.state);
    announce(`Redone: ${step.label}.`);
    return step.label;
  }

  apply(state) {
    this.current = state;
    this.lastKey = null;
    this.set(JSON.parse(state));
    this.onChange?.();
  }

  /** Handles Ctrl+Z, Ctrl+Shift+Z and Ctrl+Y; true when the key was ours. */
  handleKey(event) {
    if (!(event.ctrlKey || event.metaKey) || event.altKey) return false;
    const key = event.key.toLowerCase();
    if (key === 'z' && !event.shiftKey) { event.preventDefault(); this.undo(); return true; }
    if ((key === 'z' && event.shiftKey) || key === 'y') { event.preventDefault(); this.redo(); return true; }
    return false;
  }
}

/** What the user is typing into, for one step per field: its focus key or id, and its label. */
export function activeField() {
  const el = document.activeElement;
  if (!el || el === document.body) return { key: null, label: 'edit' };
  const key = el.dataset?.focusKey || el.id || null;
  const text = (el.labels?.[0]?.textContent || el.getAttribute?.('aria-label') || '').trim();
  return { key, label: text ? `edit ${text}` : 'edit' };
}

/** Undo and redo buttons for a toolbar, kept up to date by `update()`. */
export function undoButtons(history, h) {
  const undo = h('button', { type: 'button', class: 'icon-button undo-button', id: 'undo', 'data-focus-key': 'undo', text: '↶', onclick: () => history.undo() });
  const redo = h('button', { type: 'button', class: 'icon-button undo-button', id: 'redo', 'data-focus-key': 'redo', text: '↷', onclick: () => history.redo() });
  const update = () => {
    undo.setAttribute('aria-disabled', history.canUndo ? 'false' : 'true');
    redo.setAttribute('aria-disabled', history.canRedo ? 'false' : 'true');
    undo.setAttribute('aria-label', history.canUndo ? `Undo ${history.undoLabel} (Ctrl+Z)` : 'Undo (nothing to undo)');
    redo.setAttribute('aria-label', history.canRedo ? `Redo ${history.redoLabel} (Ctrl+Shift+Z)` : 'Redo (nothing to redo)');
    undo.title = undo.getAttribute('aria-label');
    redo.title = redo.getAttribute('aria-label');
  };
  update();
  return { el: h('span', { class: 'undo-redo', role: 'group', 'aria-label': 'Undo and redo' }, undo, redo), update };
}
