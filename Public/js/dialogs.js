// Modal questions, on <dialog> (focus is trapped and given back by the browser).
import { h } from './dom.js';
import { clearFieldErrors } from './field-errors.js';

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
 * Asks to choose one of several answers. Resolves the chosen `value`, or `cancel` when dismissed.
 * @param {{title: string, text: string, choices: Array<{value: string, label: string, kind?: 'primary'|'danger'|'', hint?: string}>, cancel: string, focus?: string}} options
 *   focus: the value of the button focused first (the default action).
 */
export function choiceDialog({ title, text, choices, cancel, focus, className }) {
  return new Promise((resolve) => {
    const titleId = `dlg-${Math.random().toString(36).slice(2)}`;
    const done = (answer) => { close(dialog); resolve(answer); };
    const buttons = choices.map((c) => h('button', {
      type: 'button', class: ['button', c.kind], 'data-action': c.value, text: c.label,
      title: c.hint || null, onclick: () => done(c.value),
    }));
    const dialog = openDialog([
      h('h2', { id: titleId, text: title }),
      h('p', { text }),
      h('div', { class: 'dialog-actions' }, buttons),
    ], { label: titleId, className, onCancel: () => done(cancel) });
    (buttons[choices.findIndex((c) => c.value === focus)] || buttons[0]).focus();
  });
}

/**
 * The 412 question, asked only when both people changed the same thing: someone saved this
 * resource first. It names, on each side, the component and field changed (before → after), and
 * lets the user pick, for each overlap, whose value stays; everything else is merged.
 * Resolves {action: 'keep'} (nothing saved, nothing lost: the default), {action: 'merge', choices}
 * (save the merge with these choices) or {action: 'reload'} (take theirs, drop mine).
 * @param {{kind: string, name: string, theirRevision: number|null, myRevision: number|null,
 *   theirLines: string[], myLines: string[], conflicts: Array<{key: string, title: string, theirs: string, mine: string}>}} info
 */
export function conflictDialog({ kind, name, theirRevision, myRevision, theirLines = [], myLines = [], conflicts = [] }) {
  return new Promise((resolve) => {
    const titleId = 'conflict-title';
    const choices = {};
    const done = (answer) => { close(dialog); resolve(answer); };
    const merge = h('button', {
      type: 'button', class: 'button primary', 'data-action': 'merge', text: 'Save the merge', disabled: true,
      'aria-describedby': 'conflict-merge-hint', onclick: () => done({ action: 'merge', choices: { ...choices } }),
    });
    const reload = h('button', {
      type: 'button', class: 'button danger', 'data-action': 'reload', text: 'Take theirs, drop mine',
      'aria-describedby': 'conflict-reload-hint', onclick: () => done({ action: 'reload' }),
    });
    const keep = h('button', {
      type: 'button', class: 'button', 'data-action': 'keep', text: 'Keep editing mine',
      'aria-describedby': 'conflict-keep-hint', onclick: () => done({ action: 'keep' }),
    });
    const side = (title, lines, cls) => h('section', { class: ['conflict-side', cls] },
      h('h3', { text: title }),
      lines.length ? h('ul', {}, lines.slice(0, 10).map((line) => h('li', { text: line })),
        lines.length > 10 ? h('li', { class: 'muted', text: `and ${lines.length - 10} more` }) : null) : h('p', { class: 'hint', text: 'nothing that differs' }));
    const picks = conflicts.map((c, i) => {
      const name = `conflict-${i}`;
      const radio = (value, label) => {
        const input = h('input', { type: 'radio', name, value, id: `${name}-${value}`, 'data-choice': value });
        input.addEventListener('change', () => {
          choices[c.key] = value;
          merge.disabled = Object.keys(choices).length < conflicts.length;
        });
        return h('div', { class: 'radio' }, input, h('label', { for: input.id, text: label }));
      };
      return h('fieldset', { class: 'conflict-choice', 'data-conflict-key': c.key },
        h('legend', { text: c.title }),
        radio('theirs', `Theirs: ${c.theirs}`),
        radio('mine', `Mine: ${c.mine}`));
    });
    const dialog = openDialog([
      h('h2', { id: titleId, text: `Someone else changed this ${kind} first` }),
      h('p', {},
        `Your changes to “${name}” are not saved yet: it was saved by someone else while you were editing`,
        theirRevision ? ` (it is now at revision ${theirRevision}` : '',
        theirRevision && myRevision ? `; you started from revision ${myRevision})` : (theirRevision ? ')' : ''),
        '. Nothing was overwritten.'),
      h('div', { class: 'conflict-sides' }, side('They changed', theirLines, 'theirs'), side('You changed', myLines, 'mine')),
      h('p', {}, h('strong', { text: `You both changed ${conflicts.length === 1 ? 'one thing' : `${conflicts.length} things`}.` }),
        ' Everything else is merged. Choose whose value to keep:'),
      h('div', { class: 'conflict-choices' }, picks),
      h('ul', { class: 'choice-list' },
        h('li', {}, h('strong', { text: 'Save the merge' }), h('span', { id: 'conflict-merge-hint', text: ' — saves their changes and yours together, with your choices where you both changed something.' })),
        h('li', {}, h('strong', { text: 'Keep editing mine' }), h('span', { id: 'conflict-keep-hint', text: ' — nothing is saved and nothing is lost: your changes stay on screen, theirs stay saved; decide later.' })),
        h('li', {}, h('strong', { text: 'Take theirs, drop mine' }), h('span', { id: 'conflict-reload-hint', text: ' — shows what is saved now; your unsaved changes are dropped.' }))),
      h('div', { class: 'dialog-actions' }, reload, keep, merge),
    ], { label: titleId, className: 'conflict-dialog', onCancel: () => done({ action: 'keep' }) });
    keep.focus();
  });
}

/**
 * A dialog holding a small form (fields carrying `data-pointer`). On confirm, `submit` runs with the
 * form and the place for its error summary (old errors cleared first); it resolves the dialog's
 * answer (the dialog closes), or undefined to stay open (its errors shown at its fields).
 * Resolves null when cancelled.
 * @param {{title: string, fields: Element[], confirm?: string, className?: string,
 *   submit: (where: {form: HTMLFormElement, errorsHost: Element}) => Promise<any>}} options
 */
export function formDialog({ title, fields, confirm = 'OK', className, submit }) {
  return new Promise((resolve) => {
    const titleId = `dlg-${Math.random().toString(36).slice(2)}`;
    let busy = false;
    const done = (answer) => { close(dialog); resolve(answer); };
    const errorsHost = h('div', { class: 'form-errors', 'data-pointer': '' });
    const button = h('button', { type: 'submit', class: 'button primary', text: confirm });
    const form = h('form', {
      method: 'dialog', novalidate: true, class: 'dialog-form',
      onsubmit: async (event) => {
        event.preventDefault();
        if (busy) return;
        busy = true;
        button.disabled = true;
        clearFieldErrors(form);
        try {
          const answer = await submit({ form, errorsHost });
          if (answer !== undefined) done(answer);
        } finally {
          busy = false;
          button.disabled = false;
        }
      },
    },
    h('h2', { id: titleId, text: title }),
    errorsHost,
    fields,
    h('div', { class: 'dialog-actions' },
      h('button', { type: 'button', class: 'button', text: 'Cancel', onclick: () => done(null) }),
      button));
    const dialog = openDialog(form, { label: titleId, className, onCancel: () => done(null) });
    const first = form.querySelector('input, select, textarea');
    first?.focus();
    first?.select?.();
  });
}
