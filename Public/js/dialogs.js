// Modal questions, on <dialog> (focus is trapped and given back by the browser).
import { h } from './dom.js';

function openDialog(content, { label, className, onCancel }) {
  const dialog = h('dialog', { class: ['dialog', className], 'aria-labelledby': label }, content);
  document.body.append(dialog);
  dialog.addEventListener('cancel', (event) => { event.preventDefault(); onCancel(); });
  dialog.showModal();
  return dialog;
}

function close(dialog) {
  if (dialog.open) dialog.close();
  dialog.remove();
}

/** Asks yes or no. Resolves true when confirmed. */
export function confirmDialog({ title, text, confirm = 'OK', cancel = 'Cancel', danger = false }) {
  return new Promise((resolve) => {
    const titleId = `dlg-${Math.random().toString(36).slice(2)}`;
    const done = (answer) => { close(dialog); resolve(answer); };
    const yes = h('button', { type: 'button', class: danger ? 'button danger' : 'button primary', text: confirm, onclick: () => done(true) });
    const no = h('button', { type: 'button', class: 'button', text: cancel, onclick: () => done(false) });
    const dialog = openDialog([
      h('h2', { id: titleId, text: title }),
      h('p', { text }),
      h('div', { class: 'dialog-actions' }, no, yes),
    ], { label: titleId, onCancel: () => done(false) });
    no.focus();
  });
}

/**
 * The 412 question: someone saved this resource first. Resolves 'reload' (take theirs, drop mine)
 * or 'keep' (go on editing mine; nothing is saved).
 * @param {{kind: string, name: string, theirRevision: number|null, myRevision: number|null, changedKeys: string[]}} info
 */
export function conflictDialog({ kind, name, theirRevision, myRevision, changedKeys = [], theirSummary = [], myChangedKeys = [] }) {
  return new Promise((resolve) => {
    const titleId = 'conflict-title';
    const done = (answer) => { close(dialog); resolve(answer); };
    const reload = h('button', {
      type: 'button', class: 'button primary', 'data-action': 'reload', text: 'Reload their version',
      'aria-describedby': 'conflict-reload-hint', onclick: () => done('reload'),
    });
    const keep = h('button', {
      type: 'button', class: 'button', 'data-action': 'keep', text: 'Keep editing mine',
      'aria-describedby': 'conflict-keep-hint', onclick: () => done('keep'),
    });
    const dialog = openDialog([
      h('h2', { id: titleId, text: `Someone else changed this ${kind} first` }),
      h('p', {},
        `Your changes to “${name}” were not saved: it was saved by someone else while you were editing`,
        theirRevision ? ` (it is now at revision ${theirRevision}` : '',
        theirRevision && myRevision ? `, yours started from revision ${myRevision})` : (theirRevision ? ')' : ''),
        '. Nothing was overwritten.'),
      changedKeys.length ? h('p', {}, 'They changed: ', h('strong', { text: changedKeys.join(', ') }), '.') : null,
      theirSummary.length ? h('ul', { class: 'conflict-summary' }, theirSummary.map((line) => h('li', { text: line }))) : null,
      myChangedKeys.length ? h('p', {}, 'Your unsaved changes: ', h('strong', { text: myChangedKeys.join(', ') }), '.') : null,
      h('ul', { class: 'choice-list' },
        h('li', {}, h('strong', { text: 'Reload their version' }), h('span', { id: 'conflict-reload-hint', text: ' — shows what is saved now; your unsaved changes are dropped.' })),
        h('li', {}, h('strong', { text: 'Keep editing mine' }), h('span', { id: 'conflict-keep-hint', text: ' — your changes stay on screen, unsaved; you can reload later, or save yours over theirs on purpose.' }))),
      h('div', { class: 'dialog-actions' }, keep, reload),
    ], { label: titleId, className: 'conflict-dialog', onCancel: () => done('keep') });
    reload.focus();
  });
}

/** Asks for one line of text (a name). Resolves the text, or null when cancelled. */
export function promptDialog({ title, label, value = '', confirm = 'OK', hint = '' }) {
  return new Promise((resolve) => {
    const titleId = `dlg-${Math.random().toString(36).slice(2)}`;
    const input = h('input', { type: 'text', id: `${titleId}-input`, value, required: true });
    const done = (answer) => { close(dialog); resolve(answer); };
    const form = h('form', {
      method: 'dialog',
      onsubmit: (event) => { event.preventDefault(); if (input.value.trim()) done(input.value.trim()); else input.focus(); },
    },
    h('h2', { id: titleId, text: title }),
    h('div', { class: 'field' }, h('label', { for: input.id, text: label }), input, hint ? h('p', { class: 'hint', text: hint }) : null),
    h('div', { class: 'dialog-actions' },
      h('button', { type: 'button', class: 'button', text: 'Cancel', onclick: () => done(null) }),
      h('button', { type: 'submit', class: 'button primary', text: confirm })));
    const dialog = openDialog(form, { label: titleId, onCancel: () => done(null) });
    input.focus();
    input.select();
  });
}
